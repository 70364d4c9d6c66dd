"""The edges of the choke point's one rule (:mod:`omg_agent.guards.landing`) that the
property test of ``test_choke_property.py`` does not pin: a held touch within the slop, a
swipe with an end nowhere, a key on a focused control (what it lands on, and what the human
is told when it cannot be classified), and the slop of a planned action. Each test kills
mutants that survived the mutation run of docs/mutation.md."""

from __future__ import annotations

import dataclasses

from gate_screens import made_screen

from omg_agent.core.actions import Key, LongPress, Tap
from omg_agent.core.geometry import Point
from omg_agent.core.observation import Observation
from omg_agent.drivers.ports import InputEffect, InputScene
from omg_agent.guards.landing import decide, landings, plan_scene
from omg_agent.guards.sensitive import Gate

SLOP = 28
PAY = (100, 1800, 980, 1950)
ICON = (500, 1850, 580, 1900)  # drawn inside the Pay button, at its centre
LABEL = (100, 1300, 980, 1440)  # a focusable text, not clickable
BOX = (100, 1000, 980, 1140)


def screen(focus: tuple[int, int, int, int] | None = None) -> Observation:
    obs = made_screen("com.x", [
        {"text": "Pay ¥1,079.00", "role": "button", "cls": "android.widget.Button",
         "clickable": True, "bounds": PAY, "resource_id": "com.x:id/pay"},
        {"desc": "", "role": "image", "cls": "android.widget.ImageView", "bounds": ICON},
        {"text": "Pay ¥20.00 now", "bounds": LABEL, "resource_id": "com.x:id/quick"},
        {"text": "", "hint": "Message", "role": "edit", "cls": "android.widget.EditText",
         "editable": True, "clickable": True, "bounds": BOX, "resource_id": "com.x:id/box"}])
    return dataclasses.replace(obs, elements=tuple(
        dataclasses.replace(e, focused=tuple(e.bounds) == focus) for e in obs.elements))


def scene(focus: tuple[int, int, int, int] | None = None) -> InputScene:
    return InputScene(screen(focus), SLOP)


def reason(effect: InputEffect, where: InputScene) -> str:
    """What the human is told about an input the choke point cannot classify."""
    _, decision = decide(Gate(), effect, where)
    assert decision.needs_confirmation and decision.sensitivity is not None
    sens = decision.sensitivity
    assert sens.cls == "unclassified" and sens.package == "com.x"
    said = sens.reason.split(": ", 1)[1]  # the human is asked to let this through
    assert sens.describe == f"send an input it cannot classify ({said})", sens.describe
    return sens.reason


def test_a_touch_held_in_place_is_a_long_press_from_half_a_second() -> None:
    at, drift = Point(300, 600), Point(310, 605)  # within the slop: a touch, not a drag
    for held, verb in ((0, Tap), (499, Tap), (500, LongPress), (900, LongPress)):
        found = landings(InputEffect("swipe", at, drift, held), scene())
        assert isinstance(found, list) and len(found) == 2  # both ends are judged
        assert all(type(f.action) is verb for f in found), held


def test_a_swipe_with_one_end_nowhere_is_unclassified_and_says_so() -> None:
    for start, end in ((Point(300, 600), None), (None, Point(300, 600))):
        said = reason(InputEffect("swipe", start, end), scene())
        assert said.endswith(": a swipe whose ends cannot be placed"), said


def test_a_hotkey_is_unclassified_only_on_a_focused_control() -> None:
    said = reason(InputEffect("key", code=None), scene(focus=PAY))
    assert said.endswith(": a key combination on a focused control"), said
    assert landings(InputEffect("key", code=None), scene()) == []
    assert landings(InputEffect("key", code=None), scene(focus=BOX)) == []  # typing


def test_enter_in_a_focused_field_is_judged_on_that_field() -> None:
    found = landings(InputEffect("key", code=66), scene(focus=BOX))
    assert isinstance(found, list) and len(found) == 1
    assert isinstance(found[0].action, Key) and found[0].element is not None
    assert found[0].element.resource_id == "com.x:id/box"


def test_enter_on_a_focused_button_lands_on_the_button_not_what_is_drawn_on_it() -> None:
    # the icon at the button's centre is smaller: a touch there would find it first, but
    # the key goes to the focused button itself
    found = landings(InputEffect("key", code=66), scene(focus=PAY))
    assert isinstance(found, list) and len(found) == 1 and found[0].element is not None
    assert found[0].element.resource_id == "com.x:id/pay"


def test_enter_on_a_focused_text_that_is_not_clickable_is_judged_on_that_text() -> None:
    # the key goes to the focused view itself: the gate is handed that view (and decides
    # what a view that is not clickable does), not a touch on nothing as for a drag's end
    found = landings(InputEffect("key", code=66), scene(focus=LABEL))
    assert isinstance(found, list) and len(found) == 1 and found[0].element is not None
    assert found[0].element.resource_id == "com.x:id/quick"


def test_an_unknown_key_on_a_focused_control_names_the_control() -> None:
    said = reason(InputEffect("key", code=131), scene(focus=PAY))  # F1
    assert said.endswith(": key 131 on the focused control 'Pay ¥1,079.00'"), said


def test_a_planned_action_gets_the_slop_of_the_screens_density() -> None:
    # a phone is about 411 dp wide: 1,233 px is 3x (480 dpi), 411 px is 1x (160 dpi); the
    # slop is Android's 8 dp, judged 1.25 times wider
    for width, slop in ((1233, 30), (411, 10), (822, 20)):
        obs = made_screen("com.x", [], (width, 2400))
        assert plan_scene(obs).slop_px == slop, width


def test_starting_an_app_is_harmless_only_by_a_package_name() -> None:
    assert landings(InputEffect("start", package="com.x.shop"), InputScene(None, SLOP)) == []
    for bad in ("com.x; am broadcast -a PAY", ""):
        said = reason(InputEffect("start", package=bad), scene())
        assert said.endswith(f": starting {bad!r}, which is not a package name"), said


def test_typing_lands_on_the_field_it_names_else_on_the_focused_one() -> None:
    where = scene(focus=LABEL)
    box = next(e for e in where.screen.elements if e.resource_id == "com.x:id/box")
    named = landings(InputEffect("type", text="hi", field=box, clear=True, submit=True), where)
    assert isinstance(named, list) and named[0].element == box
    # what the gate reads as the message: the text alone (the box cleared first), sent
    assert (named[0].action.text, named[0].action.clear, named[0].action.submit) == \
        ("hi", True, True)
    focused = landings(InputEffect("type", text="hi"), where)
    assert isinstance(focused, list) and focused[0].element is not None
    assert focused[0].element.resource_id == "com.x:id/quick"


def test_a_tap_on_text_is_judged_on_that_text() -> None:
    found = landings(InputEffect("tap", Point(300, 1350)), scene())
    assert isinstance(found, list) and found[0].element is not None
    assert found[0].element.resource_id == "com.x:id/quick"


def test_a_harmless_input_is_allowed_and_one_with_no_screen_is_asked_about() -> None:
    element, decision = decide(Gate(), InputEffect("start", package="com.x.shop"), scene())
    assert element is None and decision.allowed
    _, decision = decide(Gate(), InputEffect("tap", Point(10, 10)), InputScene(None, SLOP))
    assert decision.needs_confirmation and decision.sensitivity is not None
    assert decision.sensitivity.package == ""
