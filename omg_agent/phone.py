"""The Python API (issue 28): a phone to observe, act on by anchors, run tasks and flows on.

:func:`connect` opens a device adb sees (holding its lease while the :class:`Phone` is
open, as ``omg-agent run`` does); :func:`start_vphone` starts a virtual phone and opens
it. Every input meets the gate's choke point exactly as the agent's do: a tap on Pay raises
:class:`ActionHeld` unless ``confirm`` says yes or the settings pre-authorise it. Runs are
built by :mod:`omg_agent.taskrun`, as for the CLI and MCP. See docs/python-api.md::

    from omg_agent import start_vphone

    with start_vphone() as phone:
        phone.tap(text="Settings")
        result = phone.run("Turn off Wi-Fi", model="sim")
        assert result.status == "done"
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omg_agent.errors import ConfigError, OmgError

Confirm = Any  # a ConfirmationChannel, or a callable(ConfirmationRequest) -> bool | None

if TYPE_CHECKING:
    from omg_agent.brain.run_state import RunResult
    from omg_agent.config import Settings
    from omg_agent.core.actions import Action
    from omg_agent.core.observation import Observation
    from omg_agent.flows.model import FlowResult
    from omg_agent.guards.confirmation import ConfirmationChannel, ConfirmationRequest
    from omg_agent.guards.provenance import WordsFrom
    from omg_agent.vphone.phone import VirtualPhone

MAX_TASK = 4000  # characters of a task: longer is refused, naming the limit


class ActionHeld(OmgError):
    """The gate held an action and nobody said yes: nothing was done. ``request`` says
    exactly what would have happened; ``declined`` is True when a human said no."""

    def __init__(self, request: ConfirmationRequest, declined: bool = False) -> None:
        how = "the user said no" if declined else (
            "needs_confirmation: a human must say yes (pass confirm=, or pre-authorise it in "
            f"the settings: allow={request.cls!r})")
        super().__init__(f"held: {request.describe} ({request.reason}) — {how}")
        self.request = request
        self.declined = declined


@dataclass(frozen=True)
class Acted:
    """What one action did: ``ok``, and the driver's words for it."""

    ok: bool
    detail: str


@dataclass(frozen=True)
class TaskResult:
    """How a run ended. ``status`` is read from the phone (done only when the checks
    passed): done, failed, ask_user, needs_confirmation, declined, infeasible, or
    unverified (the model said done and nothing in the run backs it on the phone).
    ``question`` is what a stopped run waits for; ``run_dir`` holds the trace and
    ``state.json`` (resume with :meth:`Phone.resume`); ``report`` the HTML report."""

    status: str
    answer: str
    question: str | None
    summary: str
    run_dir: Path
    report: Path | None
    steps_used: int
    model_calls: int

    @property
    def ok(self) -> bool:
        return self.status == "done"

    @classmethod
    def of(cls, result: RunResult, run_dir: Path) -> TaskResult:
        from omg_agent.trace.summary import run_output

        out = run_output(run_dir)  # writes report.html
        return cls(result.status, result.answer or "", result.question, result.summary(),
                   run_dir, out.report, result.steps_used, result.model_calls)


class Phone:
    """An open device. Use :func:`connect` or :func:`start_vphone` rather than this class's
    constructor; close it (or use ``with``) to release the device.

    ``hold_lease=False`` takes the phone's lease only while an action, run or flow drives
    it (the MCP server does this, so a terminal run can go between two calls)."""

    def __init__(self, serial: str, *, settings: Settings | None = None,
                 driver: str = "auto", hold_lease: bool = True, wait_device: float = 0.0,
                 vphone: VirtualPhone | None = None) -> None:
        from omg_agent.config import Settings

        self.serial = serial
        self.settings = settings if settings is not None else Settings.load()
        self.vphone = vphone  # the in-process virtual phone, when start_vphone made it
        self._driver_kind = driver
        self._wait_device = wait_device
        self._stack = ExitStack()
        self._driver: Any = None
        self._session_lease: Any = None
        self.last_run_dir: Path | None = None  # the trace folder of the last run or flow
        if hold_lease:
            self._session_lease = self._lease("omg-agent (Python API)", self._stack)

    # -- reading ------------------------------------------------------------------------
    def observe(self, *, ocr: bool = False) -> Observation:
        """The screen now: screenshot, elements, foreground app, screen hash."""
        return self.driver.observe(ocr=ocr)

    def elements(self, observation: Observation | None = None) -> str:
        """The element list as the agent's model reads it (numbered, one per line)."""
        from omg_agent.perception.elementlist import render

        obs = observation if observation is not None else self.observe()
        return render(obs.elements, obs.screen)

    # -- acting -------------------------------------------------------------------------
    def tap(self, text: str | None = None, *, resource_id: str | None = None,
            desc: str | None = None, point: tuple[int, int] | None = None,
            confirm: Confirm = None) -> Acted:
        """Tap an element found by its text, resource id or description, or a 0–1000
        point. ``phone.tap(text="Settings")``; ``phone.tap(point=(500, 500))``."""
        return self.act({"type": "tap", "target": target(text, resource_id, desc, point)},
                        confirm=confirm)

    def long_press(self, text: str | None = None, *, resource_id: str | None = None,
                   desc: str | None = None, point: tuple[int, int] | None = None,
                   confirm: Confirm = None) -> Acted:
        """Long-press a target given as for :meth:`tap`."""
        return self.act({"type": "long_press",
                         "target": target(text, resource_id, desc, point)}, confirm=confirm)

    def type(self, text: str, *, confirm: Confirm = None) -> Acted:
        """Type ``text`` into the focused field (``{{secret:NAME}}`` types a secret)."""
        return self.act({"type": "type", "text": text}, confirm=confirm)

    def swipe(self, direction: str, *, distance: int = 500) -> Acted:
        """Swipe ``up``, ``down``, ``left`` or ``right``, ``distance`` in 0–1000 units."""
        return self.act({"type": "swipe", "direction": direction, "distance": distance})

    def key(self, name: str) -> Acted:
        """Press a key: back, home, enter, recents, delete, … (or a keycode)."""
        return self.act({"type": "key", "key": name})

    def launch(self, app: str) -> Acted:
        """Open an app by its name or package (``"Settings"``, ``"com.omg.shop"``)."""
        return self.act({"type": "launch", "app": app})

    def act(self, action: dict[str, Any] | Action, *,
            confirm: Confirm = None) -> Acted:
        """Run one action (a dict in the agent's action format, or an ``Action``) through
        the sensitive-action gate; :class:`ActionHeld` when it is held."""
        from omg_agent.core.actions import parse_action

        act = parse_action(action) if isinstance(action, dict) else action
        with ExitStack() as stack:
            self._lease_for(f"omg-agent {act.type} (Python API)", stack)
            from omg_agent.brain.agent import gatekeeper, run_secrets
            from omg_agent.drivers.secret_typing import SecretTyping
            from omg_agent.guards.choke import bind

            vault = run_secrets("", self.settings)
            keeper = gatekeeper(self.settings, "", channel(confirm), self.driver.observe,
                                secrets=vault)
            stack.enter_context(bind(self.driver, keeper, vault.mask))  # the choke point's
            obs = self.driver.observe()
            stop = keeper.review([act], obs) if keeper is not None else None
            if stop is not None:  # the question may quote a message holding a secret
                raise ActionHeld(vault.scrub(stop.request), declined=stop.answer is False)
            result = SecretTyping(self.driver, vault).execute([act], obs)
        held_at_input(result)
        detail = "; ".join(o.detail or o.action.type for o in result.outcomes)
        return Acted(result.ok, detail)

    # -- runs ---------------------------------------------------------------------------
    def run(self, task: str, *, model: str | None = None, plan: Path | None = None,
            confirm: Confirm = None,
            ask: Callable[[str], str | None] | None = None,
            on_progress: Callable[[Any], None] | None = None,
            use_cache: bool = True, allow: str | Sequence[str] = (),
            words_from: WordsFrom = "client") -> TaskResult:
        """Run ``task`` with the full agent (planner, operator, gate, checks) and return
        how it ended. ``model`` overrides the configured one; ``"sim"`` is the expert
        double on a phone from :func:`start_vphone` (no real model: for trying things).
        ``on_progress`` gets a :class:`~omg_agent.brain.orchestrator.Progress` per turn.

        Permissions the task's words state ("you may pay in Shop") are put to ``confirm``
        once before the run acts; with no ``confirm`` they grant nothing (the action is
        held). Grant with ``allow`` (``--allow`` items: ``"payment:Shop<=100"``), or pass
        ``words_from="human"`` when a person typed ``task``."""
        from omg_agent import taskrun
        from omg_agent.trace.recorder import new_run_dir

        if not task.strip() or len(task) > MAX_TASK:
            raise ConfigError(f"task: give 1–{MAX_TASK} characters saying what to do")
        if words_from not in ("human", "client"):
            raise ConfigError(f"words_from: {words_from!r}; accepted: 'human' or 'client'")
        with ExitStack() as stack:
            settings = taskrun.with_allow(self._model(stack, task, model), allow)
            lease = self._lease_for(f"omg-agent run (Python API) {task[:60]!r}", stack)
            secrets = taskrun.open_secrets(stack, task, settings)
            run_dir = new_run_dir(settings.runs_dir, secrets.mask(task))
            if lease is not None:
                lease.note(run_dir)
            self.last_run_dir = run_dir
            agent = taskrun.open_agent(
                stack, settings, taskrun.RunDevice(self.driver, self.serial),
                taskrun.Hooks(ask=ask, confirm=channel(confirm), on_progress=on_progress,
                              use_cache=use_cache), task=task, run_dir=run_dir, secrets=secrets,
                words_from=words_from)
            result = agent.shown(agent.begin(task, plan))
        return TaskResult.of(result, run_dir)

    def resume(self, run_dir: Path | str, answer: str | None = None, *,
               confirm: Confirm = None,
               on_progress: Callable[[Any], None] | None = None) -> TaskResult:
        """Go on with a stopped run: ``answer`` its question, or ``"yes"`` / ``"no"`` to
        its held action (the one answer rule: anything else raises, nothing runs); an
        interrupted run goes on without an answer."""
        from omg_agent import taskrun

        run_dir = Path(run_dir)
        saved = taskrun.saved_run(run_dir, answer)
        task = saved.state.task
        with ExitStack() as stack:
            lease = self._lease_for(f"omg-agent run --resume {run_dir} (Python API)", stack)
            if lease is not None:
                lease.note(run_dir)
            secrets = taskrun.open_secrets(stack, task, self.settings)
            agent = taskrun.open_agent(
                stack, self.settings, taskrun.RunDevice(self.driver, self.serial),
                taskrun.Hooks(confirm=channel(confirm), on_progress=on_progress),
                task=task, run_dir=run_dir, secrets=secrets, saved=saved,
                words_from="client")  # the saved run's decision stands
            result = agent.shown(agent.go_on(saved, answer))
        return TaskResult.of(result, run_dir)

    def run_flow(self, path: Path | str, *, variables: dict[str, str] | None = None,
                 confirm: Confirm = None) -> FlowResult:
        """Replay a flow file or ``builtin:NAME`` (anchored steps, no model), traced."""
        from omg_agent.flows.parse import load_flow
        from omg_agent.flows.session import replay
        from omg_agent.trace.recorder import new_run_dir

        flow = load_flow(str(path))
        missing = [v for v in flow.variables if v not in (variables or {})]
        if missing:
            raise ConfigError(f"{path} needs variables: {', '.join(missing)}")
        with ExitStack() as stack:
            lease = self._lease_for(f"omg-agent flow run {Path(path).name} (Python API)", stack)
            run_dir = new_run_dir(self.settings.runs_dir, "flow-" + Path(path).stem)
            self.last_run_dir = run_dir
            if lease is not None:
                lease.note(run_dir)
            return replay(self.driver, flow, self.settings, run_dir, variables=variables,
                          confirm=channel(confirm))

    # -- plumbing -----------------------------------------------------------------------
    @property
    def driver(self) -> Any:
        """The device driver (opened on first use)."""
        if self._driver is None:
            from omg_agent.brain.agent import choke_point
            from omg_agent.drivers.select import choose_driver

            self._driver = choose_driver(self.serial, self._driver_kind,  # type: ignore[arg-type]
                                         grace_s=self.settings.device_grace_s,
                                         judge=choke_point(self.settings, self.serial))
            self._stack.callback(self._driver.close)
        return self._driver

    def _lease(self, what: str, stack: ExitStack) -> Any:
        from omg_agent.drivers.desktop import is_desktop
        from omg_agent.drivers.lease import phone_lease

        if is_desktop(self.serial):
            return None
        lease = phone_lease(self.serial, what)
        lease.acquire(self._wait_device)  # DeviceBusy names the holder
        stack.callback(lease.release)
        return lease

    def _lease_for(self, what: str, stack: ExitStack) -> Any:
        """The session's lease, or one taken for this call (released with ``stack``)."""
        if self._session_lease is not None:
            return self._session_lease
        return self._lease(what, stack)

    def _model(self, stack: ExitStack, task: str, model: str | None) -> Settings:
        from omg_agent.sim.expert.runner import with_overrides

        if model is None:
            return self.settings
        if model != "sim":
            return with_overrides(self.settings, {"model": model})
        from omg_agent.sim.expert.sim import (
            on_double,
            sim_task,
            start_double,
            unknown_goal_message,
        )

        known = sim_task(task)
        if known is None or self.vphone is None:
            raise ConfigError(unknown_goal_message(task) if known is None else
                              "model='sim' drives a phone from start_vphone() only")
        return on_double(self.settings, start_double(stack, known, self.vphone))

    def close(self) -> None:
        """Release the device (and stop the vphone this phone started)."""
        self._stack.close()

    def __enter__(self) -> Phone:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def held_at_input(result: Any) -> None:
    """Raise :class:`ActionHeld` when the choke point held one of ``result``'s inputs."""
    from omg_agent.drivers.ports import InputHeld

    held = next((o.error for o in result.outcomes if isinstance(o.error, InputHeld)), None)
    if held is not None:
        raise ActionHeld(held.request, declined=held.answer is False)


def channel(confirm: Confirm) -> ConfirmationChannel | None:
    """Who the gate asks: a channel as given, a callable wrapped as one, or nobody."""
    if confirm is None or hasattr(confirm, "confirm"):
        return confirm
    from omg_agent.guards.confirmation import ScriptedChannel

    return ScriptedChannel(policy=confirm)


def target(text: str | None = None, resource_id: str | None = None, desc: str | None = None,
           point: tuple[int, int] | None = None) -> dict[str, Any]:
    """An action target from exactly one of an anchor or a 0–1000 point."""
    given = [t for t in (text, resource_id, desc, point) if t is not None]
    if len(given) != 1:
        raise ConfigError("give exactly one of text, resource_id, desc or point (x, y in 0–1000)")
    if point is not None:
        x, y = point
        if not (0 <= x <= 1000 and 0 <= y <= 1000):
            raise ConfigError(f"point {point} is off the screen: give x, y in 0–1000")
        return {"kind": "point", "x": x, "y": y}
    key = "text" if text is not None else "desc" if desc is not None else "resource_id"
    return {"kind": "anchor", key: text or desc or resource_id}


def connect(serial: str | None = None, *, settings: Settings | None = None,
            driver: str = "auto", wait_device: float = 0.0) -> Phone:
    """Open the phone ``serial`` (default: the only one adb sees), holding its lease until
    closed; :class:`~omg_agent.errors.DeviceBusy` while another agent drives it (or wait
    up to ``wait_device`` seconds). ``with connect() as phone: phone.tap(text="OK")``."""
    import adbutils

    serials = [d.serial for d in adbutils.AdbClient().device_list()]
    if serial is None:
        if len(serials) != 1:
            raise ConfigError(f"connect(): {len(serials)} devices attached "
                              f"({', '.join(serials) or 'none'}): name one")
        serial = serials[0]
    elif serial not in serials and not serial.startswith("desktop"):
        raise ConfigError(f"device {serial!r} is not attached "
                          f"(attached: {', '.join(serials) or 'none'})")
    return Phone(serial, settings=settings, driver=driver, wait_device=wait_device)


@contextmanager
def start_vphone(profile: str = "default", *, seed: int = 0,
                 settings: Settings | None = None) -> Iterator[Phone]:
    """A virtual phone served on a free port, connected to the adb server and opened;
    stopped at the end of the ``with`` block. ``phone.vphone`` is the phone's object
    (its apps' state, for checks)."""
    from omg_agent.vphone import adbhost
    from omg_agent.vphone.phone import VirtualPhone

    with ExitStack() as stack:
        vphone = VirtualPhone(profile, seed=seed)
        stack.callback(vphone.close)
        server = vphone.serve()
        serial = adbhost.connect("127.0.0.1", server.port)
        stack.callback(adbhost.disconnect, serial)
        phone = stack.enter_context(Phone(serial, settings=settings, vphone=vphone))
        yield phone
