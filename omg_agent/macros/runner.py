"""Running a compiled macro on the device: chunk, shell call, checkpoint, repeat.

:class:`MacroRunner` loops: plan the next :class:`~omg_agent.macros.compile.Chunk` from the
last observation, let the gate see every touch in it, send it as packed ``adb shell`` calls
through the driver's own shell stream (:class:`~omg_agent.drivers.adbio.AdbIO.run_status`,
the same path the bundle executor uses), let the driver wait for the screen to settle,
then take one observation and judge it (:func:`~omg_agent.macros.compile.checkpoint`). A
chunk ends at the first touch that may change the screen (the judged port's rule,
:func:`~omg_agent.drivers.inputs.keeps_screen`), so no touch is judged on a screen an
earlier one may have changed. It ends when the stop condition is met, the
list ends (a scroll that shows nothing new), or something is wrong — a checkpoint mismatch,
a refused command, a sensitive touch — and then hands back a :class:`MacroReport` saying
exactly what was done: items touched and seen done, items touched but not seen since, and
why it stopped. Without a shell stream (a non-adb driver) each chunk runs through
``driver.execute`` instead.

Sensitive actions are never compiled without pre-authorisation: every touch of every chunk,
the first included, goes through ``GateKeeper.holds`` on the screen it lands on (the one
the chunk was planned on: every touch before it in the chunk keeps that screen) (which asks
nobody: only what the task or ``--allow`` pre-authorised passes) — a touch the gate would
hold is cut from its chunk with everything after it, and the macro stops.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from omg_agent.core.actions import LongPress, PointTarget, Tap
from omg_agent.core.geometry import Point
from omg_agent.core.observation import Observation
from omg_agent.drivers import commands as cmds
from omg_agent.drivers.adbio import ShellResult
from omg_agent.drivers.base import Driver
from omg_agent.drivers.inputs import judge_of, touch_slop_px
from omg_agent.drivers.ports import InputEffect, InputScene, Verb
from omg_agent.errors import DeviceError
from omg_agent.macros.compile import Chunk, Progress, checkpoint, plan_chunk, screen_items
from omg_agent.macros.model import Macro, Stop

log = logging.getLogger(__name__)
MAX_CHUNKS = 500


StopKind = Literal["done", "checkpoint", "device", "sensitive", "limit", "start"]


class Shell(Protocol):
    """The shell stream a macro's calls travel on (``AdbIO``)."""

    def run_status(self, cmd: str, *, timeout: float | None = None,
                   label: str = "") -> ShellResult: ...


class Gate(Protocol):
    def holds(self, action, obs: Observation) -> bool: ...


@dataclass(frozen=True)
class MacroReport:
    """What one run of a macro did, for the operator and the trace."""

    macro: str
    completed: bool
    reason: str
    sent: tuple[str, ...]  # items acted on, in order
    verified: tuple[str, ...]  # of those, the ones a checkpoint saw done
    chunks: int
    shell_calls: int
    observations: int
    seconds: float
    last: Observation | None = None
    stopped_by: StopKind = "done"

    @property
    def unconfirmed(self) -> tuple[str, ...]:
        """Acted on, but scrolled away before a checkpoint could look."""
        return tuple(k for k in self.sent if k not in self.verified)

    def summary(self) -> str:
        done = len(self.sent)
        head = (f"macro {self.macro} {'finished' if self.completed else 'STOPPED'}: "
                f"{self.reason}. It acted on {done} item(s)")
        parts = [head]
        if self.verified:
            parts.append("seen done afterwards: " + _span(self.verified))
        if self.unconfirmed:
            parts.append("sent but scrolled away before a check"
                         + ("" if self.completed else " (check these before redoing them)")
                         + ": " + _span(self.unconfirmed))
        if not self.completed:
            parts.append("the operator has control again")
        return "; ".join(parts) + "."


def _span(keys: tuple[str, ...]) -> str:
    return ", ".join(keys) if len(keys) <= 6 else f"{keys[0]} … {keys[-1]} ({len(keys)})"


class MacroRunner:
    """Runs macros on one device."""

    def __init__(self, driver: Driver, shell: Shell | None = None, gate: Gate | None = None,
                 *, max_chunks: int = MAX_CHUNKS) -> None:
        self.driver = driver
        self.shell = shell
        self.gate = gate
        self.max_chunks = max_chunks

    def run(self, macro: Macro, stop: Stop, obs: Observation | None = None) -> MacroReport:
        started = time.perf_counter()
        state = _Run(macro, stop, obs or self.driver.observe())
        state.observations += obs is None
        reason = self._start_problem(state)
        if reason:
            return state.report(False, reason, started, "start")
        while state.chunks < self.max_chunks:
            chunk = plan_chunk(macro, stop, state.obs, state.progress)
            if not chunk.taps and chunk.final:
                return state.report(True, chunk.reason, started)
            held = self._held(chunk, state.obs)
            if held:
                chunk = Chunk(chunk.taps[:held[0]], None, True, held[1], chunk.seen)
            try:
                self._send(chunk, state)
            except DeviceError as exc:
                return state.report(False, f"the device refused a command: {exc}", started,
                                    "device")
            state.obs = self.driver.observe()
            state.observations += 1
            problem = checkpoint(macro, state.obs, state.progress, state.known)
            if problem:
                return state.report(False, f"checkpoint: {problem}", started, "checkpoint")
            if held:
                return state.report(False, held[1], started, "sensitive")
            if chunk.final:
                return state.report(True, chunk.reason, started)
            if not chunk.taps and set(_keys(macro, state.obs)) <= set(chunk.seen):
                return state.report(True, "the end of the list", started)
        return state.report(False, f"gave up after {self.max_chunks} chunks", started,
                            "limit")

    def _start_problem(self, state: _Run) -> str:
        obs, macro = state.obs, state.macro
        if obs.package and obs.package != macro.app:
            return f"the macro works in {macro.app}, but {obs.package} is in front"
        if not any(e.resource_id == macro.container for e in obs.elements):
            return f"the list {macro.container} is not on the screen"
        return ""

    def _held(self, chunk: Chunk, obs: Observation) -> tuple[int, str] | None:
        """The first touch of ``chunk`` the gate would hold, and why."""
        if self.gate is None:
            return None
        for i, (key, point) in enumerate(chunk.taps):
            if self.gate.holds(_touch(point, obs), obs):
                return i, f"the touch on {key!r} is sensitive and was not pre-authorised"
        return None

    def _send(self, chunk: Chunk, state: _Run) -> None:
        action = state.macro.target.action
        keys = [k for k, _ in chunk.taps]
        state.progress.last_chunk = tuple(keys)
        if not chunk.taps and chunk.scroll is None:
            return
        state.chunks += 1
        if self.shell is None:
            self._execute(chunk, state)
            return
        self._judge(chunk, state)  # the shell's inputs pass the choke point too
        device = _settling(self.driver)
        if device is not None:  # the next look's dump starts with the inputs (.nextlook)
            device.before_boundary()
        done = 0
        for call in chunk.calls(action):
            result = self.shell.run_status(call.command, label=call.label)
            state.shell_calls += 1
            finished = cmds.completed_actions(call, result.stdout, result.status)
            done += finished
            if result.status != 0:
                state.progress.sent += keys[:min(done, len(keys))]
                raise DeviceError(f"{call.label}: exit status {result.status}: "
                                  f"{result.text()[:200]}")
        state.progress.sent += keys
        if device is not None:  # the next chunk is planned on the screen once it settles
            device.wait_settled()

    def _judge(self, chunk: Chunk, state: _Run) -> None:
        """Each input the chunk sends on the shell, judged by the driver's choke point
        (:mod:`omg_agent.guards.choke`) on the screen the chunk was planned on;
        :class:`~omg_agent.drivers.ports.InputHeld` stops the chunk before any is sent."""
        judge = judge_of(self.driver)
        if judge is None:
            return
        verb: Verb = "long_press" if state.macro.target.action == "long_press" else "tap"
        scene = InputScene(state.obs, touch_slop_px(self.driver.info().density))
        for _, point in chunk.taps:
            judge.judge(InputEffect(verb, Point(*point), duration_ms=800), scene)
        if chunk.scroll is not None:
            start, end = chunk.scroll
            judge.judge(InputEffect("swipe", Point(*start), Point(*end), 600), scene)

    def _execute(self, chunk: Chunk, state: _Run) -> None:
        """The chunk through ``driver.execute`` (drivers without a shell stream)."""
        from omg_agent.core.actions import Swipe

        for key, point in chunk.taps:
            result = self.driver.execute([_touch(point, state.obs, state.macro.target.action)])
            state.shell_calls += result.device_calls
            if not result.ok:
                raise DeviceError(f"{key}: {result.outcomes[0].detail if result.outcomes else ''}")
            state.progress.sent.append(key)
        if chunk.scroll is not None:
            start, end = chunk.scroll
            a, b = state.obs.to_normalized(start), state.obs.to_normalized(end)
            result = self.driver.execute([Swipe.model_validate({
                "from": {"x": a.x, "y": a.y}, "to": {"x": b.x, "y": b.y}, "duration_ms": 600})])
            state.shell_calls += result.device_calls


class _Run:
    """One run's mutable state."""

    def __init__(self, macro: Macro, stop: Stop, obs: Observation) -> None:
        self.macro, self.stop, self.obs = macro, stop, obs
        self.progress = Progress()
        self.known = frozenset(e.resource_id for e in obs.elements if e.resource_id)
        self.chunks = self.shell_calls = self.observations = 0

    def report(self, completed: bool, reason: str, started: float,
               kind: StopKind = "done") -> MacroReport:
        p = self.progress
        return MacroReport(self.macro.name, completed, reason, tuple(p.sent),
                           tuple(p.verified), self.chunks, self.shell_calls,
                           self.observations, round(time.perf_counter() - started, 3),
                           self.obs, kind)


def _settling(driver: object) -> Any:
    """The driver under any wrappers (``inner``) that settles and looks ahead (the ADB
    driver: ``before_boundary`` / ``wait_settled``), or ``None``."""
    seen: set[int] = set()
    while driver is not None and id(driver) not in seen:
        seen.add(id(driver))
        if callable(getattr(driver, "before_boundary", None)) and \
                callable(getattr(driver, "wait_settled", None)):
            return driver
        driver = getattr(driver, "inner", None)
    return None


def _keys(macro: Macro, obs: Observation) -> list[str]:
    return [i.key for i in screen_items(macro, obs)]


def _touch(point: Point, obs: Observation, action: str = "tap") -> Tap | LongPress:
    norm = obs.to_normalized(point)
    target = PointTarget(x=norm.x, y=norm.y)
    return LongPress(target=target) if action == "long_press" else Tap(target=target)
