"""System situations handled by rule, without a model call: ANR, crash, permission prompts,
screen off, the lock screen.

The phone sometimes puts its own screen between the agent and the app: "Feed isn't
responding", "Notes keeps stopping", "Allow Maps to access this device's location?", a
dark screen, the keyguard. None of these is the task's business, and a model asked about
them costs a call and may do the wrong thing (grant a permission, guess a PIN). The
orchestrator asks :meth:`SystemGuard.react` with each observation before the operator's
turn; when it answers a :class:`SystemMove`, the orchestrator runs the move's actions on the
driver and observes again — no model call, no step charged, the plan's step resumes.

The rules (one move per observation; a multi-screen recovery takes several):

* **ANR** ("… isn't responding"): tap *Wait*; the same dialog right after a *Wait* → tap
  *Close app* and the app is relaunched on the next observation.
* **Crash dialog** ("… keeps stopping" / "… has stopped"): tap *Close app* (or *OK*); the app
  is relaunched on the next observation.
* **Silent crash**: the last screen the guard saw was app X and now the launcher is in front,
  though nothing we ran since navigated (no back, home, recents or launch: the guard watches
  the driver, :meth:`SystemGuard.watching`) → launch X again (the step resumes from its
  first screen). At most ``max_relaunches`` per run, then a stop naming the app.
* **Permission prompt**: never granted by rule. With a human reachable the prompt's text is
  asked as a yes/no question (yes → *Allow*, anything else → *Don't allow*); with none, it is
  denied (deny by default).
* **Screen off**: WAKEUP. **Keyguard without PIN**: swipe up. **Keyguard with PIN/password**:
  the human is asked for it (never guessed, never stored, typed into the password field, so
  the driver masks it); no answer or two wrong answers stop the run with the reason.

A situation that keeps coming back (more than ``max_repeats`` moves in a row for the same
one) stops the run with a :class:`~omg_agent.errors.DeviceError` naming it, so a stuck
dialog cannot spin the loop for free.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from PIL import ImageStat

from omg_agent.core.actions import (
    Action,
    AnchorTarget,
    Key,
    Launch,
    PointTarget,
    Swipe,
    Tap,
    TypeText,
)
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers.base import Driver, ExecResult
from omg_agent.drivers.ports import HumanHands, Reviewer
from omg_agent.drivers.wrapper import DriverWrapper
from omg_agent.errors import DeviceError, InputUnconfirmed
from omg_agent.guards.answers import is_yes
from omg_agent.guards.injection import SYSTEM_DIALOG_PACKAGES, SYSTEM_UI

log = logging.getLogger(__name__)

Situation = Literal["anr", "crash_dialog", "app_crashed", "permission", "screen_off",
                    "keyguard", "keyguard_pin"]
Ask = Callable[[str], str | None]

SYSTEMUI = SYSTEM_UI
PERMISSION_PACKAGES = SYSTEM_DIALOG_PACKAGES - {"android"}  # the controller, the installer
ANR = re.compile(r"(isn.t responding|is not responding|没有响应|无响应)", re.I)
CRASH = re.compile(r"(keeps stopping|has stopped|已停止运行|屡次停止运行)", re.I)
PERMISSION_ASK = re.compile(r"^allow .+ to |允许.+(访问|使用)|^要允许.+吗", re.I)
ALLOW = ("While using the app", "Allow", "Only this time", "仅在使用中允许",
         "仅在使用该应用时允许", "允许")
DENY = ("Don't allow", "Deny", "Don’t allow", "拒绝", "不允许")
WAIT, CLOSE = ("Wait", "等待"), ("Close app", "Close", "OK", "关闭应用", "确定")
PIN_IDS = ("pinentry", "passwordentry", "pin_entry", "password_entry")
KEYGUARD_TEXT = re.compile(r"(swipe up to unlock|enter (pin|password)|wrong (pin|password)|"
                           r"向上滑动解锁|输入(PIN|密码))", re.I)
DARK = 12  # mean brightness (0–255) under which an untexted screen counts as off
NAVIGATION_KEYS = frozenset({3, 4, 187})  # home, back, recents


@dataclass(frozen=True)
class SystemMove:
    """What to do about a system screen: the actions, and a line for the trace (never the
    PIN)."""

    situation: Situation
    actions: tuple[Action, ...]
    note: str
    by_user: bool = False  # the human said yes to it (or gave the PIN) just now


def is_launcher(package: str) -> bool:
    return "launcher" in package or package.endswith(".home")


def is_system(package: str) -> bool:
    return package in ("", SYSTEMUI) or package in SYSTEM_DIALOG_PACKAGES or is_launcher(package)


def _texts(obs: Observation) -> list[str]:
    return [t for e in obs.elements for t in (e.text, e.desc) if t]


def _button(obs: Observation, labels: tuple[str, ...]) -> UIElement | None:
    for label in labels:
        for e in obs.elements:
            if e.enabled and (e.text or e.desc).strip().lower() == label.lower():
                return e
    return None


def _tap(element: UIElement) -> Tap:
    if element.text:
        return Tap(target=AnchorTarget(text=element.text))
    return Tap(target=AnchorTarget(desc=element.desc))


def _dark(obs: Observation) -> bool:
    return ImageStat.Stat(obs.screenshot.convert("L").resize((32, 64))).mean[0] < DARK


def situation_of(obs: Observation) -> Situation | None:
    """Which system situation the screen shows, if any (pure: the screen alone)."""
    texts = _texts(obs)
    if obs.package in ("android", "") or any(e.package == "android" for e in obs.elements):
        if any(ANR.search(t) for t in texts):
            return "anr"
        if any(CRASH.search(t) for t in texts):
            return "crash_dialog"
    # the controller's own settings page (radio buttons: the user's choice to make there)
    # is no prompt
    settings_page = any(e.checkable for e in obs.elements if e.package in PERMISSION_PACKAGES)
    if (obs.package in PERMISSION_PACKAGES and not settings_page) or (
            any(PERMISSION_ASK.search(t) for t in texts) and _button(obs, DENY) is not None):
        return "permission"
    shade = obs.package == SYSTEMUI or (  # a dark focus ("") over System UI's own views
        not obs.package and bool(obs.elements)
        and all(e.package == SYSTEMUI for e in obs.elements))
    if shade:
        if any(any(k in e.resource_id.lower() for k in PIN_IDS) for e in obs.elements):
            return "keyguard_pin"
        if any(KEYGUARD_TEXT.search(t) for t in texts) or any(
                "keyguard" in e.resource_id for e in obs.elements):
            return "keyguard"
        if not texts and _dark(obs):
            return "screen_off"
    return None


class SystemGuard:
    """Turns system screens into moves; remembers the app in front for relaunches."""

    def __init__(self, ask: Ask | None = None, *, max_relaunches: int = 3,
                 max_repeats: int = 4, max_pin_asks: int = 2) -> None:
        self.ask = ask
        self.max_relaunches = max_relaunches
        self.max_repeats = max_repeats
        self.max_pin_asks = max_pin_asks
        self.app = ""  # the last app (not system, not launcher) seen in front
        self.relaunch: str = ""  # an app to launch once the launcher shows
        self.relaunches = 0
        self.pin_asks = 0
        self.moves: list[SystemMove] = []
        self.navigated = False  # a back/home/recents/launch ran since the last screen seen
        self._seen = ""  # the package of the last screen seen
        self._last: Situation | None = None
        self._repeats = 0

    def watching(self, driver: Driver) -> Driver:
        """``driver``, with every executed bundle shown to this guard (composition)."""
        return _Watched(driver, self)

    def ran(self, actions: Sequence[Action]) -> None:
        if any(isinstance(a, Launch) or (isinstance(a, Key) and a.keycode in NAVIGATION_KEYS)
               or a.type in ("back", "home") for a in actions):
            self.navigated = True

    def react(self, obs: Observation, previous: Observation | None = None) -> SystemMove | None:
        """The move for this screen, or None when it is the app's (the operator's turn).
        ``previous`` (the screen the agent last saw) stands in for the guard's own memory
        when it has seen nothing yet."""
        seen = self._seen or (previous.package if previous is not None else "")
        navigated, self.navigated, self._seen = self.navigated, False, obs.package
        situation = situation_of(obs)
        if situation is None and is_launcher(obs.package):
            situation = self._crashed(seen, navigated)
        if situation is None:
            if not is_system(obs.package):
                self.app, self.relaunch = obs.package, ""
            self._last, self._repeats = None, 0
            return None
        self._repeats = self._repeats + 1 if situation == self._last else 1
        self._last = situation
        if self._repeats > self.max_repeats:
            raise DeviceError(f"the phone stays on a system screen ({situation}) after "
                              f"{self.max_repeats} tries; handle it on the phone and resume")
        move = self._move(situation, obs)
        log.info("system screen (%s): %s", situation, move.note)
        self.moves.append(move)
        return move

    def carry_out(self, driver: Driver, move: SystemMove, obs: Observation) -> None:
        """Run ``move``'s actions on ``driver``. An input cut off by a drop is not repeated
        blindly: the next observation shows whether it took (and the rules judge again). A
        move the human just approved (Allow, their PIN) is theirs: the choke point does not
        ask them again; every other move is judged like any input."""
        try:
            driver.execute(list(move.actions), obs,
                           review=HumanHands() if move.by_user else None)
        except InputUnconfirmed as exc:
            log.warning("system move (%s) cut off: %s", move.situation, exc)

    def _crashed(self, seen: str, navigated: bool) -> Situation | None:
        if self.relaunch:
            return "app_crashed"
        if self.app and seen == self.app and not navigated:
            self.relaunch = self.app
            return "app_crashed"
        return None

    def _move(self, situation: Situation, obs: Observation) -> SystemMove:
        match situation:
            case "anr":
                if self._repeats == 1 and (wait := _button(obs, WAIT)) is not None:
                    return SystemMove(situation, (_tap(wait),), "app not responding: Wait")
                return self._close(situation, obs, "app still not responding: Close app")
            case "crash_dialog":
                return self._close(situation, obs, "app crashed: Close app")
            case "app_crashed":
                return self._relaunch()
            case "permission":
                return self._permission(obs)
            case "screen_off":
                return SystemMove(situation, (Key(key="wakeup"),), "screen off: woke it")
            case "keyguard":
                return SystemMove(situation, (Swipe(direction="up", distance=500,
                                                    start=PointTarget(x=500, y=800)),),
                                  "lock screen: swiped up to unlock")
            case "keyguard_pin":
                return self._pin(obs)

    def _close(self, situation: Situation, obs: Observation, note: str) -> SystemMove:
        button = _button(obs, CLOSE)
        if button is None:
            return SystemMove(situation, (Key(key="back"),), note + " (no button: back)")
        self.relaunch = self.app
        return SystemMove(situation, (_tap(button),), note)

    def _relaunch(self) -> SystemMove:
        app = self.relaunch or self.app
        if self.relaunches >= self.max_relaunches:
            raise DeviceError(f"{app} crashed {self.relaunches + 1} times; stopping "
                              "(see the app, then resume)")
        self.relaunches += 1
        self.relaunch = ""
        return SystemMove("app_crashed", (Launch(app=app),),
                          f"{app} left the screen without an action from us: relaunched it")

    def _permission(self, obs: Observation) -> SystemMove:
        prompt = next((t for t in _texts(obs) if PERMISSION_ASK.search(t)), "a permission")
        allow, deny = _button(obs, ALLOW), _button(obs, DENY)
        answer = self.ask(f"The phone asks: {prompt!r}. Allow it? (yes/no)") \
            if self.ask is not None and allow is not None else None
        if is_yes(answer) and allow is not None:
            return SystemMove("permission", (_tap(allow),), f"permission granted by the user: "
                                                            f"{prompt}", by_user=True)
        if deny is None:
            return SystemMove("permission", (Key(key="back"),), f"permission denied: {prompt}")
        return SystemMove("permission", (_tap(deny),), f"permission denied: {prompt}"
                          + ("" if self.ask is not None else " (no one to ask)"))

    def _pin(self, obs: Observation) -> SystemMove:
        wrong = any(re.search(r"wrong|incorrect|错误", t, re.I) for t in _texts(obs))
        if self.pin_asks >= self.max_pin_asks:
            raise DeviceError("the phone is still locked after the PIN the user gave; "
                              "unlock it on the phone and resume")
        if self.ask is None:
            raise DeviceError("the phone is locked with a PIN and no one can be asked for it "
                              "(it is never guessed); unlock the phone and resume")
        self.pin_asks += 1
        answer = self.ask(("That PIN was wrong. " if wrong else "") +
                          "The phone is locked. What is its PIN or password? (used once to "
                          "unlock, never stored)")
        if not answer or not answer.strip():
            raise DeviceError("the phone is locked with a PIN and the user gave none "
                              "(it is never guessed); unlock the phone and resume")
        field = next(e for e in obs.elements
                     if any(k in e.resource_id.lower() for k in PIN_IDS))
        return SystemMove("keyguard_pin", (TypeText(
            text=answer.strip(), target=AnchorTarget(resource_id=field.resource_id),
            submit=True),), "lock screen: typed the PIN the user gave", by_user=True)


class _Watched(DriverWrapper):
    """A driver whose executed bundles the guard sees (the Driver protocol, unchanged)."""

    def __init__(self, driver: Driver, guard: SystemGuard) -> None:
        super().__init__(driver)
        self.guard = guard

    def execute(self, actions: Sequence[Action],
                observation: Observation | None = None, *,
                review: Reviewer | None = None) -> ExecResult:
        try:
            result = self.inner.execute(actions, observation, review=review)
        except BaseException:
            self.guard.ran(actions)  # what ran of them is unknown: maybe all
            raise
        # what the executor tried: a bundle's later segments are handed over too
        self.guard.ran([o.action for o in result.outcomes])
        return result

    def launch(self, app: str) -> None:
        self.guard.navigated = True
        self.inner.launch(app)
