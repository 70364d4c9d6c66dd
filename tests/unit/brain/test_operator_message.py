"""What the operator model reads each turn (issue 27, relay round 27's notes): the task said
once with no empty sections, result lines in plain words with no perception jargon, and a
short note on what each action changed.

FakeDriver screens, the real openai client on httpx.MockTransport."""

from __future__ import annotations

from typing import Any

from omg_agent.core.actions import Action
from omg_agent.core.observation import UIElement

from .fakes import (
    FakeWorld,
    Recorder,
    ScriptedModel,
    bundle,
    el,
    orchestrator,
    plan,
    tap,
    user_text,
)

TASK = "open Display in Settings"


def world() -> FakeWorld:
    """Settings: tapping Display opens its page; anything else changes nothing."""
    def move(screen: str, action: Action, element: UIElement | None) -> str:
        return "display" if element is not None and element.text == "Display" else screen

    return FakeWorld({
        "settings": ("com.android.settings", [el(1, "Wi-Fi"), el(2, "Display")]),
        "display": ("com.android.settings", [el(1, "Brightness"), el(2, "Dark theme")]),
    }, move, "settings")


def operator_texts(model: ScriptedModel) -> list[str]:
    return [user_text(r) for r in model.requests
            if r.get("response_format", {}).get("json_schema", {}).get("name")
            == "DecisionBundle"]


class Steps(Recorder):
    """The recorder, keeping each step's results (what the trace writes)."""

    def __init__(self) -> None:
        super().__init__()
        self.results: list[dict[str, Any]] = []

    def record_step(self, step: int, **data: Any) -> None:
        self.results += data.get("results", [])


def run(planning: str, *replies: dict[str, Any], planned: dict[str, Any] | None = None,
        recorder: Recorder | None = None) -> list[str]:
    queue = iter(replies)

    def policy(contract: str, text: str, body: dict[str, Any]) -> Any:
        if contract == "TaskPlan":
            return planned
        if contract == "Replan":
            return {"status": "done", "response": "open",
                    "evidence": [{"kind": "element", "text": "Dark theme"}]}
        return next(queue)

    model = ScriptedModel(policy)
    with orchestrator(world(), model, planning=planning, confirm_done="never",
                      recorder=recorder) as orch:
        orch.run(TASK)
    return operator_texts(model)


def test_a_plannerless_turn_says_the_task_once_and_no_empty_section() -> None:
    first = run("unified", bundle(tap("Display")),
                bundle(goal_complete=True, answer="open"))[0]
    assert first.count(TASK) == 1
    for empty in ("Plan:", "Current step", "Guide:", "Success criteria:"):
        assert empty not in first


def test_the_unified_operators_own_checklist_is_shown_once_it_wrote_one() -> None:
    texts = run("unified", bundle(tap("Display"), todo=["[x] open Settings", "[ ] Display"]),
                bundle(goal_complete=True, answer="open"))
    assert "Plan:\n- [x] open Settings\n- [ ] Display" in texts[1]


def test_a_planned_step_keeps_its_step_guide_and_criteria() -> None:
    step = {"description": "Open the Display page", "action_guide": "tap the Display row",
            "success_criteria": "Brightness is shown"}
    first = run("adaptive", bundle(tap("Display")), bundle(step_complete=True),
                planned=plan(step))[0]
    assert "Current step 1: Open the Display page" in first
    assert "Guide: tap the Display row" in first
    assert "Success criteria: Brightness is shown" in first
    assert "Plan:\n- [ ] 1. Open the Display page" in first


# -- result lines -------------------------------------------------------------------------
def test_a_result_line_says_what_was_tapped_and_only_the_trace_says_how_it_was_found() -> None:
    steps = Steps()
    texts = run("unified", bundle(tap("Display")), bundle(goal_complete=True, answer="open"),
                recorder=steps)
    line = next(x for x in texts[1].splitlines() if x.startswith("- (step 1)"))
    assert "on [2] button 'Display'" in line
    for jargon in ("(tree)", "(element)", "(ocr)", "(grid)", "(point)"):
        assert jargon not in line
    tapped = next(r for r in steps.results if r.get("type") == "tap")
    assert tapped["source"] == "tree" and "(tree)" not in tapped["detail"]
