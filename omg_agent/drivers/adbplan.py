"""Running one action bundle on the ADB driver: plan, batch, run, settle.

:class:`BundleRunner` is the body of ``AdbDriver.execute`` (DESIGN.md §3 "Semantic
boundaries"): each action's target is resolved to pixels (``perception.anchor``), the action
becomes a :class:`~omg_agent.drivers.commands.Step`, and the steps up to the first boundary
are packed into as few shell calls as fit (one, normally). A ``wait`` splits the calls and
sleeps on the host; a ``launch`` by a label found only on the home screen runs its own
little sequence (home, look, tap). Memory and hand-off actions are not the device's: they
are reported as skipped. After a boundary ran, the driver waits for the screen to settle.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

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
from omg_agent.drivers.textinput import KEY_ENTER, needs_ime, plan_typing
from omg_agent.errors import ActionRejected, AnchorNotFound

if TYPE_CHECKING:
    from omg_agent.drivers.adb import AdbDriver

log = logging.getLogger(__name__)

ADB_KEYBOARD_FIX = ("install ADBKeyboard (https://github.com/senzhk/ADBKeyBoard: "
                    "`adb install ADBKeyboard.apk`, then `adb shell ime enable "
                    "com.android.adbkeyboard/.AdbIME`)")
INJECT_HINT = ("the phone refuses injected input; on Xiaomi/MIUI enable "
               "'USB debugging (Security settings)' in developer options")


@dataclass
class _Item:
    """One planned action: a device step, a host wait, a home-screen launch, or a skip."""

    index: int
    action: Action
    step: cmds.Step | None = None
    wait_s: float = 0.0
    launch_label: str = ""
    detail: str = ""
    point: tuple[int, int] | None = None
    source: str = ""
    element: UIElement | None = None


class _Failed(Exception):
    def __init__(self, index: int, detail: str, error: Exception | None = None) -> None:
        super().__init__(detail)
        self.index = index
        self.detail = detail
        self.error = error


class BundleRunner:
    def __init__(self, driver: AdbDriver) -> None:
        self.d = driver
        self._packages: list[str] | None = None
        self.learned: dict[str, str] = {}  # app label → package, found on the home screen

    # -- the bundle ----------------------------------------------------------------------
    def run(self, actions: list[Action], observation: Observation | None) -> ExecResult:
        t0 = time.perf_counter()
        calls0 = self.d.io.calls
        obs = observation or self.d.last_observation
        items: list[_Item] = []
        outcomes: list[ActionOutcome] = []
        failure: _Failed | None = None
        for i, action in enumerate(actions):
            try:
                if obs is None and _needs_screen(action):
                    obs = self.d.observe()
                items.append(self._plan(i, action, obs))
            except (AnchorNotFound, ActionRejected, ValueError) as exc:
                failure = _Failed(i, str(exc), exc)
                break
            if ends_bundle(action, items[-1].element):
                break
        t_plan = time.perf_counter()
        try:
            self._run_items(items, outcomes)
        except _Failed as exc:
            failure = exc  # it stopped the bundle before any action that failed planning
        if failure is not None:
            outcomes.append(ActionOutcome(failure.index, actions[failure.index], False,
                                          failure.detail, error=failure.error))
        t_run = time.perf_counter()
        calls = self.d.io.calls - calls0
        settled = None
        ran_boundary = any(o.ok and is_boundary(o.action, o.element) for o in outcomes)
        if ran_boundary and not any(it.launch_label for it in items):
            settled = self.d.wait_settled(previous=obs.screen_hash if obs else "")
        t_end = time.perf_counter()
        timings = {"plan": t_plan - t0, "device": t_run - t_plan, "settle": t_end - t_run,
                   "total": t_end - t0}
        if settled is False:
            timings["settle_timeout"] = 1.0
        return ExecResult(tuple(outcomes), dropped=len(actions) - len(outcomes),
                          device_calls=calls, timings=timings)

    def _run_items(self, items: list[_Item], outcomes: list[ActionOutcome]) -> None:
        batch: list[_Item] = []
        for item in items:
            if item.step is not None:
                batch.append(item)
                continue
            self._flush(batch, outcomes)
            batch = []
            if item.wait_s:
                time.sleep(item.wait_s)
            if item.launch_label:
                item.detail = self._launch_by_label(item)
            outcomes.append(_outcome(item, True))
        self._flush(batch, outcomes)

    def _flush(self, batch: list[_Item], outcomes: list[ActionOutcome]) -> None:
        if not batch:
            return
        steps = [it.step for it in batch if it.step is not None]
        ime = None
        if any(s.needs_ime for s in steps):
            ime = cmds.ImeSwitch(self.d.ime_state()[1], self.d.ime_settle_s)
        by_index = {it.index: it for it in batch}
        finished = 0
        for call in cmds.pack(steps, ime=ime):
            log.debug("%s: shell %s", self.d.serial, call.label)
            result = self.d.io.run_status(call.command, label=call.label)
            count = cmds.completed_actions(call, result.stdout, result.status)
            for index in call.indices[:count]:
                outcomes.append(_outcome(by_index[index], True))
                finished += 1
            if result.status != 0:
                failed = batch[finished]
                raise _Failed(failed.index, _failure_text(result.text(), result.status))

    # -- planning one action -------------------------------------------------------------
    def _plan(self, i: int, action: Action, obs: Observation | None) -> _Item:
        item = _Item(i, action)
        match action:
            case Tap() | DoubleTap() | LongPress():
                p = self._resolve(item, action.target, obs)
                if isinstance(action, Tap):
                    fragment = cmds.tap(p)
                elif isinstance(action, DoubleTap):
                    fragment = cmds.double_tap(p)
                else:
                    fragment = cmds.long_press(p, action.duration_ms)
                item.step = cmds.Step(i, (fragment,), f"{action.type} {p.x},{p.y}")
            case Swipe():
                start, end = self._swipe_points(item, action, obs)
                item.step = cmds.Step(i, (cmds.swipe(start, end, action.duration_ms),),
                                      f"swipe {start.x},{start.y}->{end.x},{end.y}")
                item.point = (start.x, start.y)
            case TypeText():
                self._plan_typing(item, action, obs)
            case Key() | Back() | Home():
                code = action.keycode if isinstance(action, Key) else (
                    cmds.KEY_BACK if isinstance(action, Back) else cmds.KEY_HOME)
                item.step = cmds.Step(i, (cmds.keyevent(code),), f"key {code}")
                item.detail = f"{action.type} (keycode {code})"
            case Launch():
                package = self._package(action.app)
                if package is None and cmds.PACKAGE_NAME.fullmatch(action.app.strip()):
                    raise ActionRejected(f"package {action.app} is not installed",
                                         serial=self.d.serial)
                if package is None:
                    item.launch_label = action.app
                else:
                    item.step = cmds.Step(i, (cmds.launch(package),), f"launch {package}")
                    item.detail = f"launched {package}"
            case Wait():
                item.wait_s = action.seconds
                item.detail = f"waited {action.seconds:g} s"
            case MemSave() | AskUser() | Done():
                item.detail = "skipped: not a device action (the operator handles it)"
        return item

    def _resolve(self, item: _Item, target, obs: Observation | None) -> Point:
        resolved = self.d.anchorer.resolve(target, obs)
        p = Point(*resolved.point)
        item.point, item.source = (p.x, p.y), resolved.source
        el = resolved.element
        what = resolved.detail or (f"[{el.id}] {el.role}" if el is not None else "")
        snap = f", snapped {resolved.snap_px:.0f} px" if resolved.snap_px else ""
        item.detail = (f"{item.action.type} at {p.x},{p.y}" + (f" on {what}" if what else "")
                       + f" ({resolved.source}{snap})")
        item.element = el
        return p

    def _swipe_points(self, item: _Item, action: Swipe, obs: Observation | None
                      ) -> tuple[Point, Point]:
        start, end = cmds.swipe_endpoints(self.d.geometry, action,
                                          lambda target: self._resolve(item, target, obs))
        item.detail = f"swipe {start.x},{start.y} -> {end.x},{end.y}"
        return start, end

    def _plan_typing(self, item: _Item, action: TypeText, obs: Observation | None) -> None:
        fragments: list[str] = []
        element: UIElement | None = obs.focused if obs is not None else None
        if action.target is not None:
            p = self._resolve(item, action.target, obs)
            fragments.append(cmds.tap(p))
            element = item.element or element
        ime_ok, _ = (self.d.ime_state() if action.clear or needs_ime(action.text)
                     else (False, ""))
        secret = bool(element is not None and element.password)
        try:
            plan = plan_typing(action.text, ime_available=ime_ok, clear=action.clear,
                               field_chars=len(element.text) if element else 0,
                               secret=secret)
        except UnicodeEncodeError:
            raise ActionRejected("the text holds unpaired surrogates (not valid unicode)",
                                 serial=self.d.serial) from None
        except ValueError:
            raise ActionRejected(f"this text needs the ADB Keyboard IME: {ADB_KEYBOARD_FIX}",
                                 serial=self.d.serial) from None
        if plan.needs_ime and fragments and self.d.ime_settle_s > 0:
            fragments.append(f"sleep {self.d.ime_settle_s:g}")
        fragments.extend(plan.fragments)
        if action.submit:
            fragments.append(cmds.keyevent(KEY_ENTER))
        log.info("%s: %s", self.d.serial, plan.label)
        item.step = cmds.Step(item.index, tuple(fragments), plan.label, plan.needs_ime)
        item.detail = (item.detail + "; " if item.detail else "") + plan.label

    # -- launching -----------------------------------------------------------------------
    def _package(self, app: str) -> str | None:
        aliases = {**self.learned, **self.d.aliases}
        hit = cmds.alias_package(app, aliases)
        if hit is not None:
            return hit
        if self._packages is None:
            out = self.d.io.run("pm list packages").decode("utf-8", "replace")
            self._packages = cmds.parse_package_list(out)
        return cmds.resolve_package(app, packages=self._packages)

    def _launch_by_label(self, item: _Item) -> str:
        """Go home, find the icon labelled like the app, tap it, remember its package."""
        app = item.launch_label
        d = self.d
        if not d.io.run_status(cmds.home(), label="key home").ok:
            raise _Failed(item.index, "could not press home to find the app's icon")
        d.wait_settled()
        obs = d.observe()
        wanted = app.strip().casefold()
        icon = next((e for e in obs.elements if e.clickable and wanted in
                     (e.text.strip().casefold(), e.desc.strip().casefold())), None)
        if icon is None:
            labels = sorted({e.label for e in obs.elements if e.clickable and e.label})
            raise _Failed(item.index, f"no app called {app!r}: not a package, not an alias, "
                                      f"not on the home screen ({', '.join(labels[:20])})")
        p = icon.center
        item.point, item.source = (p.x, p.y), "tree"
        if not d.io.run_status(cmds.tap(p), label=f"tap {app!r} icon").ok:
            raise _Failed(item.index, f"tapping the {app!r} icon failed")
        d.wait_settled(previous=obs.screen_hash)
        package, _ = d.current_app()
        if package and package != obs.package:
            self.learned[app] = package
        return f"tapped {app!r} on the home screen -> {package or 'unknown'}"


def _needs_screen(action: Action) -> bool:
    return cmds.targets_need_screen(action) or isinstance(action, TypeText)


def _outcome(item: _Item, ok: bool, detail: str = "") -> ActionOutcome:
    return ActionOutcome(item.index, item.action, ok, detail or item.detail or item.action.type,
                         item.point, item.source, item.element)


def _failure_text(output: str, status: int) -> str:
    text = " ".join(output.split())[:300] or f"exit status {status}"
    if "INJECT_EVENTS" in output:
        text += f" ({INJECT_HINT})"
    return f"device command failed: {text}"
