"""System screens handled by rule (guards/system.py), read from a real VirtualPhone's screens:
ANR, crash dialogs, silent crashes, permission prompts, screen off and the lock screen.

Observations are the phone's own frame, XML dump and focus, parsed as a driver would; the
moves are applied to the phone the way the driver would run them (tap the anchored text,
launch, key, type), so each test walks a whole recovery.
"""

from __future__ import annotations

import pytest

from omg_agent.core.actions import AnchorTarget, Back, Home, Key, Launch, Swipe, Tap, TypeText
from omg_agent.core.observation import Observation
from omg_agent.drivers.base import ActionOutcome, ExecResult
from omg_agent.errors import DeviceError, DeviceOffline, InputUnconfirmed
from omg_agent.guards.system import SystemGuard, situation_of
from omg_agent.perception.uitree import parse_elements
from omg_agent.vphone.phone import VirtualPhone

FEED, NOTES = "com.omg.feed", "com.omg.notes"


class PhoneDriver:
    """Runs bundles on the phone in-process (what the guard watches is only which ran)."""

    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone

    def execute(self, actions, observation=None, *, review=None):
        apply(self.phone, actions)
        return ExecResult(tuple(ActionOutcome(i, a, True) for i, a in enumerate(actions)))

    def launch(self, app: str) -> None:
        self.phone.start_activity(app)


def observe(phone: VirtualPhone) -> Observation:
    package, activity = phone.focus()
    return Observation(screenshot=phone.screenshot(), elements=parse_elements(phone.dump_xml()),
                       package=package, activity=activity)


def apply(phone: VirtualPhone, actions) -> None:
    """Run a move's actions on the phone as the driver would."""
    for action in actions:
        match action:
            case Tap(target=AnchorTarget(text=text)) if text:
                phone.tap_view(text=text)
            case Launch(app=app):
                phone.start_activity(app)
            case Key():
                phone.key(action.keycode)
            case Home():
                phone.key(3)
            case Back():
                phone.key(4)
            case Swipe():
                w, h = phone.profile.width, phone.profile.height
                phone.swipe(w // 2, h * 8 // 10, w // 2, h * 3 // 10)
            case TypeText(target=AnchorTarget(resource_id=rid), text=text, submit=submit):
                assert phone.find_view(resource_id=rid) is not None
                phone.input_text(text)
                if submit:
                    phone.key(66)
            case _:
                raise AssertionError(f"unexpected action {action}")


@pytest.fixture
def phone() -> VirtualPhone:
    ph = VirtualPhone(seed=1)
    ph.start_activity(FEED)
    return ph


def test_an_app_screen_is_left_to_the_operator(phone):
    guard = SystemGuard()
    assert guard.react(observe(phone)) is None
    assert guard.app == FEED


def test_anr_waits_first_then_closes_and_relaunches_when_it_comes_back(phone):
    guard = SystemGuard()
    before = observe(phone)
    guard.react(before)
    phone.show_anr()
    move = guard.react(observe(phone), before)
    assert move is not None and move.situation == "anr"
    assert move.actions == (Tap(target=AnchorTarget(text="Wait")),)
    phone.show_anr()  # still not responding right after the Wait
    move = guard.react(observe(phone), before)
    assert move is not None and move.actions == (Tap(target=AnchorTarget(text="Close app")),)
    apply(phone, move.actions)
    move = guard.react(observe(phone), before)  # the launcher now: the app is relaunched
    assert move is not None and move.actions == (Launch(app=FEED),)
    apply(phone, move.actions)
    assert guard.react(observe(phone), before) is None
    assert phone.focus()[0] == FEED


def test_a_crash_dialog_is_closed_and_the_app_relaunched(phone):
    guard = SystemGuard()
    before = observe(phone)
    guard.react(before)
    phone.crash_foreground()
    obs = observe(phone)
    assert situation_of(obs) == "crash_dialog"
    move = guard.react(obs, before)
    apply(phone, move.actions)
    move = guard.react(observe(phone), before)
    assert move is not None and move.situation == "app_crashed"
    apply(phone, move.actions)
    assert phone.focus()[0] == FEED


@pytest.mark.parametrize("ours", [Home(), Back(), Key(key="home"), Launch(app="Settings")])
def test_the_launcher_after_our_own_navigation_is_not_a_crash(phone, ours):
    guard = SystemGuard()
    driver = guard.watching(PhoneDriver(phone))
    guard.react(observe(phone))
    driver.execute([ours])
    phone.go_home()
    assert guard.react(observe(phone)) is None


def test_the_launcher_after_a_tap_of_ours_is_a_crash(phone):
    guard = SystemGuard()
    driver = guard.watching(PhoneDriver(phone))
    guard.react(observe(phone))
    driver.execute([Tap(target=AnchorTarget(text="Like"))])
    phone.go_home()  # the tap took the app down
    move = guard.react(observe(phone))
    assert move is not None and move.actions == (Launch(app=FEED),)


def test_an_app_that_keeps_crashing_stops_the_run_with_its_name(phone):
    guard = SystemGuard(max_relaunches=2)
    before = observe(phone)
    guard.react(before)
    for _ in range(2):
        phone.go_home()  # a silent crash: the launcher, nothing pressed by us
        apply(phone, guard.react(observe(phone), before).actions)
        assert guard.react(observe(phone)) is None  # back in the app
    phone.go_home()
    with pytest.raises(DeviceError, match="com.omg.feed crashed 3 times"):
        guard.react(observe(phone), before)


def test_screen_off_is_woken_and_a_swipe_lock_swiped(phone):
    guard = SystemGuard()
    guard.react(observe(phone))
    phone.screen_off(pin="")
    moves = []
    while (move := guard.react(observe(phone))) is not None:
        moves.append(move.situation)
        apply(phone, move.actions)
    assert moves == ["screen_off", "keyguard"]
    assert phone.focus()[0] == FEED and phone.state()["screen"]["locked"] is False


def test_a_pin_is_asked_from_the_user_and_typed_never_guessed(phone):
    questions: list[str] = []

    def user(question: str) -> str | None:
        questions.append(question)
        return "2580"

    guard = SystemGuard(user)
    guard.react(observe(phone))
    phone.screen_off(pin="2580")
    while (move := guard.react(observe(phone))) is not None:
        assert "2580" not in move.note
        apply(phone, move.actions)
    assert len(questions) == 1 and "PIN" in questions[0]
    assert phone.state()["screen"] == {"on": True, "locked": False, "pin": True,
                                       "unlocks": 1, "wrong_pins": 0}


@pytest.mark.parametrize("answer", [None, ""])
def test_no_pin_from_the_user_stops_with_the_reason(phone, answer):
    guard = SystemGuard(lambda q: answer)
    phone.screen_off(pin="2580")
    apply(phone, guard.react(observe(phone)).actions)  # wake
    with pytest.raises(DeviceError, match="never guessed"):
        guard.react(observe(phone))
    assert phone.state()["screen"]["wrong_pins"] == 0


def test_without_a_human_a_pin_lock_stops_the_run(phone):
    guard = SystemGuard(None)
    phone.screen_off(pin="2580")
    apply(phone, guard.react(observe(phone)).actions)
    with pytest.raises(DeviceError, match="no one can be asked"):
        guard.react(observe(phone))


def test_a_wrong_pin_is_asked_again_then_the_run_stops(phone):
    questions: list[str] = []
    guard = SystemGuard(lambda q: questions.append(q) or "0000", max_pin_asks=2)
    phone.screen_off(pin="2580")
    with pytest.raises(DeviceError, match="still locked"):
        while (move := guard.react(observe(phone))) is not None:
            apply(phone, move.actions)
    assert len(questions) == 2 and questions[1].startswith("That PIN was wrong")
    assert phone.state()["screen"]["wrong_pins"] == 2


def permission_prompt(phone: VirtualPhone) -> Observation:
    """A runtime permission dialog as Android's permission controller draws it."""
    from omg_agent.vphone.ui.kit import Kit

    kit = Kit(phone.profile, "com.android.permissioncontroller")
    root = kit.root()
    root.add(kit.dialog("Allow Feed to access this device's location?", "",
                        [("While using the app", lambda: None), ("Don't allow", lambda: None)]))
    from omg_agent.vphone.ui import xmldump

    xml = xmldump.dump(root, (0, 0, phone.profile.width, phone.profile.height))
    return Observation(screenshot=phone.screenshot(), elements=parse_elements(xml),
                       package="com.android.permissioncontroller")


def test_a_permission_is_denied_by_default_without_a_human(phone):
    move = SystemGuard(None).react(permission_prompt(phone))
    assert move is not None and move.situation == "permission"
    assert move.actions == (Tap(target=AnchorTarget(text="Don't allow")),)


@pytest.mark.parametrize(("answer", "tapped"), [("yes", "While using the app"),
                                                ("no", "Don't allow"),
                                                (None, "Don't allow")])
def test_a_permission_is_granted_only_on_the_users_yes(phone, answer, tapped):
    asked: list[str] = []
    guard = SystemGuard(lambda q: asked.append(q) or answer)
    move = guard.react(permission_prompt(phone))
    assert move.actions == (Tap(target=AnchorTarget(text=tapped)),)
    assert "access this device's location" in asked[0]


def test_a_system_screen_that_will_not_go_away_stops_the_run(phone):
    guard = SystemGuard(max_repeats=3)
    phone.show_anr()
    for _ in range(3):
        guard.react(observe(phone))  # the dialog comes back every time (nothing applied)
    with pytest.raises(DeviceError, match="stays on a system screen"):
        guard.react(observe(phone))


class DroppingDriver:
    """A driver whose every bundle is cut off by a drop with ``error``."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.sent = 0

    def execute(self, actions, observation=None, *, review=None):
        self.sent += 1
        raise self.error


def test_a_move_cut_off_by_a_drop_is_judged_again_on_the_next_screen_not_resent(phone):
    guard = SystemGuard()
    phone.show_anr()
    obs = observe(phone)
    move = guard.react(obs)
    driver = DroppingDriver(InputUnconfirmed("effect unknown", serial="s", command="tap"))
    guard.carry_out(driver, move, obs)  # no raise: the run goes on and re-observes
    assert driver.sent == 1


def test_a_device_gone_for_good_during_a_move_stops_the_run(phone):
    guard = SystemGuard()
    phone.show_anr()
    obs = observe(phone)
    gone = DroppingDriver(DeviceOffline("did not come back within 30 s", serial="s"))
    with pytest.raises(DeviceOffline, match="did not come back"):
        guard.carry_out(gone, guard.react(obs), obs)
