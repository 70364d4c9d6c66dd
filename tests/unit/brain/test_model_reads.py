"""What the model reads (issue 40): every field it must write is named in the prompt and
the schema, a refused reply costs no step and its feedback names the right field.

FakeDriver screens, the real openai client on httpx.MockTransport."""

from __future__ import annotations

import re
import typing
from typing import Any

import pytest
from pydantic import BaseModel

from omg_agent.brain import prompts
from omg_agent.brain.structured import InvalidReply, parse_reply
from omg_agent.core.actions import Action, AnchorTarget, ElementTarget, FromScreen, \
    PointTarget, Region
from omg_agent.core.contracts import DecisionBundle

from .fakes import FakeWorld, ScriptedModel, bundle, el, orchestrator, tap

UNION = typing.get_args(typing.get_args(Action)[0])


def _fields(model: type[BaseModel], skip: tuple[str, ...] = ("type", "kind")) -> list[str]:
    return [f.alias or n for n, f in model.model_fields.items() if n not in skip]


def _named_with(text: str, name: str) -> str:
    """What the prompt writes in parentheses right after `name`: its fields."""
    found = re.search(rf"`{name}` \(([^)]*)\)", text)
    return found.group(1) if found else ""


@pytest.mark.parametrize("mode", ["unified", "flat"])
def test_the_operator_prompt_names_every_field_of_every_action_type(mode: str) -> None:
    text = prompts.operator_system(mode)
    missing = []
    for member in UNION:
        name = typing.get_args(member.model_fields["type"].annotation)[0]
        fields = _fields(member)
        said = _named_with(text, name)
        missing += [f"{name}.{f}" for f in fields if f"`{f}`" not in said]
        if not fields:
            assert f"`{name}`" in text, name
    for nested in (PointTarget, ElementTarget, AnchorTarget, FromScreen, Region):
        missing += [f"{nested.__name__}.{f}" for f in _fields(nested)
                    if f"`{f}`" not in text and f'"{f}"' not in text]
    assert missing == []


@pytest.mark.parametrize("mode", ["unified", "flat"])
def test_the_operator_prompt_names_every_field_of_the_reply(mode: str) -> None:
    text = prompts.operator_system(mode)
    expected = _fields(DecisionBundle) + ["intent", "actions"]
    if mode == "flat":  # no checklist there, but it is told to leave them unset
        assert "Leave `todo`, `end_checks`" in text
    assert [f for f in expected if f"`{f}`" not in text] == []


@pytest.mark.parametrize(("action", "says"), [
    ({"type": "mem_save", "name": "price", "value": "9"},
     "execute_now.actions.0: mem_save needs `key` (not `name`)"),
    ({"type": "scan", "target": {"kind": "element", "id": 3}},
     "scan has no `target` (its fields: `count`, `until_text`)"),
    ({"type": "tap", "element": 3}, "execute_now.actions.0: tap needs `target` (not `element`)"),
    ({"type": "back", "x": 1}, "back has no `x` (it has no other field)"),
])
def test_a_refused_action_is_told_the_field_it_should_have_written(
        action: dict[str, Any], says: str) -> None:
    reply = bundle(action)
    with pytest.raises(InvalidReply) as info:
        parse_reply(__import__("json").dumps(reply), DecisionBundle)
    assert says in str(info.value)
    assert "Extra inputs are not permitted" not in str(info.value)


def _world() -> FakeWorld:
    def move(screen: str, action: Any, element: Any) -> str:
        return "saved" if element is not None and element.text == "Save" else screen

    return FakeWorld({"form": ("com.example.notes", [el(1, "Price 42"), el(2, "Save")]),
                      "saved": ("com.example.notes", [el(1, "Saved")])}, move, "form")


@pytest.mark.parametrize("mode", ["unified", "flat"])
def test_a_validation_retry_costs_no_step_and_names_the_right_field(mode: str) -> None:
    def run(first_wrong: bool) -> tuple[int, list[str]]:
        replies = iter(([bundle({"type": "mem_save", "name": "price", "value": "42"})]
                        if first_wrong else [])
                       + [bundle({"type": "mem_save", "key": "price", "value": "42"}),
                          bundle(tap("Save")), bundle(goal_complete=True, answer="saved")])
        feedback: list[str] = []

        def policy(contract: str, text: str, body: dict[str, Any]) -> Any:
            if contract != "DecisionBundle":
                return {"status": "done", "response": "saved"}
            if "could not be used" in text:
                feedback.append(text)
            return next(replies)

        model = ScriptedModel(policy)
        with orchestrator(_world(), model, planning=mode, confirm_done="never") as orch:
            result = orch.run("save the price")
        assert result.status == "done", result
        return result.steps_used, feedback

    clean, none = run(False)
    retried, feedback = run(True)
    assert none == [] and retried == clean
    assert len(feedback) == 1 and "mem_save needs `key` (not `name`)" in feedback[0]
