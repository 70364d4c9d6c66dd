"""A property of the one choke point (issue 34): for any input event — a point, a swipe
within or beyond the touch slop, a key with focus on or off the control, typed text — on a
screen with a Pay, Send or Delete control, the gate is asked exactly when the event's
effect lands on that control, and harmless events elsewhere are not asked about."""

from __future__ import annotations

import dataclasses
from typing import Any

from gate_screens import made_screen
from hypothesis import given, settings
from hypothesis import strategies as st

from omg_agent.core.geometry import Point
from omg_agent.core.keys import ACTIVATING_KEYCODES, HARMLESS_KEYCODES
from omg_agent.core.observation import Observation
from omg_agent.drivers.ports import InputEffect, InputScene
from omg_agent.guards.choke import ChokePoint
from omg_agent.guards.gatekeeper import GateKeeper
from omg_agent.guards.sensitive import Gate

SLOP = 28
W, H = 1080, 2400
CONTROL = (100, 1800, 980, 1950)  # the sensitive button
OTHER = (100, 1500, 980, 1640)  # "Continue" (harmless)
BOX = (100, 1300, 980, 1440)  # the message box (Send screen only)
KEY_CALL = 5


def screen(kind: str) -> Observation:
    label = {"pay": "Pay ¥1,079.00", "send": "Send", "delete": "Delete"}[kind]
    rows: list[dict[str, Any]] = [
        {"text": "Your order", "bounds": (100, 300, 980, 700)},  # a paragraph
        {"text": "Continue", "role": "button", "cls": "android.widget.Button",
         "clickable": True, "bounds": OTHER, "resource_id": "com.x:id/go_on"},
        {"text": label, "role": "button", "cls": "android.widget.Button", "clickable": True,
         "bounds": CONTROL, "resource_id": f"com.x:id/{kind}"}]
    if kind == "send":
        rows.append({"text": "", "hint": "Message", "role": "edit",
                     "cls": "android.widget.EditText", "editable": True, "clickable": True,
                     "bounds": BOX, "resource_id": "com.x:id/compose"})
    return made_screen("com.x", rows, (W, H))


def inside(box: tuple[int, int, int, int], p: Point) -> bool:
    return box[0] <= p.x < box[2] and box[1] <= p.y < box[3]


class Recording:
    def __init__(self) -> None:
        self.asked: list[Any] = []

    def confirm(self, request: Any) -> bool:
        self.asked.append(request)
        return True


def asked(obs: Observation, effect: InputEffect) -> bool:
    channel = Recording()
    ChokePoint(GateKeeper(Gate(), channel)).judge(effect, InputScene(obs, SLOP))
    return bool(channel.asked)


def focus(obs: Observation, where: str) -> Observation:
    box = {"control": CONTROL, "other": OTHER, "box": BOX}.get(where)
    return dataclasses.replace(obs, elements=tuple(
        dataclasses.replace(e, focused=tuple(e.bounds) == box) for e in obs.elements))


def within(box: tuple[int, int, int, int], margin: int = 0) -> st.SearchStrategy[Point]:
    return st.builds(Point, st.integers(max(0, box[0] - margin), min(W, box[2] + margin) - 1),
                     st.integers(max(0, box[1] - margin), min(H, box[3] + margin) - 1))


# anywhere, and (as often) on or around the control and the harmless button beside it
points = st.one_of(within((0, 0, W, H)), within(CONTROL, 2 * SLOP), within(OTHER, SLOP))
near = st.builds(Point, st.integers(-SLOP, SLOP), st.integers(-SLOP, SLOP))
far = st.builds(Point, st.integers(-900, 900), st.integers(-1500, 1500)).filter(
    lambda d: max(abs(d.x), abs(d.y)) > SLOP)
kinds = st.sampled_from(["pay", "send", "delete"])
FAST = settings(max_examples=150, deadline=None)


@FAST
@given(kind=kinds, p=points, verb=st.sampled_from(["tap", "double_tap", "long_press"]))
def test_a_touch_asks_exactly_when_it_lands_on_the_control(kind, p, verb) -> None:
    assert asked(screen(kind), InputEffect(verb, p)) == inside(CONTROL, p)


@FAST
@given(kind=kinds, start=points, delta=st.one_of(near, far),
       duration=st.sampled_from([50, 300, 800]))
def test_a_swipe_within_the_slop_is_a_tap_and_a_drag_is_judged_where_it_ends(
        kind, start, delta, duration) -> None:
    end = Point(min(W - 1, max(0, start.x + delta.x)), min(H - 1, max(0, start.y + delta.y)))
    tap_like = max(abs(end.x - start.x), abs(end.y - start.y)) <= SLOP
    lands = inside(CONTROL, end) or (tap_like and inside(CONTROL, start))
    assert asked(screen(kind), InputEffect("swipe", start, end, duration)) == lands


FOCUS = st.sampled_from([("pay", "control"), ("send", "control"), ("delete", "control"),
                         ("pay", "other"), ("send", "box"), ("delete", "none")])
KEYS = st.one_of(st.sampled_from([*ACTIVATING_KEYCODES, 61, 19, 20, 3, 4, KEY_CALL]),
                 st.integers(0, 300))


@FAST
@given(focused=FOCUS, code=KEYS)
def test_a_key_asks_when_it_activates_the_focused_control(focused, code) -> None:
    kind, where = focused
    obs = focus(screen(kind), where)
    on = obs.focused
    if code == KEY_CALL:
        expected = True  # dials
    elif code in ACTIVATING_KEYCODES:
        expected = (on is not None and tuple(on.bounds) == CONTROL) or (
            on is not None and on.editable and code in (66, 160))  # ENTER sends the box
    else:
        # cannot be classified: on a control, or in a field (KEYCODE_PASTE fills it)
        expected = on is not None and on.enabled and code not in HARMLESS_KEYCODES
    assert asked(obs, InputEffect("key", code=code)) == expected


@FAST
@given(text=st.text(min_size=1, max_size=40), submit=st.booleans())
def test_typing_asks_only_when_its_enter_sends_the_message(text, submit) -> None:
    obs = focus(screen("send"), "box")
    assert asked(obs, InputEffect("type", text=text, field=obs.focused,
                                  submit=submit)) == submit
