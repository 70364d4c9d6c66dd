"""Running one action bundle on the uiautomator2 driver.

The body of ``U2Driver.execute`` (DESIGN.md §3 "Semantic boundaries"): actions run in
order, each target resolved to pixels by ``perception.anchor`` (tree → OCR → grid, a raw
point snapped to its element), each action one or a few JSON-RPC calls to the u2 server
(there is no shell line to batch into). The bundle stops after the first boundary or the
first failure; the rest is dropped. After a boundary ran, the driver waits for the screen to
settle. Memory and hand-off actions are not the device's and are reported as skipped.

Typing goes through the clipboard: ``setClipboard`` then ``pasteClipboard`` into the focused
field — any unicode, no IME switch. Typed text is never logged, only its length.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from omg_agent.core.actions import (
    Action,
    AskUser,
    Back,
    Done,
    DoubleTap,
    Home,
    Key,
    Launch,
    LongPress,
    MemSave,
    Swipe,
    Tap,
    TypeText,
    Wait,
    ends_bundle,
    is_boundary,
)
from omg_agent.core.geometry import Point
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers import commands as cmds
from omg_agent.drivers.base import ActionOutcome, ExecResult
from omg_agent.drivers.profiles import resolve_app
from omg_agent.errors import ActionRejected, AnchorNotFound

if TYPE_CHECKING:
    from omg_agent.drivers.u2 import U2Driver

log = logging.getLogger(__name__)

LAUNCH_POLL_S = 0.05
KEY_ENTER = 66


class U2BundleRunner:
    def __init__(self, driver: U2Driver) -> None:
        self.d = driver
        self._packages: list[str] | None = None

    def run(self, actions: list[Action], observation: Observation | None) -> ExecResult:
        t0 = time.perf_counter()
        calls0 = self.d.calls
        obs = observation or self.d.last_observation
        outcomes: list[ActionOutcome] = []
        for i, action in enumerate(actions):
            try:
                if obs is None and _needs_screen(action):
                    obs = self.d.observe()
                outcomes.append(self._run(i, action, obs))
            except (AnchorNotFound, ActionRejected) as exc:
                outcomes.append(ActionOutcome(i, action, False, str(exc), error=exc))
                break
            if ends_bundle(action, outcomes[-1].element):
                break
        t_run = time.perf_counter()
        settled = None
        if any(o.ok and is_boundary(o.action, o.element) and not isinstance(o.action, Launch)
               for o in outcomes):
            settled = self.d.wait_settled(previous=obs.screen_hash if obs else "")
        t_end = time.perf_counter()
        timings = {"device": t_run - t0, "settle": t_end - t_run, "total": t_end - t0}
        if settled is False:
            timings["settle_timeout"] = 1.0
        return ExecResult(tuple(outcomes), dropped=len(actions) - len(outcomes),
                          device_calls=self.d.calls - calls0, timings=timings)

    def _run(self, i: int, action: Action, obs: Observation | None) -> ActionOutcome:
        d = self.d
        match action:
            case Tap() | DoubleTap() | LongPress():
                p, detail, source, el = self._resolve(action.target, obs, action.type)
                if isinstance(action, LongPress):
                    d.call("click", p.x, p.y, action.duration_ms)
                else:
                    for _ in range(2 if isinstance(action, DoubleTap) else 1):
                        d.call("click", p.x, p.y)
                return ActionOutcome(i, action, True, detail, (p.x, p.y), source, el)
            case Swipe():
                start, end, source = self._swipe_points(action, obs)
                # uiautomator moves one step per ~5 ms; fewer than 2 steps do not move at all
                steps = max(2, action.duration_ms // 5)
                d.call("swipe", start.x, start.y, end.x, end.y, steps)
                return ActionOutcome(i, action, True, f"swipe {start.x},{start.y} -> "
                                     f"{end.x},{end.y}", (start.x, start.y), source)
            case TypeText():
                return self._type(i, action, obs)
            case Key() | Back() | Home():
                code = action.keycode if isinstance(action, Key) else (
                    cmds.KEY_BACK if isinstance(action, Back) else cmds.KEY_HOME)
                d.call("pressKeyCode", code)
                return ActionOutcome(i, action, True, f"key {code}")
            case Launch():
                return ActionOutcome(i, action, True, self._launch(action.app))
            case Wait():
                time.sleep(action.seconds)
                return ActionOutcome(i, action, True, f"waited {action.seconds:g} s")
            case MemSave() | AskUser() | Done():
                return ActionOutcome(i, action, True,
                                     "skipped: not a device action (the operator handles it)")
        raise ActionRejected(f"unsupported action {action!r}", serial=d.serial)

    # -- targets -------------------------------------------------------------------------
    def _resolve(self, target: Any, obs: Observation | None,
                 verb: str) -> tuple[Point, str, str, UIElement | None]:
        resolved = self.d.anchorer.resolve(target, obs)
        p = Point(*resolved.point)
        el = resolved.element
        on = ""
        if el is not None:
            on = " on a password field" if el.password else \
                f" on [{el.id}] {el.role} {el.label[:30]!r}"
        snap = f", snapped {resolved.snap_px:.0f} px" if resolved.snap_px else ""
        return p, f"{verb} at {p.x},{p.y}{on} ({resolved.source}{snap})", resolved.source, el

    def _swipe_points(self, action: Swipe, obs: Observation | None) -> tuple[Point, Point, str]:
        source = "point"

        def resolve(target: Any) -> Point:
            nonlocal source
            p, _, source, _ = self._resolve(target, obs, "swipe")
            return p

        start, end = cmds.swipe_endpoints(self.d.geometry, action, resolve)
        return start, end, source

    # -- text ----------------------------------------------------------------------------
    def _type(self, i: int, action: TypeText, obs: Observation | None) -> ActionOutcome:
        d = self.d
        point, source, detail = None, "", ""
        element = obs.focused if obs is not None else None
        if action.target is not None:
            p, detail, source, el = self._resolve(action.target, obs, "focus")
            d.call("click", p.x, p.y)
            point, element = (p.x, p.y), el or element
        if action.clear:
            d.call("clearInputText")
        if action.text:
            d.call("setClipboard", None, action.text)
            readback = d.call("getClipboard")  # None where the server may not read it back
            if readback is not None and readback != action.text:
                raise ActionRejected("the phone did not take the text into its clipboard; "
                                     "type with the adb driver (--driver adb) instead",
                                     serial=d.serial, command="setClipboard")
            d.call("pasteClipboard")
        if action.submit:
            d.call("pressKeyCode", KEY_ENTER)
        secret = element is not None and element.password
        what = f"typed {len(action.text)} chars" + (" (secret)" if secret else "")
        what += ", cleared first" if action.clear else ""
        what += ", submitted" if action.submit else ""
        log.info("%s: %s", d.serial, what)
        return ActionOutcome(i, action, True, f"{detail}; {what}" if detail else what,
                             point, source)

    # -- launching -----------------------------------------------------------------------
    def _launch(self, app: str) -> str:
        d = self.d
        d.info()  # matches the device's profile (aliases) if none was given
        package = resolve_app(app, d.profile)
        if package is None:
            if self._packages is None:
                out = d.adb(lambda: d.device.shell("pm list packages"), "pm list packages")
                self._packages = cmds.parse_package_list(out)
            package = cmds.resolve_package(app, packages=self._packages)
        if package is None:
            raise ActionRejected(f"no app called {app!r}: not a package, not an alias of the "
                                 "device profile, not an installed package's name",
                                 serial=d.serial, command=f"launch {app}")
        d.adb(lambda: d.d.app_start(package), f"app_start {package}")
        deadline = time.monotonic() + max(d.settle_timeout, 1.0)
        while d.current_app()[0] != package:
            if time.monotonic() >= deadline:
                raise ActionRejected(f"{package} did not come to the foreground",
                                     serial=d.serial, command=f"launch {app}")
            time.sleep(LAUNCH_POLL_S)
        d.wait_settled()
        return f"launched {package}"


def _needs_screen(action: Action) -> bool:
    return cmds.targets_need_screen(action)
