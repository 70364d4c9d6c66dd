"""Reading mem_save values off the screen, and post-mortem reasons."""

from __future__ import annotations

import pytest
from PIL import Image

from omg_agent.brain.budget import StepBudget
from omg_agent.brain.run_state import (
    Attempt,
    RunState,
    TurnRecord,
    classify_failure,
    post_mortem,
)
from omg_agent.core.actions import MemSave
from omg_agent.core.contracts import TaskStep
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, OcrBox, UIElement
from omg_agent.core.results import Failure, FailureKind
from omg_agent.errors import TurnFailed
from omg_agent.perception.reading import read_from_screen
from tests.unit.brain.fakes import FakeClock

PRICE = UIElement(2, "android.widget.TextView", "text", Bounds(0, 400, 1000, 500),
                  text="¥8,249.00", resource_id="com.omg.shop:id/price")
NAME = UIElement(1, "android.widget.TextView", "text", Bounds(0, 300, 1000, 400),
                 text="MacBook Air 13", resource_id="com.omg.shop:id/name")
OBS = Observation(Image.new("RGB", (1000, 2000)), (NAME, PRICE), package="com.omg.shop")


def save(**from_screen) -> MemSave:
    return MemSave(key="price", from_screen=from_screen)


@pytest.mark.parametrize("source", [
    {"target": {"kind": "element", "id": 2}},
    {"target": {"kind": "anchor", "resource_id": "price"}},
    {"target": {"kind": "anchor", "text": "¥", "match": "contains"}},
    {"target": {"kind": "point", "x": 500, "y": 225}},
    {"region": {"left": 0, "top": 210, "right": 1000, "bottom": 240}},
])
def test_the_value_comes_from_the_screen_whatever_the_target_form(source) -> None:
    assert read_from_screen(save(**source), OBS) == "¥8,249.00"


def test_an_anchor_reads_the_label_it_names_not_the_clickable_card_around_it() -> None:
    card = UIElement(3, "android.widget.LinearLayout", "item", Bounds(0, 250, 1000, 550),
                     text="MacBook Air 13", clickable=True)
    obs = Observation(Image.new("RGB", (1000, 2000)), (card, NAME, PRICE))
    source = {"target": {"kind": "anchor", "resource_id": "price"}}
    assert read_from_screen(save(**source), obs) == "¥8,249.00"


def test_a_region_prefers_ocr_boxes_when_there_are_some() -> None:
    obs = Observation(Image.new("RGB", (1000, 2000)), (NAME, PRICE),
                      ocr=(OcrBox("¥9", Bounds(0, 430, 200, 470), 0.9),))
    region = {"left": 0, "top": 200, "right": 1000, "bottom": 250}
    assert read_from_screen(save(region=region), obs) == "¥9"


def test_nothing_at_the_target_is_a_failed_turn_not_an_empty_value() -> None:
    with pytest.raises(TurnFailed, match="nothing readable"):
        read_from_screen(save(target={"kind": "element", "id": 9}), OBS)


def test_post_mortem_reasons_come_from_the_typed_failure_then_the_screens() -> None:
    state = RunState("t", StepBudget(5))
    state.last_obs = OBS
    missing = Failure(FailureKind.ELEMENT_NOT_FOUND, "whatever the message says")
    state.attempt = Attempt().after_turn("a", missing)
    assert classify_failure(state.attempt, OBS) is FailureKind.ELEMENT_NOT_FOUND
    # a message that reads like another kind changes nothing: kinds are never re-parsed
    state.attempt = Attempt().after_turn("a", Failure(FailureKind.CLICK_MISSED,
                                                      "nothing on screen matches"))
    state.attempt = state.attempt.after_turn("a", None).after_turn("a", None)
    assert classify_failure(state.attempt, OBS) is FailureKind.LOOP
    state.records = [TurnRecord(1, "tap [tap] → failed"), TurnRecord(2, "other")]
    pm = post_mortem(1, TaskStep(description="Buy", success_criteria="paid"), state,
                     FailureKind.TIMEOUT)
    assert pm.reason is FailureKind.TIMEOUT
    assert pm.strategies_tried == ("(step 1) tap [tap] → failed",)
    assert "MacBook Air 13" in pm.last_screen and pm.suggested_recovery
    assert pm.for_prompt()["reason"] == "TIMEOUT"


def test_the_planners_wait_is_not_the_steps_time() -> None:
    """A step's clock runs for the phone and the agent, not the model: the first step's
    attempt begins before the plan is written, so the planner's minutes would otherwise
    time it out before the operator's first turn (relay round 11)."""
    from types import SimpleNamespace

    from omg_agent.brain.planning import planner_call
    from omg_agent.brain.run_state import Attempt

    clock = FakeClock()
    state = RunState("t", StepBudget(5))
    state.attempt = Attempt(started=clock())
    replies = SimpleNamespace(replies=0)
    planner = SimpleNamespace(llm=SimpleNamespace(totals=replies))

    def slow_plan() -> str:
        clock.sleep(90)  # the model thinking for a minute and a half
        replies.replies += 1
        return "plan"

    assert planner_call(SimpleNamespace(state=state), planner, slow_plan,
                        clock=clock) == "plan"
    assert state.planner_calls == 1
    assert state.attempt.model_s == 90 and state.attempt.elapsed(clock()) == 0
    clock.sleep(5)  # the phone's and the agent's own time counts
    assert state.attempt.elapsed(clock()) == 5
