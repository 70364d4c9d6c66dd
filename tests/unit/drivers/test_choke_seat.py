"""The choke point's seat in the executor (issue 34): every port verb of every caller is
judged before the transport sees it — with no reviewer at all — a held input is a failed
outcome with nothing of it sent, and only the human's own gestures pass unjudged."""

from __future__ import annotations

from test_drivers_executor import FIELD, SAVE, FakeDevice, RecordingPort, screen

from omg_agent.core.actions import parse_action
from omg_agent.drivers.executor import BundleExecutor
from omg_agent.drivers.ports import HumanHands, InputEffect, InputHeld, InputScene


class Judge:
    """Records what it is asked; holds every effect of the verbs in ``hold``."""

    def __init__(self, *hold: str) -> None:
        self.hold, self.seen = hold, []  # type: ignore[var-annotated]

    def judge(self, effect: InputEffect, scene: InputScene) -> None:
        self.seen.append((effect, scene))
        if effect.verb in self.hold:
            raise InputHeld("held", serial="fake", request="tap Pay", answer=None)


def run(judge: Judge, *raw: dict, review=None):
    obs = screen(FIELD, SAVE)
    device, port = FakeDevice(obs), RecordingPort()
    executor = BundleExecutor(device, port, lambda: {"Notes": "com.omg.notes"}, judge=judge)
    return executor.run([parse_action(a) for a in raw], obs, review), port


def test_every_verb_is_judged_with_no_reviewer_on_the_screen_it_lands_on() -> None:
    judge, sent = Judge(), 0
    for action in ({"type": "type", "text": "hi", "target": 1, "submit": True},
                   {"type": "swipe", "from": {"kind": "point", "x": 500, "y": 225},
                    "to": {"kind": "point", "x": 501, "y": 226}},
                   {"type": "key", "key": "dpad_center"}, {"type": "launch", "app": "Notes"},
                   {"type": "long_press", "target": 2}, {"type": "double_tap", "target": 2}):
        result, port = run(judge, action)
        assert result.ok
        sent += len(port.log)
    assert [e.verb for e, _ in judge.seen] == ["tap", "type", "type", "swipe", "key", "start",
                                               "long_press", "double_tap"]
    assert judge.seen[2][0].submit and judge.seen[2][0].code == 66  # ENTER after typing
    assert judge.seen[0][0].element == FIELD  # what the executor resolved the tap to
    assert all(scene.screen is not None and scene.slop_px > 0 for _, scene in judge.seen)
    assert sent == len(judge.seen)  # each verb judged once, then sent


def test_a_held_input_is_a_failed_outcome_and_nothing_of_it_is_sent() -> None:
    judge = Judge("swipe")
    result, port = run(judge, {"type": "tap", "target": {"kind": "anchor", "text": "old"}},
                       {"type": "swipe", "from": {"kind": "anchor", "text": "Save"},
                        "to": {"kind": "anchor", "text": "Save"}})
    assert [o.ok for o in result.outcomes] == [True, False]
    assert isinstance(result.outcomes[1].error, InputHeld)
    assert [what for _, what in port.log] == ["tap 500,250"]  # the swipe never ran


def test_the_humans_own_gestures_pass_unjudged() -> None:
    judge = Judge("tap")
    result, port = run(judge, {"type": "tap", "target": {"kind": "anchor", "text": "Save"}},
                       review=HumanHands())
    assert result.ok and judge.seen == [] and port.log == [(0, "tap 500,450")]


def test_a_judged_phone_port_offers_no_hotkey_and_a_desktop_ones_is_judged() -> None:
    from omg_agent.drivers.inputs import JudgedPort

    judge = Judge()
    phone = JudgedPort(RecordingPort(), judge, FakeDevice(screen(SAVE)))
    assert not callable(getattr(phone, "hotkey", None))  # a scan stays a phone's scan

    class DesktopPort(RecordingPort):
        def hotkey(self, keys: list[str]) -> None:
            self._rec("hotkey " + "+".join(keys))

    desktop = JudgedPort(DesktopPort(), judge, FakeDevice(screen(SAVE)))
    desktop.hotkey(["ctrl", "l"])
    assert [(e.verb, e.code) for e, _ in judge.seen] == [("key", None)]


def test_the_list_scanners_swipes_are_judged_on_the_screens_it_reads() -> None:
    from tests.unit.drivers.scroll_world import ScrollDevice, ScrollPort, ScrollWorld, product

    world = ScrollWorld([product(f"Product {i}", "¥1.00") for i in range(1, 30)])
    judge = Judge()
    executor = BundleExecutor(ScrollDevice(world), ScrollPort(world), judge=judge)
    assert executor.run([parse_action({"type": "scan"})], None).ok
    swipes = [scene for e, scene in judge.seen if e.verb == "swipe"]
    assert swipes and all(scene.screen is not None for scene in swipes)


def test_an_input_after_a_typing_is_judged_on_the_screen_that_typing_leaves() -> None:
    """Type a message, then tap Send, in one bundle: the Send is judged with the message box
    holding what was typed (on main @b2d785c it was judged on the screen planned on — an
    empty box — and t14's send asked "sends an empty message")."""
    judge = Judge()
    result, _ = run(judge, {"type": "type", "text": "On my way", "target": 1, "clear": True},
                    {"type": "tap", "target": 2})
    assert result.ok
    taps = [scene for effect, scene in judge.seen if effect.verb == "tap"]
    field = next(e for e in taps[-1].screen.elements if e.id == FIELD.id)
    assert field.text == "On my way"  # the Send tap's screen; before the typing: "old"
    assert next(e for e in taps[0].screen.elements if e.id == FIELD.id).text == "old"


def test_an_input_after_one_that_may_change_the_screen_is_never_placed_on_it() -> None:
    """Attack round "follow-through": Tab then SPACE were both judged on the screen before
    the Tab (whose focus was elsewhere). While the Tab waits in the queue the SPACE has no
    screen to be placed on (the choke point asks); once sent, the next input is judged on a
    fresh look; typing and a tap on an edit field keep the screen."""
    from omg_agent.drivers.inputs import JudgedPort, looking_at

    judge, planned, fresh = Judge(), screen(FIELD, SAVE), screen(SAVE)
    device = FakeDevice(fresh)
    port = JudgedPort(RecordingPort(), judge, device)
    with looking_at(port, planned):
        port.tap(FIELD.center)  # an edit field: the screen stays
        port.type("hi", clear=False, field=FIELD, after_tap=True)
        port.key(61)  # Tab: the focus moves
        port.key(62)  # SPACE, queued behind it
        port.batch()
        port.key(62)  # the Tab is on the device now
    screens = [scene.screen for _, scene in judge.seen]
    assert screens[0] is planned and screens[2] is not None and screens[3] is None
    assert screens[4] is fresh and device.observed == 1


def test_a_types_text_is_placed_on_the_screen_its_own_focus_tap_was_placed_on() -> None:
    """A field the screen does not know as one (OCR text on a desktop: the Tk app's "Type
    here" placeholder) is tapped to focus it, and the focus clears the placeholder: the
    text of that same action goes to the field the tap was placed on, judged on that
    screen — not held as "no screen", not looked for on a screen the focus changed. The
    next action's input is placed on a fresh look."""
    from omg_agent.drivers.inputs import JudgedPort, looking_at

    judge, planned, fresh = Judge(), screen(SAVE), screen(FIELD, SAVE)
    device = FakeDevice(fresh)
    port = JudgedPort(RecordingPort(), judge, device)
    with looking_at(port, planned):
        port.tap(SAVE.center)  # not known to keep the screen (a button, or OCR text)
        port.type("hi", clear=False, field=SAVE, after_tap=True)
        port.batch()
        port.tap(FIELD.center)  # the next action: a fresh look
    screens = [scene.screen for _, scene in judge.seen]
    assert screens[0] is planned and screens[1] is planned
    assert screens[2] is fresh and device.observed == 1
