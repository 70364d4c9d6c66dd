"""The slim schema sent as ``response_format`` (issue 27, token diet): smaller, still a
valid JSON schema for real replies, OpenAI-strict when asked — and our own validation of a
reply is exactly as strict as before."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel, ValidationError

from omg_agent.brain import prompts
from omg_agent.core.contracts import (
    CONTRACTS,
    DecisionBundle,
    Replan,
    TaskPlan,
    TaskStep,
    drop_nulls,
    response_format,
)
from omg_agent.core.schema_slim import VALIDATION_ONLY, slim_json_schema
from omg_agent.core.schema_slim import response_format as slim_format

ACTIONS = [
    {"type": "tap", "target": {"kind": "anchor", "text": "Save", "match": "contains"}},
    {"type": "type", "text": "$q", "target": {"kind": "element", "id": 2}, "submit": True},
    {"type": "swipe", "direction": "up", "distance": 600, "start": {"kind": "point",
                                                                    "x": 500, "y": 700}},
    {"type": "mem_save", "key": "price", "from_screen": {"region": {
        "left": 0, "top": 100, "right": 500, "bottom": 200}}},
    {"type": "key", "key": "enter"},
]
REPLIES: list[BaseModel] = [
    DecisionBundle.model_validate({
        "thought": "search", "last_action_result": "none", "todo": ["[ ] search"],
        "end_checks": [{"kind": "element", "text": "Cart", "shows": "2"},
                       {"kind": "element", "desc": "Like post 10", "selected": True},
                       {"kind": "app", "app": "Shop"}, {"kind": "memory", "key": "price"}],
        "execute_now": {"intent": "find it", "actions": ACTIONS}}),
    DecisionBundle.model_validate({"thought": "t", "last_action_result": "success",
                                   "execute_now": {"intent": "i", "actions": [
                                       {"type": "scan", "count": 8},
                                       {"type": "wait", "seconds": 1}]}}),
    TaskPlan(goal="g", steps=[TaskStep(description="Open Shop", success_criteria="shown",
                                       data_output="p", on_fail="jump_to:1")]),
    Replan(status="done", response="done"),
]


def _walk(node: Any, path: str = "$"):
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _walk(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, f"{path}[{i}]")


@pytest.mark.parametrize("reply", REPLIES, ids=lambda r: type(r).__name__)
@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict"])
def test_real_replies_are_valid_under_the_slim_schema(reply: BaseModel, strict: bool) -> None:
    schema = slim_json_schema(type(reply), strict=strict)
    jsonschema.Draft202012Validator.check_schema(schema)
    sent = json.loads(reply.model_dump_json(by_alias=True, exclude_none=not strict))
    jsonschema.validate(sent, schema)
    assert type(reply).model_validate(drop_nulls(sent)) == reply


def test_the_slim_schema_still_refuses_an_action_without_its_type_or_an_unknown_action() -> None:
    schema = slim_json_schema(DecisionBundle)
    for action in ({"target": {"kind": "element", "id": 3}}, {"type": "fly"}):
        reply = {"thought": "t", "last_action_result": "none",
                 "execute_now": {"intent": "i", "actions": [action]}}
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(reply, schema)


@pytest.mark.parametrize("model", CONTRACTS)
def test_the_strict_flavour_follows_openai_strict_rules(model: type[BaseModel]) -> None:
    fmt = slim_format(model, strict=True)
    assert fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    assert schema["type"] == "object" and "anyOf" not in schema
    for path, node in _walk(schema):
        if not isinstance(node, dict) or path.endswith((".properties", ".$defs")):
            continue
        assert "oneOf" not in node and "default" not in node and "minLength" not in node, path
        if "$ref" in node:
            assert list(node) == ["$ref"], path
        if "enum" in node:
            assert node.get("type") in ("string", "integer", "number", "boolean"), path
        if "properties" in node:
            assert node["type"] == "object" and node["additionalProperties"] is False, path
            assert sorted(node["required"]) == sorted(node["properties"]), path


def test_the_plain_schema_is_half_the_compact_one_and_carries_no_validation_keywords() -> None:
    compact = json.dumps(response_format(DecisionBundle), separators=(",", ":"))
    slim = json.dumps(slim_format(DecisionBundle), separators=(",", ":"))
    assert len(slim) <= 0.55 * len(compact)
    closed = '"additionalProperties":false'  # kept on the actions only (issue 40)
    assert slim.count(closed) == 15
    assert [k for k in VALIDATION_ONLY if f'"{k}"' in slim.replace(closed, "")] == []


@pytest.mark.parametrize("action", [
    {"type": "mem_save", "name": "price", "value": "9"},
    {"type": "scan", "target": {"kind": "element", "id": 3}},
    {"type": "tap", "element": 3},
])
def test_the_plain_schema_is_a_union_of_actions_each_with_only_its_own_fields(
        action: dict[str, Any]) -> None:
    # issue 40: one merged object let models write mem_save.name or scan.target
    schema = slim_json_schema(DecisionBundle)
    union = schema["properties"]["execute_now"]["properties"]["actions"]["items"]["anyOf"]
    assert len(union) == 15
    reply = {"thought": "t", "last_action_result": "none",
             "execute_now": {"intent": "i", "actions": [action]}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(reply, schema)


@pytest.mark.parametrize("bad", [
    {"thought": "", "last_action_result": "none", "goal_complete": True},  # empty thought
    {"thought": "t", "last_action_result": "none",  # six actions
     "execute_now": {"intent": "i", "actions": [{"type": "back"}] * 6}},
    {"thought": "t", "last_action_result": "none",  # a point off the 0–1000 screen
     "execute_now": {"intent": "i", "actions": [
         {"type": "tap", "target": {"kind": "point", "x": 1200, "y": 5}}]}},
    {"thought": "t", "last_action_result": "none",  # a key no phone has
     "execute_now": {"intent": "i", "actions": [{"type": "key", "key": "volume up"}]}},
    {"thought": "t", "last_action_result": "none",  # a memory key that is no name
     "execute_now": {"intent": "i", "actions": [
         {"type": "mem_save", "key": "2 price", "value": "9"}]}},
])
def test_what_the_slim_schema_no_longer_says_our_validation_still_refuses(
        bad: dict[str, Any]) -> None:
    jsonschema.validate(bad, slim_json_schema(DecisionBundle))  # the model may write it…
    with pytest.raises(ValidationError):  # …and gets the error back, as before
        DecisionBundle.model_validate(bad)


def _undescribed(node: Any, out: set[str]) -> set[str]:
    """Property names with no description in ``node`` (not below a described property)."""
    if isinstance(node, list):
        for n in node:
            _undescribed(n, out)
    elif isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            if "description" not in sub:
                out.add(name)
                _undescribed(sub, out)
        for k, v in node.items():
            if k not in ("properties", "description"):
                _undescribed(v, out)
    return out


def test_every_field_the_schema_does_not_describe_is_named_in_the_operator_prompt() -> None:
    text = prompts.operator_system("unified")
    fields = _undescribed(slim_json_schema(DecisionBundle), set())
    assert "shows" not in fields and {"thought", "scan", "count"} - fields == {"scan"}
    named = ["`{}`", "`{}:", '"{}"']  # `count`, `present: false`, {"kind": …}
    assert [f for f in sorted(fields) if not any(n.format(f) in text for n in named)] == []
