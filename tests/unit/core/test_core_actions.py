"""The action space: JSON round trips, helpful rejections, the schema, semantic boundaries."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from omg_agent.core.actions import (
    AnchorTarget,
    AskUser,
    Back,
    Done,
    ElementTarget,
    Key,
    Launch,
    MemSave,
    PointTarget,
    Swipe,
    Tap,
    TypeText,
    Wait,
    action_schema,
    dump_action,
    ends_bundle,
    is_boundary,
    parse_action,
)

ONE_OF_EACH = [
    {"type": "tap", "target": {"kind": "point", "x": 500, "y": 120}},
    {"type": "long_press", "target": {"kind": "element", "id": 4}, "duration_ms": 1200},
    {"type": "double_tap", "target": {"kind": "anchor", "text": "图片", "match": "contains"}},
    {"type": "swipe", "from": {"kind": "point", "x": 500, "y": 800},
     "to": {"kind": "point", "x": 500, "y": 200}},
    {"type": "swipe", "direction": "up", "distance": 600,
     "start": {"kind": "element", "id": 2}},
    {"type": "type", "text": "price is $mac_price, id ${order_id}!", "clear": True},
    {"type": "type", "text": "", "clear": True,
     "target": {"kind": "anchor", "resource_id": "com.omg.login:id/username"}},
    {"type": "key", "key": "enter"},
    {"type": "key", "key": 84},
    {"type": "launch", "app": "设置"},
    {"type": "back"},
    {"type": "home"},
    {"type": "wait", "seconds": 2.5},
    {"type": "mem_save", "key": "mac_price", "value": "¥9,999"},
    {"type": "mem_save", "key": "total",
     "from_screen": {"region": {"left": 0, "top": 100, "right": 1000, "bottom": 200}}},
    {"type": "mem_save", "key": "title", "from_screen": {"target": {"kind": "element", "id": 3}}},
    {"type": "ask_user", "question": "Which address should I use?"},
    {"type": "done", "answer": "Wi-Fi is off."},
    {"type": "macro", "name": "feed-like", "count": 20},
    {"type": "scan", "until_text": "Post 40"},
]


@pytest.mark.parametrize("data", ONE_OF_EACH, ids=lambda d: d["type"])
def test_every_action_round_trips_through_json(data):
    action = parse_action(data)
    assert action.type == data["type"]
    text = json.dumps(dump_action(action), ensure_ascii=False)
    assert parse_action(text) == action
    assert parse_action(dump_action(action)) == action


def test_every_action_type_is_covered_by_the_round_trip_cases():
    mapping = action_schema()["discriminator"]["mapping"]
    assert set(mapping) == {d["type"] for d in ONE_OF_EACH}


def _reject(data) -> str:
    with pytest.raises(ValidationError) as info:
        parse_action(data)
    return str(info.value)


@pytest.mark.parametrize("data, field", [
    ({"type": "tap", "target": {"kind": "point", "x": 1200, "y": 3}}, "tap.target.point.x"),
    ({"type": "tap", "target": {"kind": "point", "x": 5, "y": -1}}, "tap.target.point.y"),
    ({"type": "tap"}, "tap.target"),
    ({"type": "tap", "target": [1, 2], "where": 1}, "tap.where"),
    ({"type": "tap", "target": {"kind": "element", "id": 0}}, "tap.target.element.id"),
    ({"type": "tap", "target": {"kind": "anchor"}}, "tap.target.anchor"),
    ({"type": "tap", "target": {"kind": "anchor", "text": "(", "match": "regex"}}, "text"),
    ({"type": "swipe"}, "swipe"),
    ({"type": "swipe", "direction": "up", "from": [1, 2], "to": [3, 4]}, "swipe"),
    ({"type": "swipe", "direction": "sideways"}, "swipe.direction"),
    ({"type": "type", "text": ""}, "type"),
    ({"type": "key", "key": "bogus"}, "key.key"),
    ({"type": "key", "key": 100000}, "key.key"),
    ({"type": "launch", "app": ""}, "launch.app"),
    ({"type": "wait", "seconds": 0}, "wait.seconds"),
    ({"type": "wait", "seconds": 3600}, "wait.seconds"),
    ({"type": "mem_save", "key": "two words", "value": "x"}, "mem_save.key"),
    ({"type": "mem_save", "key": "k"}, "mem_save"),
    ({"type": "mem_save", "key": "k", "value": "v", "from_screen": {"target": 3}}, "mem_save"),
    ({"type": "mem_save", "key": "k",
      "from_screen": {"region": {"left": 500, "top": 0, "right": 100, "bottom": 10}}},
     "mem_save.from_screen.region"),
    ({"type": "ask_user", "question": ""}, "ask_user.question"),
    ({"type": "fly"}, "'fly'"),
    ({"kind": "tap"}, "type"),
])
def test_bad_actions_are_rejected_naming_the_field(data, field):
    assert field in _reject(data)


def test_short_target_forms_models_write_are_accepted():
    assert parse_action({"type": "tap", "target": [250, 750]}).target == PointTarget(x=250,
                                                                                     y=750)
    assert parse_action({"type": "tap", "target": 7}).target == ElementTarget(id=7)
    assert parse_action({"type": "tap", "target": {"x": 1, "y": 2}}).target == PointTarget(
        x=1, y=2)
    assert parse_action({"type": "tap", "target": {"id": 3}}).target == ElementTarget(id=3)
    assert parse_action({"type": "tap", "target": "text=Save"}).target == AnchorTarget(
        text="Save")
    assert parse_action({"type": "tap", "target": "resource-id=a:id/b"}).target == \
        AnchorTarget(resource_id="a:id/b")
    assert parse_action({"type": "tap", "target": {"desc": "Close", "match": "contains"}}
                        ).target == AnchorTarget(desc="Close", match="contains")


def test_key_names_aliases_and_keycodes():
    assert Key(key="ENTER").keycode == 66
    assert Key(key="KEYCODE_BACK").keycode == 4
    assert Key(key="backspace").key == "delete"
    assert Key(key="187").keycode == 187
    assert Key(key=24).keycode == 24


def test_typed_text_lists_its_memory_variables():
    action = TypeText(text="send $amount to ${who} ($$ not a var: $1)")
    assert action.variables == ["amount", "who"]


def test_actions_are_frozen():
    action = Tap(target=ElementTarget(id=1))
    with pytest.raises(ValidationError):
        action.target = ElementTarget(id=2)  # type: ignore[misc]


def test_swipe_accepts_python_name_and_json_alias():
    a = Swipe(from_=PointTarget(x=1, y=2), to=PointTarget(x=3, y=4))
    assert dump_action(a)["from"] == {"kind": "point", "x": 1, "y": 2}
    assert parse_action(dump_action(a)) == a


def _walk_properties(schema: dict):
    for name, model in schema["$defs"].items():
        for prop, spec in model.get("properties", {}).items():
            yield name, prop, spec


def test_every_field_in_the_schema_has_a_description():
    schema = action_schema()
    missing = [f"{m}.{p}" for m, p, spec in _walk_properties(schema)
               if not spec.get("description")]
    assert missing == []
    swipe = schema["$defs"]["Swipe"]["properties"]
    assert "from" in swipe and "from_" not in swipe


@pytest.mark.parametrize("action, boundary", [
    (Tap(target=ElementTarget(id=1)), True),
    (parse_action({"type": "long_press", "target": 1}), True),
    (parse_action({"type": "double_tap", "target": 1}), True),
    (Swipe(direction="up"), True),
    (Launch(app="Settings"), True),
    (Back(), True),
    (parse_action({"type": "home"}), True),
    (Key(key="enter"), True),
    (Key(key="back"), True),
    (Key(key="home"), True),
    (Key(key=66), True),
    (Key(key="recents"), True),
    (Key(key="delete"), False),
    (Key(key="volume_up"), False),
    (TypeText(text="hello"), False),
    (TypeText(text="hello", submit=True), True),
    (Wait(seconds=1), False),
    (MemSave(key="k", value="v"), False),
    (AskUser(question="?"), False),
    (Done(answer="ok"), False),
])
def test_semantic_boundaries(action, boundary):
    assert is_boundary(action) is boundary


def test_hand_offs_end_a_bundle_without_being_screen_boundaries():
    assert ends_bundle(AskUser(question="?")) and ends_bundle(Done())
    assert ends_bundle(Back()) and not ends_bundle(Wait(seconds=1))


def test_a_tap_on_a_switch_stays_on_the_screen_and_one_on_a_checkbox_does_not() -> None:
    from omg_agent.core.geometry import Bounds
    from omg_agent.core.observation import UIElement

    def box(cls: str, role: str, window: str = "") -> UIElement:
        return UIElement(1, cls, role, Bounds(0, 0, 100, 50), text="Wi-Fi", checkable=True,
                         clickable=True, window=window)

    tap = Tap(target=ElementTarget(id=1))
    assert not is_boundary(tap, box("android.widget.Switch", "switch"))
    # a to-do's tick moves its row into Completed: the next tap must be found anew
    assert is_boundary(tap, box("android.widget.CheckBox", "checkbox"))
    assert is_boundary(tap, box("com.google.android.material.chip.Chip", "checkbox"))
    assert is_boundary(tap, box("android.widget.Switch", "switch", window="popup"))
