"""The step budget: what counts, that it is never passed, and the three-part stop message."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from omg_agent.brain.budget import StepBudget, done_so_far, exhaustion_report
from omg_agent.brain.call_record import CallRecord
from omg_agent.errors import BudgetExhausted


def _record(kind: str = "reply", ok: bool = True) -> CallRecord:
    return CallRecord("operator", "m", kind, 1, ok)  # type: ignore[arg-type]


def test_valid_replies_count_and_invalid_ones_and_transport_failures_do_not() -> None:
    # issue 40: a reply refused by validation is retried at no step's cost
    budget = StepBudget(10)
    count = budget.counter("decision")
    count(_record(ok=False))
    count(_record(ok=False))
    count(_record("transport", ok=False))
    count(_record(ok=True))
    assert budget.used == 1
    assert budget.counts == {"decision": 1}


def test_charging_past_the_limit_raises_and_leaves_the_count_at_the_limit() -> None:
    budget = StepBudget(2)
    budget.charge("decision")
    budget.charge("move")
    with pytest.raises(BudgetExhausted) as info:
        budget.charge("replan")
    assert budget.used == 2
    assert info.value.used == 2 and info.value.limit == 2
    assert "1 move" in str(info.value) and "1 decision" in str(info.value)


def test_check_raises_only_when_spent() -> None:
    budget = StepBudget(1)
    budget.check()
    budget.charge("decision")
    with pytest.raises(BudgetExhausted):
        budget.check()


def test_attempts_are_all_given_while_a_step_is_left() -> None:
    budget = StepBudget(5)
    assert budget.attempts(3) == 3
    for _ in range(4):
        budget.charge("decision")
    assert budget.attempts(3) == 3  # only the valid reply is charged
    budget.charge("decision")
    with pytest.raises(BudgetExhausted):
        budget.attempts(3)


def test_a_zero_budget_is_refused() -> None:
    with pytest.raises(ValueError):
        StepBudget(0)


def test_exhaustion_report_has_what_was_done_why_it_stopped_and_what_next() -> None:
    report = exhaustion_report(8, ["Open Shop"], ["Save the note"], "Find the price")
    message = report.message()
    assert "Done so far:" in message and "Open Shop" in message
    assert "Stopped because:" in message and "step budget of 8" in message
    assert "Find the price" in message
    assert "Next:" in message and "--max-steps 16" in message and "Save the note" in message


@dataclass(frozen=True)
class _Turn:
    step: int
    intent: str
    acted: bool = True
    failure: object | None = None


def test_done_so_far_lists_what_went_through_on_steps_not_ticked() -> None:
    steps = [("Open Shop", True), ("Fill the cart", False), ("Pay", False)]
    turns = [_Turn(1, "open Shop"), _Turn(2, "add a kettle"), _Turn(2, "add a kettle"),
             _Turn(2, "tap a dead button", failure="no effect"), _Turn(2, "look", acted=False),
             _Turn(3, "go to the checkout")]
    assert done_so_far(steps, turns) == ("Open Shop", "add a kettle (2×)",
                                         "go to the checkout")


def test_done_so_far_with_nothing_carried_out_is_empty_and_long_runs_are_cut() -> None:
    assert done_so_far([("Pay", False)], [_Turn(1, "look", acted=False)]) == ()
    many = [_Turn(1, f"action {n}") for n in range(12)]
    listed = done_so_far([("Pay", False)], many, most=4)
    assert listed == ("… 9 earlier actions", "action 9", "action 10", "action 11")
