"""Running a flow on a device with no model: each step re-anchored on the screen it acts on.

:class:`FlowRunner` walks a :class:`~.model.Flow`. Every touch is found anew on a fresh
observation by :mod:`.select` and handed to the driver as the usual
:class:`~omg_agent.core.actions.Action` (``driver.execute(actions, observation)``: the one
executor resolves, batches, settles); nothing is replayed by coordinates. A step waits up
to its timeout for its element (the driver's observation already waits out loading
screens). Each action passes the sensitive-action gate (:class:`~omg_agent.guards.gatekeeper.
GateKeeper`) first: a flow cannot pay, delete or send without a yes or an ``--allow``.

Every step is written to the run's trace (:class:`~omg_agent.trace.recorder.TraceRecorder`,
phase ``flow``) like an agent's step, so replays get the same trace and HTML report. A step
that cannot be anchored stops the flow with the screen saved in the trace and the reason in
:class:`FlowResult` — never silently; an ``optional`` step is skipped with a note instead.
``$vars`` come from ``env``, the caller's values and ``memSave``; ``{{secret:NAME}}`` stays
a placeholder until the driver wrapper types it.

A step that cannot be undone — the gate names it payment, send, delete, install or account
security, allowed or confirmed — is noted before it is sent. Once one was sent, any later
failure ends the flow ``failed`` with "paid once: check the phone" (sent once, deleted
once, …): the outcome is on the phone, so nothing retries it — not a ``retry`` block, not
the replay cache's hand-over to the model.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from omg_agent.core import actions as a
from omg_agent.core.actions import VAR_PATTERN, Action
from omg_agent.core.observation import Observation
from omg_agent.drivers.base import Driver, ExecResult
from omg_agent.errors import ActionRejected, AnchorNotFound, FlowError, FlowFailed, OmgError
from omg_agent.flows import model as m
from omg_agent.flows.model import ONCE, Command, Condition, Flow, FlowResult, Selector
from omg_agent.flows.parse import MAX_TIMES, load_flow
from omg_agent.flows.select import awaited, find, literal, screen_texts, target_for
from omg_agent.guards.confirmation import NO_CLEAR_ANSWER
from omg_agent.guards.gatekeeper import GateKeeper
from omg_agent.guards.sensitive import Gate, Sensitivity
from omg_agent.perception.reading import read_from_screen
from omg_agent.userfiles import inside

log = logging.getLogger(__name__)

_SCROLL_FINGER = {"down": "up", "up": "down", "left": "right", "right": "left"}
MAX_DEPTH = 8  # runFlow nesting


class FlowRunner:
    """Runs flows on ``driver``; ``recorder`` (optional) receives every step."""

    def __init__(self, driver: Driver, *, recorder: Any = None,
                 gate: GateKeeper | None = None, variables: dict[str, str] | None = None,
                 step_timeout: float | None = None,
                 on_step: Callable[[str], None] | None = None) -> None:
        self.driver = driver
        self.recorder = recorder
        self.gate = gate
        self._judge = gate or GateKeeper(Gate())  # names sensitive steps when no gate asks
        self.vars: dict[str, str] = dict(variables or {})
        self.step_timeout = step_timeout
        self.on_step = on_step
        self._step = 0
        self._result = FlowResult("done")
        self._seen: Observation | None = None  # cleared whenever an action ran
        self._root = Path().resolve()

    # -- entry ------------------------------------------------------------------------------
    def run(self, flow: Flow) -> FlowResult:
        t0 = time.perf_counter()
        self.vars = {**flow.env, **self.vars}
        self._result = result = FlowResult("done")
        # runFlow files stay inside the folder of the flow being run (resolved, with links)
        self._root = (Path(flow.source).parent if flow.source else Path()).resolve()
        try:
            self._block(flow.commands, flow, 0)
        except FlowFailed as exc:
            result.status = "needs_confirmation" if exc.kind == "gate-nobody" else "failed"
            result.failed, result.failed_step = str(exc), self._step
            if exc.kind == "gate":
                result.refused = str(exc)
            if result.once:  # the phone holds the outcome: never "try again"
                result.status = "failed"
                result.failed = f"{result.once}: check the phone — {exc}"
        result.wall_s = round(time.perf_counter() - t0, 4)
        result.variables = dict(self.vars)
        if self.recorder is not None:
            self.recorder.record_event("flow_end", status=result.status, failed=result.failed,
                                       commands=result.commands, actions=result.actions)
        return result

    def _block(self, commands: tuple[Command, ...], flow: Flow, depth: int) -> None:
        for command in commands:
            try:
                self._one(command, flow, depth)
            except FlowFailed as exc:
                if not command.optional or exc.kind.startswith("gate"):
                    raise
                log.info("optional step skipped: %s (%s)", command.label(), exc)
                self._note(None, f"skipped optional {command.label()}: {exc}")

    # -- one command ------------------------------------------------------------------------
    def _one(self, c: Command, flow: Flow, depth: int) -> None:
        self._result.commands += 1
        if self.on_step is not None:
            self.on_step(c.label())
        timeout = self.step_timeout if self.step_timeout is not None else c.timeout_s
        match c:
            case m.LaunchApp():
                if not (app := c.app or flow.app_id):
                    raise FlowFailed("launchApp: no app named and no appId in the header")
                self._act(a.Launch(app=app, restart=c.stop or None), None, c)
            case m.TapOn() | m.LongPressOn():
                obs, target = self._wait_for(c, timeout)
                long = isinstance(c, m.LongPressOn)
                self._act(a.LongPress(target=target) if long else a.Tap(target=target), obs, c)
            case m.InputText():
                obs, target = (self._observe(), None) if c.selector is None else \
                    self._wait_for(c, timeout)
                self._act(a.TypeText(text=self._fill(c.text), target=target, clear=c.clear),
                          obs, c)
            case m.EraseText():
                self._act(a.TypeText(text="", clear=True), self._observe(), c)
            case m.AssertVisible():
                self._until(Condition(visible=c.selector), timeout, c)
            case m.AssertNotVisible():
                self._until(Condition(not_visible=c.selector), timeout, c)
            case m.ExtendedWaitUntil():
                self._until(c.condition, c.timeout_s, c)
            case m.ScrollUntilVisible():
                self._scroll_until(c)
            case m.Scroll() | m.SwipeScreen() | m.PressBack() | m.PressKey():
                self._act(_plain_action(c), self._observe(), c)
            case m.WaitForAnimationToEnd() | m.TakeScreenshot():
                self._note(self._observe(fresh=True), c.label())
            case m.WaitSeconds():
                time.sleep(c.seconds)
                self._seen = None
            case m.SaveValue():
                self._mem_save(c, timeout)
            case m.Repeat():
                self._repeat(c, flow, depth)
            case m.RunFlow():
                if c.condition is None or self._holds(c.condition, self._observe()):
                    self._block(self._body(c, flow, depth), flow, depth + 1)
            case m.Retry():
                self._retry(c, flow, depth)

    # -- helpers ----------------------------------------------------------------------------
    def _observe(self, *, fresh: bool = False) -> Observation:
        """The screen now; the last observation again when nothing ran since it was taken
        (a check and the tap after it read one screen)."""
        if self._seen is not None and not fresh:
            return self._seen
        self._result.observations += 1
        self._seen = self.driver.observe()
        return self._seen

    def _wait_for(self, c: m.TapOn | m.LongPressOn | m.InputText | m.SaveValue, timeout: float
                  ) -> tuple[Observation, a.PointTarget | a.ElementTarget | Any]:
        if isinstance(c, m.TapOn | m.LongPressOn) and c.point is not None:
            x, y = c.point
            return self._observe(), a.PointTarget(x=round(x * 10), y=round(y * 10))
        assert c.selector is not None
        selector = self._sel(c.selector)
        deadline = time.monotonic() + timeout
        first = True
        while True:
            obs = self._observe(fresh=not first)
            first = False
            target = target_for(selector, obs)
            if target is not None:
                return obs, target
            if time.monotonic() >= deadline:
                self._note(obs, f"not found: {c.label()}")
                raise FlowFailed(f"step {c.line} {c.label()}: no such element on the screen "
                                 f"of {obs.package or 'the phone'} after {timeout:g} s",
                                 kind="anchor")

    def _act(self, action: Action, obs: Observation | None, c: Command) -> ExecResult:
        since = len(self.gate.passed.entries) if self.gate is not None else 0
        if obs is not None and self.gate is not None:
            stop = self.gate.review([action], obs)
            if stop is not None:
                self._note(obs, f"held: {stop.request.describe}")
                if stop.gone:  # the yes was for what the screen no longer shows
                    raise FlowFailed(f"{c.label()}: not done — the user said yes to "
                                     f"{stop.request.describe}, but {stop.gone}", kind="gate")
                if stop.answer is None:
                    raise FlowFailed(f"{c.label()}: needs your yes first — "
                                     f"{stop.request.describe} ({stop.request.reason}); "
                                     "run again with --allow", kind="gate-nobody")
                said = "gave no clear yes" if stop.said == NO_CLEAR_ANSWER else "said no"
                raise FlowFailed(f"{c.label()}: the user {said} to "
                                 f"{stop.request.describe}", kind="gate")
        once = self._irreversible(action, obs)  # noted before it is sent: see below
        t0 = time.perf_counter()
        self._seen = None
        try:
            result = self.driver.execute([action], obs)
        except OmgError as exc:
            self._went(since, False)
            self._sent(once, exc)
            self._note(obs, f"device error: {exc}")
            raise FlowFailed(f"{c.label()}: {exc}", kind="device") from exc
        bad = next((o for o in result.outcomes if not o.ok), None)
        self._went(since, bool(result.outcomes) and bad is None)
        self._sent(once, bad.error if bad is not None else None)
        self._result.actions += 1
        self._result.device_calls += result.device_calls
        self._step += 1
        if self.recorder is not None:
            self.recorder.record_step(self._step, observation=obs, actions=[action],
                                      results=list(result.outcomes), phase="flow",
                                      note=c.label(),
                                      timings={"act": time.perf_counter() - t0})
        if not result.ok:
            raise FlowFailed(f"step {c.line} {c.label()}: "
                             f"{bad.detail if bad else 'not run'}", kind="anchor")
        return result

    def _went(self, since: int, ok: bool) -> None:
        """Tell the gate whether the action it let go went through (honest done reads it)."""
        if self.gate is not None:
            self.gate.passed.settle(lambda at: ok, since)

    def _irreversible(self, action: Action, obs: Observation | None) -> Sensitivity | None:
        """``action``'s sensitivity if it cannot be undone, noted *before* it is sent: from
        then on a failure — even the device dropping during this very action — must not
        lead to a retry."""
        found = self._judge.sensitivity(action, obs) if obs is not None else None
        if found is None or found.cls not in ONCE:
            return None
        self._result.irreversible.append(found.cls)
        return found

    def _sent(self, once: Sensitivity | None, error: Exception | None) -> None:
        """After the attempt: an action the executor could not place never reached the
        phone (its note is dropped); anything else may have, and goes in the trace."""
        if once is None:
            return
        if isinstance(error, AnchorNotFound | ActionRejected):
            self._result.irreversible.pop()
        elif self.recorder is not None:
            self.recorder.record_event("flow_irreversible", cls=once.cls,
                                       action=once.describe)

    def _note(self, obs: Observation | None, note: str) -> None:
        self._step += 1
        if self.recorder is not None:
            self.recorder.record_step(self._step, observation=obs, phase="flow", note=note)

    def _fill(self, text: str) -> str:
        missing = [a or b for a, b in VAR_PATTERN.findall(text) if (a or b) not in self.vars]
        if missing:
            raise FlowFailed(f"${missing[0]} has no value: give it with --var "
                             f"{missing[0]}=… or set it with memSave first")
        return VAR_PATTERN.sub(lambda m: self.vars[m.group(1) or m.group(2)], text)

    def _sel(self, s: Selector) -> Selector:
        """``s`` with ``$vars`` filled in; a value is data, so it goes in regex-escaped."""
        def fill(text: str | None) -> str | None:
            if text is None or not VAR_PATTERN.search(text):
                return text
            self._fill(text)  # names a missing value
            return VAR_PATTERN.sub(lambda m: literal(self.vars[m.group(1) or m.group(2)]),
                                   text)

        def rel(other: Selector | None) -> Selector | None:
            return None if other is None else self._sel(other)

        return dataclasses.replace(s, text=fill(s.text), id=fill(s.id), desc=fill(s.desc),
                                   below=rel(s.below), above=rel(s.above),
                                   child_of=rel(s.child_of))

    def _holds(self, cond: Condition, obs: Observation) -> bool:
        if cond.visible is not None and find(self._sel(cond.visible), obs) is None:
            return False
        return cond.not_visible is None or find(self._sel(cond.not_visible), obs) is None

    def _until(self, cond: Condition, timeout: float, c: Command) -> None:
        deadline = time.monotonic() + timeout
        first = True
        while True:
            obs = self._observe(fresh=not first)
            first = False
            if self._holds(cond, obs):
                return
            if time.monotonic() >= deadline:
                self._note(obs, f"check failed: {c.label()}")
                raise FlowFailed(f"step {c.line} {c.name}: waited {timeout:g} s for "
                                 f"{awaited(cond)}; {screen_texts(obs)}", kind="assert")

    def _scroll_until(self, c: m.ScrollUntilVisible) -> None:
        finger = _SCROLL_FINGER[c.direction]
        deadline = time.monotonic() + c.timeout_s
        for _ in range(max(1, c.max_swipes) + 1):
            obs = self._observe()
            hit = find(self._sel(c.selector), obs)
            if hit is not None and obs.screen.safe_zone.contains(hit.center):
                return  # in view, not just peeking in at an edge
            if time.monotonic() >= deadline:
                break
            before = obs.screen_hash
            self._act(a.Swipe(direction=finger, distance=500), obs, c)  # type: ignore[arg-type]
            if before and self._observe().screen_hash == before:
                break  # the list did not move: its end
        self._note(None, f"not found by scrolling: {c.label()}")
        raise FlowFailed(f"step {c.line} {c.label()}: not found after scrolling "
                         f"{c.direction}", kind="anchor")

    def _mem_save(self, c: m.SaveValue, timeout: float) -> None:
        if c.selector is None:
            self.vars[c.key] = self._fill(c.value)
            return
        obs, target = self._wait_for(c, timeout)
        action = a.MemSave(key=c.key, from_screen=a.FromScreen(target=target))
        try:
            self.vars[c.key] = read_from_screen(action, obs)
        except OmgError as exc:
            raise FlowFailed(f"step {c.line} {c.label()}: {exc}", kind="anchor") from exc
        self._step += 1
        if self.recorder is not None:  # the operator's shape, so a trace reads back alike
            self.recorder.record_step(self._step, observation=obs, actions=[action],
                                      results=[{"type": "mem_save", "ok": True, "detail":
                                                f"${c.key} = {self.vars[c.key]!r}"}],
                                      phase="flow", note=c.label())

    def _repeat(self, c: m.Repeat, flow: Flow, depth: int) -> None:
        times = c.times
        if c.times_var:  # times: $count
            value = self._fill(c.times_var)
            if not value.strip().isdigit():
                raise FlowFailed(f"repeat times {c.times_var} = {value!r}: not a whole number")
            times = int(value)
            if times > MAX_TIMES:
                raise FlowFailed(f"repeat times {c.times_var} = {times:,} passes the limit of "
                                 f"{MAX_TIMES:,}")
        outer = self.vars.get(m.REPEAT_INDEX)
        try:
            for n in range(times):
                self.vars[m.REPEAT_INDEX] = str(n + 1)  # this round, 1-based (the innermost)
                if c.condition is not None and not self._holds(c.condition, self._observe()):
                    return
                self._block(c.commands, flow, depth + 1)
        finally:  # an outer repeat's round again, or none
            if outer is None:
                self.vars.pop(m.REPEAT_INDEX, None)
            else:
                self.vars[m.REPEAT_INDEX] = outer

    def _retry(self, c: m.Retry, flow: Flow, depth: int) -> None:
        body = self._body(c, flow, depth)
        for attempt in range(c.max_retries + 1):
            sent = len(self._result.irreversible)
            try:
                self._block(body, flow, depth + 1)
                return
            except FlowFailed as exc:  # a body that paid is never run again
                if exc.kind.startswith("gate") or attempt == c.max_retries \
                        or len(self._result.irreversible) > sent:
                    raise
                log.info("retry %d/%d after: %s", attempt + 1, c.max_retries, exc)

    def _body(self, c: m.RunFlow | m.Retry, flow: Flow, depth: int) -> tuple[Command, ...]:
        if depth >= MAX_DEPTH:
            raise FlowFailed(f"{c.name}: nested more than {MAX_DEPTH} deep")
        if not c.file:
            return c.commands
        base = Path(flow.source).parent if flow.source else Path()
        path = inside(self._root, (base / c.file).absolute())
        if path is None:  # the file's words are not echoed: it may be a key file's
            raise FlowFailed(f"step {c.line} {c.name}: its file leads out of the flow's "
                             f"folder {self._root}: give a path inside it")
        try:
            sub = load_flow(path)
        except FlowError as exc:  # a bad or missing sub-flow fails this step, named
            raise FlowFailed(f"step {c.line} {c.name}: {exc}") from exc
        self.vars = {**sub.env, **self.vars}
        return sub.commands


def _plain_action(c: m.Scroll | m.SwipeScreen | m.PressBack | m.PressKey) -> Action:
    """The one device action of a step that needs no element."""
    if isinstance(c, m.PressBack | m.PressKey):
        return a.Back() if isinstance(c, m.PressBack) else a.Key(key=c.key)
    return a.Swipe(direction=c.direction if isinstance(c, m.SwipeScreen) else "up")  # scroll
