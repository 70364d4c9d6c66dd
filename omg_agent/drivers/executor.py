"""The one bundle executor: what every driver's ``execute(actions)`` does, over a small port.

DESIGN.md §3 "Semantic boundaries" as code, the same for every transport, and the ONE place
a bundle is segmented. Its first *segment* is planned: each action's target is resolved to
pixels by ``perception.anchor`` (an element id, an anchor — tree, then OCR — or a snapped
0–1000 point) on the observation the model decided on — or, after a boundary, on the new
screen once it shows the segment's anchors (:mod:`.unseen`) — and planning stops after the
first action that ends the segment (:func:`~omg_agent.core.actions.ends_bundle`, told which
element a tap lands on) or at the first that cannot be planned. The caller's
:class:`~omg_agent.drivers.ports.Reviewer` sees the planned actions with the elements they
land on (the operator's gate judges exactly those) and may hold one; what comes before it
then *runs* through an :class:`~omg_agent.drivers.ports.ActionPort` — behind the choke
point every input of every caller passes (:mod:`.inputs`; only the human's own gestures,
:class:`~omg_agent.drivers.ports.HumanHands`, go unjudged) — adb shell commands
sent as one batch (:mod:`.adbport`), or uiautomator2 JSON-RPC calls (:mod:`.u2port`) — and
a failed action stops the bundle there. The rules that used to differ between drivers:

* **a screen is needed** to plan a touch on anything but a raw point and to type (the field
  decides how to clear and whether the text is a secret): without one the executor looks;
* **launching** an app name: an alias (the device profile's, plus labels learned on the home
  screen), else an installed package (``pm list packages``, read once); a package-shaped
  name that is not installed is refused untouched; anything else is looked for as a label
  on the home screen (:mod:`.launching`);
* **settling**: before a segment that ends in a boundary runs, a driver that looks ahead is
  told (``before_boundary``); after a boundary ran, the executor waits once for the screen
  to settle (unless a launch went through the home screen, which settled on its own) and
  arms the driver's :class:`~omg_agent.drivers.loading.LoadingWait`;
* ``scan`` swipes and looks on its own (:mod:`.scanning`), and a later touch on an anchor
  the screen does not show but the scan read scrolls back to it first;
* ``mem_save``, ``ask_user`` and ``done`` are the operator's: reported as skipped; ``wait``
  sleeps on the host between device calls.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from omg_agent.core.actions import (
    Action,
    AnchorTarget,
    AskUser,
    Back,
    Done,
    DoubleTap,
    Home,
    Key,
    Launch,
    LongPress,
    MemSave,
    Scan,
    Swipe,
    Tap,
    TypeText,
    Wait,
    ends_bundle,
    is_boundary,
)
from omg_agent.core.geometry import Point
from omg_agent.core.observation import Observation
from omg_agent.drivers import commands as cmds
from omg_agent.drivers.base import ActionOutcome, ExecResult
from omg_agent.drivers.inputs import JudgedPort, aim, looking_at
from omg_agent.drivers.launching import LaunchFailed, launch_by_label
from omg_agent.drivers.loading import LoadingWait
from omg_agent.drivers.ports import (
    ActionPort,
    Device,
    HumanHands,
    InputJudge,
    Planned,
    PortFailed,
    Reviewer,
)
from omg_agent.drivers.scanning import ListScanner
from omg_agent.drivers.textinput import KEY_ENTER
from omg_agent.drivers.unseen import await_anchors, blind_reason, extent, missing_anchors
from omg_agent.errors import ActionRejected, AnchorNotFound
from omg_agent.perception.anchor import match_anchor

log = logging.getLogger(__name__)


class _Failed(Exception):
    def __init__(self, index: int, detail: str, error: Exception | None = None) -> None:
        super().__init__(detail)
        self.index, self.detail, self.error = index, detail, error


class BundleExecutor:
    """Runs bundles for one driver (``device``) through one transport (``port``)."""

    def __init__(self, device: Device, port: ActionPort,
                 aliases: Callable[[], Mapping[str, str]] = dict,
                 loading: LoadingWait | None = None, *,
                 judge: InputJudge | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.device = device
        self.clock, self.sleep = clock, sleep  # the wait for a new screen's anchors
        self.judge, self.raw = judge, port  # the choke point (guards.choke); the raw port
        self.port: ActionPort = port if judge is None else JudgedPort(port, judge, device)
        self.aliases = aliases  # the driver's app name -> package table, asked when needed
        self.loading = loading  # armed after a boundary; the driver's observe() waits
        self.learned: dict[str, str] = {}  # app label -> package, found on the home screen
        self.scanner = ListScanner(device, self.port)  # scans lists (judged swipes)

    # -- the bundle ----------------------------------------------------------------------
    def run(self, actions: list[Action], observation: Observation | None,
            review: Reviewer | None = None) -> ExecResult:
        """Plan the bundle's first segment, let ``review`` judge it, run what it let go."""
        t0 = time.perf_counter()
        calls0 = self.port.calls
        obs: Observation | None
        if review is not None and review.unseen:
            looked = self._look(actions, review)
            if looked is None:
                return ExecResult((), dropped=len(actions))
            obs, plans, failure = looked
        else:
            obs = observation or self.device.last_observation
            if obs is None and any(needs_screen(a) for a in actions[:1]):
                obs = self.device.observe()
            if obs is not None and actions:  # an item a scan read, off screen now
                obs = self._reach(actions[0], obs)
            plans, failure = self._plan_all(actions, obs)
        held = review.review(plans, obs) if review is not None else None
        if held is not None:  # the caller holds an action: what comes before it runs
            plans, failure = [p for p in plans if p.index < held], None
        t_plan = time.perf_counter()
        self._before_boundary(plans)
        outcomes: list[ActionOutcome] = []
        port = self.raw if isinstance(review, HumanHands) else self.port
        try:
            with looking_at(port, obs):  # the inputs land on the screen planned on
                self._run(plans, outcomes, port)
        except _Failed as exc:
            failure = exc  # it stopped the bundle before any action that failed planning
        if failure is not None:
            outcomes.append(ActionOutcome(failure.index, actions[failure.index], False,
                                          failure.detail, error=failure.error))
        t_run = time.perf_counter()
        calls = self.port.calls - calls0  # the actions' round trips, not the settling's
        settled = None
        ran_boundary = any(o.ok and is_boundary(o.action, o.element) for o in outcomes)
        if ran_boundary and not any(p.label_launch for p in plans):
            settled = self.device.wait_settled(previous=obs.screen_hash if obs is not None
                                               else "")
        if ran_boundary and self.loading is not None:
            self.loading.arm()
        t_end = time.perf_counter()
        timings = {"plan": t_plan - t0, "device": t_run - t_plan, "settle": t_end - t_run,
                   "total": t_end - t0}
        if settled is False:
            timings["settle_timeout"] = 1.0
        return ExecResult(tuple(outcomes), dropped=len(actions) - len(outcomes),
                          device_calls=calls, timings=timings)

    def _plan_all(self, actions: list[Action], obs: Observation | None
                  ) -> tuple[list[Planned], _Failed | None]:
        """Plan ``actions`` on ``obs`` up to the first that ends the segment (told which
        element a tap lands on) or the first that cannot be planned."""
        plans: list[Planned] = []
        for i, action in enumerate(actions):
            try:
                if obs is None and needs_screen(action):
                    obs = self.device.observe()
                plans.append(self._plan(i, action, obs))
            except (AnchorNotFound, ActionRejected, ValueError) as exc:
                return plans, _Failed(i, str(exc), exc)
            if ends_bundle(action, plans[-1].element):
                break
        return plans, None

    def _look(self, actions: list[Action], review: Reviewer
              ) -> tuple[Observation, list[Planned], _Failed | None] | None:
        """The segment planned on a screen the model has not seen, once that screen shows
        the segment's anchors (:func:`~omg_agent.drivers.unseen.await_anchors`); ``None``
        (told to ``review``) when the segment may not run there."""
        why = blind_reason(extent(actions))  # before looking: ids, points, blind keys
        if why:
            review.stopped(why, None)
            return None
        reached = False

        def look() -> Observation:
            # an item the last scan read, off screen now: scrolled back to once the new
            # screen shows that scanned list (relay round 27: "Like post 1" after two taps)
            nonlocal reached
            screen = self.device.observe()
            if not reached and actions and self.scanner.shows_scanned(screen):
                reached, screen = True, self._reach(actions[0], screen)
            return screen

        obs, (plans, failure) = await_anchors(
            look, lambda screen: self._plan_all(actions, screen),
            lambda planned: _missing(actions, planned[1]), clock=self.clock, sleep=self.sleep)
        why = blind_reason(extent(actions, len(plans) + (failure is not None)))
        if not why and (missing := _missing(actions, failure)):
            why = "not on the new screen: " + ", ".join(missing)
        if why:
            review.stopped(why, obs)
            return None
        return obs, plans, failure

    def _reach(self, action: Action, obs: Observation) -> Observation:
        """Scroll back to the item a touch's anchor names when the screen does not show it
        but the last scan read it (only as a segment's first action: what was planned
        before it was planned on the screen before the scroll)."""
        target = getattr(action, "target", None)
        if not isinstance(action, Tap | DoubleTap | LongPress) or \
                not isinstance(target, AnchorTarget) or not self.scanner.knows(target) or \
                match_anchor(target, obs.elements, obs.screen.safe_zone) is not None:
            return obs
        return self.scanner.reach(target, obs, 0)

    def _before_boundary(self, plans: list[Planned]) -> None:
        """Tell a driver that looks ahead (``before_boundary``: the ADB driver starts the
        next observation's dump, :mod:`.nextlook`) that this bundle ends in an action it
        will settle after — not when a ``wait``, a ``scan`` or a launch by label comes first
        (they look on their own)."""
        hook = getattr(self.device, "before_boundary", None)
        if hook is None or any(p.label_launch or isinstance(p.action, Wait | Scan)
                               for p in plans):
            return
        if any(is_boundary(p.action, p.element) for p in plans):
            hook()

    # -- planning ------------------------------------------------------------------------
    def _plan(self, i: int, action: Action, obs: Observation | None) -> Planned:
        plan = Planned(i, action)
        match action:
            case Tap() | DoubleTap() | LongPress():
                self._resolve(plan, action.target, obs, action.type)
            case Swipe():
                start, end = cmds.swipe_endpoints(
                    self.device.geometry, action,
                    lambda target: self._resolve(plan, target, obs, "swipe"))
                plan.point, plan.end = start, end
                g = self.device.geometry
                plan.detail = (f"swipe {cmds.model_units(g, start)} -> "
                               f"{cmds.model_units(g, end)}"
                               + cmds.swipe_report(g, action, start, end))
            case TypeText():
                plan.element = obs.focused if obs is not None else None
                if action.target is not None:
                    focused = plan.element
                    self._resolve(plan, action.target, obs, "focus")
                    plan.element = plan.element or focused
            case Key() if action.combo is not None:
                if not callable(getattr(self.port, "hotkey", None)):
                    raise ActionRejected(
                        f"hotkey {action.key} needs a desktop; on a phone press one key "
                        "(back, home, enter, …)", serial=self.device.serial)
                plan.detail = f"hotkey {action.key}"
            case Key() | Back() | Home():
                plan.detail = f"{action.type} (keycode {cmds.keycode_of(action)})"
            case Launch():
                package = self._package(action.app)
                if package is None and cmds.PACKAGE_NAME.fullmatch(action.app.strip()):
                    raise ActionRejected(f"package {action.app} is not installed",
                                         serial=self.device.serial)
                plan.package, plan.label_launch = package or "", package is None
                plan.detail = f"launched {package}" if package else ""
            case Wait():
                plan.detail = f"waited {action.seconds:g} s"
            case Scan() if callable(getattr(self.port, "hotkey", None)):
                # a desktop's swipe is a drag, which selects rather than scrolls
                raise ActionRejected("scan reads a phone's scrolling list, not a desktop's; "
                                     "scroll and look instead", serial=self.device.serial)
            case Scan():
                plan.detail = "scan"
            case MemSave() | AskUser() | Done():
                plan.detail = "skipped: not a device action (the operator handles it)"
        return plan

    def _resolve(self, plan: Planned, target: Any, obs: Observation | None, verb: str) -> Point:
        resolved = self.device.anchorer.resolve(target, obs)
        p = Point(*resolved.point)
        el = resolved.element
        what = resolved.detail or (f"[{el.id}] {el.role}" if el is not None else "")
        snap = f" (snapped {resolved.snap_px:.0f} px)" if resolved.snap_px else ""
        plan.point, plan.source, plan.element = p, resolved.source, el
        # the model reads what happened; how the target was found (tree, ocr, grid…) is the
        # trace's, in the outcome's ``source``
        plan.detail = (f"{verb} at {cmds.model_units(self.device.geometry, p)}"
                       + (f" on {what}" if what else "") + snap)
        return p

    def _package(self, app: str) -> str | None:
        hit = cmds.alias_package(app, {**self.learned, **self.aliases()})
        return hit if hit is not None else cmds.resolve_package(
            app, packages=self.port.packages())

    # -- running -------------------------------------------------------------------------
    def _run(self, plans: list[Planned], outcomes: list[ActionOutcome],
             port: ActionPort) -> None:
        queued: list[Planned] = []
        for plan in plans:
            if _on_device(plan):
                port.begin(plan.index)
                aim(port, plan.element)
                try:
                    self._apply(plan, port)
                except ActionRejected as exc:
                    port.discard()
                    self._flush(queued, outcomes, port)
                    raise _Failed(plan.index, str(exc), exc) from None
                queued.append(plan)
                continue
            self._flush(queued, outcomes, port)
            queued = []
            aim(port, None, look=True)  # a scan or a launch by label looks on its own
            if isinstance(plan.action, Wait):
                self.sleep(plan.action.seconds)
            if plan.label_launch:
                assert isinstance(plan.action, Launch)
                try:
                    plan.detail = launch_by_label(self.device, port, plan, self.learned)
                except LaunchFailed as exc:
                    raise _Failed(plan.index, str(exc)) from None
            if isinstance(plan.action, Scan):
                try:
                    # on a fresh look: what ran before it in the bundle may have changed the screen
                    plan.detail = self.scanner.scan(plan.action, None, plan.index).render()
                except ActionRejected as exc:
                    raise _Failed(plan.index, str(exc), exc) from None
            outcomes.append(_outcome(plan))
        self._flush(queued, outcomes, port)

    def _apply(self, plan: Planned, port: ActionPort) -> None:
        action, p = plan.action, plan.point
        match action:
            case Tap():
                port.tap(_at(p))
            case DoubleTap():
                port.double_tap(_at(p))
            case LongPress():
                port.long_press(_at(p), action.duration_ms)
            case Swipe():
                port.swipe(_at(p), _at(plan.end), action.duration_ms)
            case TypeText():
                if p is not None:
                    port.tap(p)
                label = port.type(action.text, clear=action.clear, field=plan.element,
                                  after_tap=p is not None)
                label += ", cleared first" if action.clear else ""
                if action.submit:
                    port.key(KEY_ENTER)
                    label += ", then enter"
                log.info("%s: %s", self.device.serial, label)
                plan.detail = f"{plan.detail}; {label}" if plan.detail else label
            case Key() if action.combo is not None:
                port.hotkey(list(action.combo))  # type: ignore[attr-defined]  # checked above
            case Key() | Back() | Home():
                port.key(cmds.keycode_of(action))
            case Launch():
                # a flow's launchApp stops the app first (the keyword only then)
                port.start(plan.package, **({"restart": True} if action.restart else {}))

    def _flush(self, queued: list[Planned], outcomes: list[ActionOutcome],
               port: ActionPort) -> None:
        if not queued:
            return
        by_index = {plan.index: plan for plan in queued}
        try:
            done = port.batch()
        except PortFailed as exc:
            outcomes.extend(_outcome(by_index[i]) for i in exc.done)
            raise _Failed(exc.index, exc.detail) from None
        outcomes.extend(_outcome(by_index[i]) for i in done)


def needs_screen(action: Action) -> bool:
    """Whether planning ``action`` needs an observation: a target that is not a raw point,
    or typing (the field decides how to clear and whether the text is a secret)."""
    return cmds.targets_need_screen(action) or isinstance(action, TypeText)


def _missing(actions: list[Action], failure: _Failed | None) -> list[str]:
    return [] if failure is None else missing_anchors(actions[failure.index], failure.error)


def _at(p: Point | None) -> Point:
    assert p is not None, "planned without a point"
    return p


def _on_device(plan: Planned) -> bool:
    return not (isinstance(plan.action, Wait | MemSave | AskUser | Done | Scan)
                or plan.label_launch)


def _outcome(plan: Planned) -> ActionOutcome:
    point = (plan.point.x, plan.point.y) if plan.point is not None else None
    return ActionOutcome(plan.index, plan.action, True, plan.detail or plan.action.type,
                         point, plan.source, plan.element)
