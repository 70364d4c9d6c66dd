"""LLM contracts: field rules, consistency between fields, and the schemas sent to models."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel, ValidationError

from omg_agent.core.contracts import (
    CONTRACTS,
    DecisionBundle,
    ExecuteNow,
    Replan,
    TaskPlan,
    TaskStep,
)
from omg_agent.core.wire_schema import drop_nulls, json_schema, response_format, strict_schema

STEP = {"description": "Open Shop", "success_criteria": "the Shop home is shown"}
TAP = {"type": "tap", "target": {"kind": "element", "id": 3}}
TYPE = {"type": "type", "text": "$query", "target": {"kind": "element", "id": 2}}


def bundle(**kw: Any) -> dict[str, Any]:
    data = {"thought": "I see the list", "last_action_result": "success",
            "execute_now": {"intent": "open the item", "actions": [TAP]}}
    data.update(kw)
    return data


# -- TaskStep / TaskPlan ------------------------------------------------------------------
@pytest.mark.parametrize("on_fail,jump", [("retry", None), ("replan", None),
                                          ("ask_user", None), ("abort", None),
                                          ("jump_to:2", 2), (" Jump_To:1 ", 1)])
def test_on_fail_accepts_the_five_forms(on_fail: str, jump: int | None) -> None:
    step = TaskStep(**STEP, on_fail=on_fail)
    assert step.jump_target == jump


@pytest.mark.parametrize("on_fail", ["jump_to:0", "jump_to:x", "skip", "jump_to", ""])
def test_on_fail_rejects_anything_else_and_says_what_is_allowed(on_fail: str) -> None:
    with pytest.raises(ValidationError, match="retry, jump_to:N"):
        TaskStep(**STEP, on_fail=on_fail)


def test_a_jump_must_land_inside_the_plan() -> None:
    with pytest.raises(ValidationError, match="only 2 steps"):
        TaskPlan(steps=[TaskStep(**STEP), TaskStep(**STEP, on_fail="jump_to:3")])
    assert TaskPlan(steps=[TaskStep(**STEP), TaskStep(**STEP, on_fail="jump_to:1")])


def test_complexity_sets_tries_and_time() -> None:
    assert [TaskStep(**STEP, complexity=c).max_tries for c in (1, 3, 5)] == [3, 8, 15]
    assert TaskStep(**STEP, complexity=5, timeout_s=30).time_budget_s == 120
    assert TaskStep(**STEP, complexity=1, timeout_s=300).time_budget_s == 300
    with pytest.raises(ValidationError):
        TaskStep(**STEP, complexity=6)


def test_a_plan_needs_a_step_and_a_checkable_criterion() -> None:
    with pytest.raises(ValidationError, match="at least 1"):
        TaskPlan(steps=[])
    with pytest.raises(ValidationError, match="success_criteria"):
        TaskStep(description="x")


def test_data_output_is_a_memory_key() -> None:
    assert TaskStep(**STEP, data_output="mac_price").data_output == "mac_price"
    with pytest.raises(ValidationError, match="data_output"):
        TaskStep(**STEP, data_output="mac price")


def test_todo_markdown_ticks_the_done_steps() -> None:
    plan = TaskPlan(steps=[TaskStep(**STEP), TaskStep(description="Save", success_criteria="s")])
    assert plan.todo_markdown({1}) == "- [x] 1. Open Shop\n- [ ] 2. Save"


# -- ExecuteNow / DecisionBundle ----------------------------------------------------------
def test_a_bundle_holds_one_to_five_actions() -> None:
    assert len(ExecuteNow(intent="x", actions=[TYPE] * 5).actions) == 5
    with pytest.raises(ValidationError, match="at most 5"):
        ExecuteNow(intent="x", actions=[TYPE] * 6)
    with pytest.raises(ValidationError, match="at least 1"):
        ExecuteNow(intent="x", actions=[])


def test_ask_user_and_done_end_a_bundle() -> None:
    with pytest.raises(ValidationError, match="must be the last action"):
        ExecuteNow(intent="x", actions=[{"type": "ask_user", "question": "Which?"}, TAP])
    assert ExecuteNow(intent="x", actions=[TYPE, {"type": "ask_user", "question": "Which?"}])


def test_boundary_index_is_the_first_screen_changing_action() -> None:
    now = ExecuteNow(intent="x", actions=[TYPE, TYPE, TAP, TYPE])
    assert now.boundary_index == 2
    assert ExecuteNow(intent="x", actions=[TYPE, TYPE]).boundary_index == 1


def test_a_turn_that_does_not_finish_must_act() -> None:
    with pytest.raises(ValidationError, match="execute_now is required"):
        DecisionBundle.model_validate(bundle(execute_now=None))
    done = DecisionBundle.model_validate(bundle(execute_now=None, step_complete=True))
    assert done.finishes_step and done.actions == []


def test_a_done_action_completes_the_goal_and_carries_the_answer() -> None:
    parsed = DecisionBundle.model_validate(bundle(execute_now={
        "intent": "finish", "actions": [{"type": "mem_save", "key": "p", "value": "9"},
                                        {"type": "done", "answer": "It costs 9"}]}))
    assert parsed.goal_complete and parsed.answer == "It costs 9"


def test_the_goal_cannot_be_complete_with_device_actions_pending() -> None:
    with pytest.raises(ValidationError, match="no device actions remain"):
        DecisionBundle.model_validate(bundle(goal_complete=True))
    with pytest.raises(ValidationError, match="no device actions remain"):
        DecisionBundle.model_validate(bundle(execute_now={
            "intent": "x", "actions": [TAP, {"type": "done"}]}))


def test_last_action_result_is_one_of_four() -> None:
    with pytest.raises(ValidationError, match="last_action_result"):
        DecisionBundle.model_validate(bundle(last_action_result="ok"))


# -- Replan -------------------------------------------------------------------------------
def test_replanned_needs_a_plan_and_done_needs_a_response() -> None:
    with pytest.raises(ValidationError, match="needs a plan"):
        Replan(status="replanned")
    with pytest.raises(ValidationError, match="needs a response"):
        Replan(status="done", response="  ")
    with pytest.raises(ValidationError, match="must not carry a plan"):
        Replan(status="done", response="ok", plan=TaskPlan(steps=[TaskStep(**STEP)]))
    assert Replan(status="replanned", plan={"steps": [STEP]}).plan is not None
    assert Replan(status="done", response="The price is 9").plan is None


# -- schemas ------------------------------------------------------------------------------
def _fields_without_description(model: type[BaseModel], seen: set[type]) -> list[str]:
    if model in seen:
        return []
    seen.add(model)
    missing = [f"{model.__name__}.{name}" for name, f in model.model_fields.items()
               if not f.description]
    for f in model.model_fields.values():
        for arg in _model_args(f.annotation):
            missing += _fields_without_description(arg, seen)
    return missing


def _model_args(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    out: list[type[BaseModel]] = []
    for arg in getattr(annotation, "__args__", ()) + getattr(annotation, "__metadata__", ()):
        out += _model_args(arg)
    return out


def test_every_contract_field_is_described() -> None:
    seen: set[type] = set()
    missing = [m for model in CONTRACTS + (ExecuteNow, TaskStep)
               for m in _fields_without_description(model, seen)]
    assert [m for m in missing if m.split(".")[0] in
            {"TaskPlan", "TaskStep", "DecisionBundle", "ExecuteNow", "Replan"}] == []


def test_response_format_has_the_openai_shape() -> None:
    fmt = response_format(DecisionBundle)
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "DecisionBundle"
    assert fmt["json_schema"]["strict"] is False
    schema = fmt["json_schema"]["schema"]
    assert set(schema["properties"]) == {"thought", "last_action_result", "execute_now",
                                         "step_complete", "goal_complete", "goal_infeasible",
                                         "user_declined", "answer", "plan_outdated", "todo",
                                         "end_checks", "look"}
    assert "Tap" in schema["$defs"] and "ExecuteNow" in schema["$defs"]
    json.dumps(fmt)  # JSON-ready


def _walk(node: Any, path: str = "$"):
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _walk(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, f"{path}[{i}]")


@pytest.mark.parametrize("model", CONTRACTS)
def test_strict_schema_follows_openai_strict_rules(model: type[BaseModel]) -> None:
    schema = response_format(model, strict=True)["json_schema"]["schema"]
    for path, node in _walk(schema):
        if not isinstance(node, dict) or path.endswith(".properties"):
            continue
        assert "oneOf" not in node and "discriminator" not in node, path
        assert "default" not in node, path
        if "$ref" in node:
            assert list(node) == ["$ref"], f"{path}: $ref with siblings"
        if node.get("type") == "object":
            assert node["additionalProperties"] is False, path
            assert sorted(node["required"]) == sorted(node["properties"]), path


def _valid(instance: Any, schema: dict[str, Any], root: dict[str, Any]) -> bool:
    """A small JSON-schema check for the keywords our schemas use."""
    if "$ref" in schema:
        return _valid(instance, root["$defs"][schema["$ref"].rsplit("/", 1)[-1]], root)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            hits = sum(_valid(instance, s, root) for s in schema[key])
            if hits == 0 or (key == "oneOf" and hits > 1):
                return False
    if "enum" in schema and instance not in schema["enum"]:
        return False
    if "const" in schema and instance != schema["const"]:
        return False
    kinds = {"object": dict, "array": list, "string": str, "boolean": bool,
             "integer": int, "number": (int, float), "null": type(None)}
    kind = schema.get("type")
    if kind is not None:
        if not isinstance(instance, kinds[kind]):
            return False
        if kind in ("integer", "number") and isinstance(instance, bool):
            return False
    if isinstance(instance, (int, float)) and not isinstance(instance, bool):
        if instance < schema.get("minimum", float("-inf")):
            return False
        if instance > schema.get("maximum", float("inf")):
            return False
    if isinstance(instance, list):
        if not schema.get("minItems", 0) <= len(instance) <= schema.get("maxItems", 10**9):
            return False
        if "items" in schema and not all(_valid(i, schema["items"], root) for i in instance):
            return False
    if isinstance(instance, dict) and "properties" in schema:
        props = schema["properties"]
        if any(r not in instance for r in schema.get("required", [])):
            return False
        if schema.get("additionalProperties") is False and set(instance) - set(props):
            return False
        return all(_valid(v, props[k], root) for k, v in instance.items() if k in props)
    return True


SAMPLES: list[BaseModel] = [
    DecisionBundle.model_validate(bundle(execute_now={"intent": "search", "actions": [
        TYPE, {"type": "swipe", "direction": "up"}]})),
    DecisionBundle.model_validate(bundle(execute_now={"intent": "read", "actions": [
        {"type": "mem_save", "key": "price", "from_screen": {"target": 12}},
        {"type": "key", "key": "enter"},
        {"type": "swipe", "from": [500, 800], "to": [500, 200]}]})),
    DecisionBundle.model_validate(bundle(execute_now=None, goal_complete=True, answer="9")),
    TaskPlan(goal="g", steps=[TaskStep(**STEP, data_output="p", on_fail="jump_to:1")]),
    Replan(status="replanned", plan={"steps": [STEP]}),
    Replan(status="done", response="done"),
]


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: type(s).__name__)
@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict"])
def test_real_replies_match_the_schema_and_read_back(sample: BaseModel, strict: bool) -> None:
    schema = json_schema(type(sample), strict=strict)
    # A strict reply writes every field, null for "not given"; a plain one leaves them out.
    reply = json.loads(sample.model_dump_json(by_alias=True, exclude_none=not strict))
    assert _valid(reply, schema, schema)
    assert type(sample).model_validate(drop_nulls(reply)) == sample


def test_the_strict_schema_keeps_union_tags_required_and_non_null() -> None:
    swipe = json_schema(DecisionBundle, strict=True)["$defs"]["Swipe"]["properties"]
    assert swipe["type"] == {"type": "string", "enum": ["swipe"]}
    assert {"type": "null"} in swipe["distance"]["anyOf"]


def test_strict_schema_does_not_modify_its_input() -> None:
    schema = json_schema(Replan)
    before = json.dumps(schema, sort_keys=True)
    strict_schema(schema)
    assert json.dumps(schema, sort_keys=True) == before


# -- the compact schema (issue 27: it goes out with every request) --------------------------
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: type(s).__name__)
@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict"])
def test_the_compact_schema_accepts_real_replies_under_a_real_validator(
        sample: BaseModel, strict: bool) -> None:
    schema = json_schema(type(sample), strict=strict)
    reply = json.loads(sample.model_dump_json(by_alias=True, exclude_none=not strict))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(reply, schema)


def test_the_compact_schema_still_refuses_an_action_without_its_type() -> None:
    schema = json_schema(DecisionBundle)
    reply = bundle(execute_now={"intent": "go", "actions": [{"target": {"kind": "element",
                                                                        "id": 3}}]})
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(reply, schema)


@pytest.mark.parametrize("model", CONTRACTS)
def test_the_compact_schema_is_much_smaller_and_carries_no_pydantic_noise(
        model: type[BaseModel]) -> None:
    full = json.dumps(response_format(model, compact=False))
    sent = json.dumps(response_format(model))
    assert len(sent) < 0.8 * len(full)
    for word in ('"title"', '"discriminator"', '"default"', '"in_prompt"'):
        assert word not in sent


def test_the_decision_bundle_schema_is_at_most_half_of_pydantics() -> None:
    full = json.dumps(response_format(DecisionBundle, compact=False))
    assert len(json.dumps(response_format(DecisionBundle))) <= 0.55 * len(full)


def test_each_description_the_compact_schema_leaves_out_is_in_the_operator_prompt() -> None:
    from omg_agent.brain import prompts

    text = prompts.operator_system("unified")
    sent = json_schema(DecisionBundle)["properties"]
    left_out = [name for name, node in sent.items() if "description" not in node]
    assert left_out and all(f"`{name}`" in text for name in left_out), left_out


def test_a_union_used_in_many_places_is_written_once() -> None:
    schema = json_schema(DecisionBundle)
    assert json.dumps(schema).count('"#/$defs/PointTarget"') == 1
    assert schema["$defs"]["Tap"]["properties"]["target"]["$ref"] == "#/$defs/Target"
