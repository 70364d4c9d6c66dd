"""Segments of a bundle: where the first screen ends, and what may follow a screen change."""

from __future__ import annotations

import pytest
from PIL import Image

from omg_agent.brain.segments import anchor_element, blind_reason, missing_anchors, segment_end
from omg_agent.core.actions import AnchorTarget, is_boundary, parse_action
from omg_agent.core.geometry import Bounds, ScreenGeometry
from omg_agent.core.observation import Observation, UIElement
from omg_agent.perception.anchor import Anchorer, match_anchor

FIELD = UIElement(1, "android.widget.EditText", "input", Bounds(0, 100, 1000, 200),
                  resource_id="com.omg.login:id/username", clickable=True, editable=True)
SWITCH = UIElement(2, "android.widget.Switch", "switch", Bounds(800, 300, 1000, 400),
                   resource_id="com.android.settings:id/wifi_switch", clickable=True,
                   checkable=True)
BUTTON = UIElement(3, "android.widget.Button", "button", Bounds(0, 500, 1000, 600),
                   text="Sign in", resource_id="com.omg.login:id/sign_in", clickable=True)
OFF = UIElement(4, "android.widget.Switch", "switch", Bounds(800, 700, 1000, 800),
                checkable=True, enabled=False)
OBS = Observation(Image.new("RGB", (1000, 1000)), (FIELD, SWITCH, BUTTON, OFF))


def acts(*raw: dict) -> list:
    return [parse_action(a) for a in raw]


def tap(**target) -> dict:
    return {"type": "tap", "target": target}


@pytest.mark.parametrize(("element", "boundary"), [
    (FIELD, False), (SWITCH, False), (BUTTON, True), (OFF, True), (None, True)])
def test_a_tap_is_a_boundary_unless_it_lands_on_a_field_or_a_switch(element, boundary) -> None:
    assert is_boundary(parse_action(tap(kind="element", id=1)), element) is boundary


def test_the_first_segment_runs_through_field_and_switch_taps_to_the_button() -> None:
    bundle = acts(tap(kind="element", id=1), {"type": "type", "text": "demo"},
                  tap(kind="point", x=900, y=350), tap(kind="element", id=3),
                  {"type": "launch", "app": "Notes"})
    assert segment_end(bundle, 0, OBS) == 3
    assert segment_end(bundle, 4, OBS) == 4
    # without the screen nothing is known about the elements: every tap ends the segment
    assert segment_end(bundle, 0, None) == 0


@pytest.mark.parametrize(("segment", "why"), [
    ([tap(kind="anchor", text="Wi-Fi")], ""),
    ([{"type": "launch", "app": "Notes"}], ""),
    ([{"type": "scan"}], ""),  # it finds the list itself, or fails saying there is none
    ([{"type": "type", "text": "x", "target": {"kind": "anchor", "resource_id": "q"}},
      {"type": "key", "key": "enter"}], ""),
    ([{"type": "mem_save", "key": "p", "from_screen": {
        "target": {"kind": "anchor", "resource_id": "price"}}}], ""),
    ([tap(kind="element", id=3)], "element [3] of the old screen"),
    ([tap(kind="point", x=1, y=2)], "point 1,2 of the old screen"),
    ([{"type": "back"}], "nobody has seen"),
    ([{"type": "type", "text": "x"}], "nobody has seen"),
    ([{"type": "swipe", "direction": "up"}], "nobody has seen"),
    ([{"type": "mem_save", "key": "p", "from_screen": {
        "region": {"left": 0, "top": 0, "right": 10, "bottom": 10}}}], "nobody has seen"),
])
def test_only_anchored_or_screen_free_actions_follow_a_screen_change(segment, why) -> None:
    reason = blind_reason(acts(*segment))
    assert (why in reason and reason) if why else reason == ""


def test_missing_anchors_are_named() -> None:
    segment = acts({"type": "type", "text": "x", "target": {"kind": "anchor",
                                                             "resource_id": "username"}},
                   tap(kind="anchor", text="Register"))
    assert missing_anchors(segment, OBS) == ["anchor text='Register'"]


# -- one anchor matcher: the operator's segments find what the drivers' Anchorer finds ------
LABEL = UIElement(5, "android.widget.TextView", "text", Bounds(20, 860, 400, 900),
                  text="Settings")
ROW = UIElement(6, "android.widget.LinearLayout", "row", Bounds(0, 850, 1000, 950),
                clickable=True)
SETTINGS = Observation(Image.new("RGB", (1000, 1000)), (LABEL, ROW))


@pytest.mark.parametrize("anchor", [
    {"text": "settings"}, {"text": "Ｓｅｔｔｉｎｇｓ"}, {"text": "sett", "match": "contains"}])
def test_an_anchor_names_the_same_element_in_segments_and_in_the_drivers(anchor) -> None:

    target = AnchorTarget(kind="anchor", **anchor)
    found = match_anchor(target, SETTINGS.elements)
    assert found is not None and found.element is LABEL and found.target is ROW
    assert anchor_element(target, SETTINGS) is ROW  # the operator's segments
    resolved = Anchorer(ScreenGeometry(1000, 1000)).resolve(target, SETTINGS)  # the drivers
    assert resolved.element is ROW and resolved.source == "tree"
    tapped = acts(tap(kind="anchor", **anchor))
    assert missing_anchors(tapped, SETTINGS) == []


def test_an_anchor_the_screen_does_not_show_is_missing_for_segments_and_drivers() -> None:
    target = AnchorTarget(kind="anchor", text="Display")
    assert match_anchor(target, SETTINGS.elements) is None
    assert missing_anchors(acts(tap(kind="anchor", text="Display")), SETTINGS) == [
        "anchor text='Display'"]
