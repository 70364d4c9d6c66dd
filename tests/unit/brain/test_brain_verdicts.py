"""The planner's last word, as a pure rule: 'done' is believed only when the phone backs it."""

from __future__ import annotations

import pytest

from omg_agent.brain.verdicts import planner_verdict
from omg_agent.core.contracts import Replan


def verdict(status: str, *, failed: str | None = None, claim: str | None = None,
            pending: tuple[str, ...] = (), shown: bool = False,
            words: str = "the planner's words"):
    asked: list[int] = []

    def end_state() -> bool:
        asked.append(1)
        return shown

    ending = planner_verdict(Replan(status=status, response="the planner's words"),
                             words, done=("Open Settings",),
                             pending=pending, failed_outcome=failed, claim=claim,
                             end_state_shown=end_state)
    return ending, asked


def test_done_after_a_failed_step_is_failed_in_the_planners_words() -> None:
    ending, asked = verdict("done", failed="step 2 'Turn off Wi-Fi' failed (LOOP)",
                            pending=("Turn off Wi-Fi",))
    assert ending.phase == "FAILED" and ending.answer == ""
    assert "failed (LOOP)" in ending.report.stopped_because
    assert "the planner's words" in ending.report.stopped_because
    assert ending.refused == "planner_end_refused" and asked == []


def test_done_with_a_step_never_done_is_believed_only_when_the_end_state_shows() -> None:
    refused, _ = verdict("done", pending=("Turn off Wi-Fi",))
    assert refused.phase == "FAILED"
    assert "step 'Turn off Wi-Fi' was never done" in refused.report.stopped_because
    shown, asked = verdict("done", pending=("Turn off Wi-Fi",), shown=True)
    assert shown.phase == "DONE" and asked == [1]


@pytest.mark.parametrize(("claim", "words", "answer"), [
    ("Wi-Fi is off", "the planner's words", "the planner's words"),
    ("Wi-Fi is off", "", "Wi-Fi is off"), ("", "the planner's words", "the planner's words")])
def test_a_confirmed_claim_is_done_with_the_planners_final_words(claim: str, words: str,
                                                                 answer: str) -> None:
    """The planner's final response reaches the user; the operator's answer when it
    wrote none."""
    ending, asked = verdict("done", claim=claim, pending=("Turn off Wi-Fi",), words=words)
    assert ending.phase == "DONE" and ending.answer == answer and asked == []
    assert ending.report.done == ("Open Settings", "Turn off Wi-Fi")


def test_done_with_every_step_ticked_is_done() -> None:
    ending, _ = verdict("done")
    assert ending.phase == "DONE"


def test_infeasible_and_give_up_say_so() -> None:
    infeasible, _ = verdict("infeasible", failed="whatever")
    assert infeasible.phase == "INFEASIBLE" and infeasible.answer == "the planner's words"
    gave_up, _ = verdict("give_up", pending=("x",))
    assert gave_up.phase == "FAILED" and gave_up.refused == "give_up"
