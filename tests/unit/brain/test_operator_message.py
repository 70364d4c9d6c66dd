"""What the operator model reads each turn (issue 27, relay round 27's notes): the task said
once with no empty sections, result lines in plain words with no perception jargon, and a
short note on what each action changed.

FakeDriver screens, the real openai client on httpx.MockTransport."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from PIL import Image

from omg_agent.brain.effects import effect_note
from omg_agent.core.actions import Action
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement

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
PHONE = Image.new("RGB", (1000, 2000), "white")


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
    line = next(x for x in texts[1].splitlines() if x.startswith("- ") and "Display" in x)
    assert "on [2] button 'Display'" in line
    for jargon in ("(tree)", "(element)", "(ocr)", "(grid)", "(point)"):
        assert jargon not in line
    tapped = next(r for r in steps.results if r.get("type") == "tap")
    assert tapped["source"] == "tree" and "(tree)" not in tapped["detail"]


# -- what the actions changed -------------------------------------------------------------
def screen(name: str, *elements: UIElement, package: str = "com.android.settings"
           ) -> Observation:
    return Observation(PHONE, elements, package=package, screen_hash=name)


def row(text: str, *, on: bool) -> tuple[UIElement, UIElement]:
    """A settings row: its title on the left, a switch with no text of its own beside it."""
    title = UIElement(1, "android.widget.TextView", "text", Bounds(0, 100, 800, 190),
                      text=text)
    switch = UIElement(2, "android.widget.Switch", "switch", Bounds(850, 110, 990, 180),
                       resource_id="bt_switch", checkable=True, checked=on, clickable=True)
    return title, switch


def day_chip(*, ticked: bool) -> UIElement:
    return UIElement(5, "android.widget.CheckBox", "checkbox", Bounds(40, 450, 140, 520),
                     text="Mon", resource_id="day_mon", checkable=True, checked=ticked,
                     clickable=True)


def like(*, liked: bool) -> UIElement:
    return UIElement(3, "android.widget.Button", "button", Bounds(0, 300, 300, 390),
                     text="Liked ♥" if liked else "Like", desc="Like post 4",
                     resource_id="like", clickable=True, selected=liked)


@pytest.mark.parametrize(("before", "after", "note"), [
    (screen("s", *row("Bluetooth", on=True)), screen("s", *row("Bluetooth", on=False)),
     "switch 'Bluetooth' now off"),
    (screen("a", day_chip(ticked=False)), screen("a", day_chip(ticked=True)),
     "checkbox 'Mon' now checked"),  # a checkbox is no switch (relay, seed 31)
    (screen("f", like(liked=False)), screen("f", like(liked=True)),
     "'Like post 4' now selected"),
    (screen("s", *row("Bluetooth", on=True)), screen("s", *row("Bluetooth", on=True)),
     "screen unchanged"),
    (screen("home", el(1, "Notes"), package="com.android.launcher3"),
     screen("notes", el(1, "Garden"), package="com.omg.notes"), "opened com.omg.notes"),
    (screen("main", el(1, "Settings", role="text", clickable=False), el(2, "Display")),
     screen("display", el(1, "Display", role="text", clickable=False), el(2, "Brightness"),
            el(3, "Dark theme")),
     "opened 'Display'"),
])
def test_the_effect_note_names_what_the_actions_changed(before, after, note) -> None:
    assert effect_note(before, after) == note


def test_a_toast_an_action_put_up_is_its_outcome() -> None:
    # relay round (issue 40): add-to-cart taps read "→ ok" and nothing while "Added to cart"
    # showed; a text already on the screen, or one with no message id, is no outcome
    add = el(1, "Add to cart", package="com.omg.shop")
    toast = UIElement(2, "android.widget.TextView", "text", Bounds(0, 600, 1000, 650),
                      text="Added to cart", resource_id="com.omg.shop:id/toast")
    before, after = screen("p", add, package="com.omg.shop"), screen(
        "p2", add, toast, package="com.omg.shop")
    assert effect_note(before, after) == "message 'Added to cart' shown"
    assert effect_note(after, after) == "screen unchanged"
    plain = dataclasses.replace(toast, resource_id="com.omg.shop:id/subtitle")
    assert effect_note(before, screen("p2", add, plain, package="com.omg.shop")) == ""


def test_a_changed_count_under_an_equal_hash_is_not_called_unchanged() -> None:
    count = UIElement(4, "android.widget.TextView", "text", Bounds(400, 300, 900, 390),
                      text="59 likes")
    after = dataclasses.replace(count, text="60 likes")
    assert effect_note(screen("f", count), screen("f", after)) == ""


def test_the_next_turn_reads_that_its_tap_turned_the_switch_off_or_changed_nothing() -> None:
    state = {"bt": True}

    def move(name: str, action: Action, element: UIElement | None) -> str:
        if element is not None and element.text == "Bluetooth":
            state["bt"] = not state["bt"]
        return name

    switches = FakeWorld({"settings": lambda: ("com.android.settings", [
        el(1, "Wi-Fi"), el(2, "Bluetooth", checkable=True, checked=state["bt"])])},
        move, "settings")
    replies = iter([bundle(tap("Bluetooth")), bundle(tap("Wi-Fi")),
                    bundle(goal_complete=True, answer="off")])
    model = ScriptedModel(lambda contract, text, body: next(replies))
    with orchestrator(switches, model, planning="unified", confirm_done="never") as orch:
        orch.run("turn off Bluetooth")
    texts = operator_texts(model)
    assert "→ switch 'Bluetooth' now off" in texts[1]
    assert "→ screen unchanged" in texts[2]
