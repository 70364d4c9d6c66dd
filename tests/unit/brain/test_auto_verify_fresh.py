"""A ``unified`` run auto-verifies (ends a step with no claim call) only on the turn its end
checks were written for, or when the operator's own checklist has nothing left open. Relay
round (issue 36, expenses.undo_delete): the checks "Running shoes" were written with a
missed UNDO tap; two turns later the operator opened the "Recently deleted" list to restore
it — its checklist still said "[ ] restore" — the trash list showed "Running shoes", and the
run ended ``done`` with nothing restored. FakeWorld screens, the real openai client."""

from __future__ import annotations

from typing import Any

from .fakes import FakeWorld, ScriptedModel, bundle, el, orchestrator, tap
from .test_orchestrator_transitions import replies

APP = "com.omg.expenses"
TASK = "I deleted the expense Running shoes by mistake. Bring it back."
CHECK = {"kind": "element", "text": "Running shoes"}


def expenses() -> tuple[FakeWorld, dict[str, Any]]:
    state = {"restored": False}
    row = el(4, "Running shoes", role="item")
    screens = {
        "list": (APP, [el(1, "Expenses", clickable=False), el(2, "UNDO gone", clickable=False),
                       el(3, "Recently deleted"), *([row] if state["restored"] else [])]),
        "trash": (APP, [el(1, "Recently deleted", clickable=False), row, el(5, "Restore")]),
    }

    def move(screen: str, action: Any, element: Any) -> str:
        if element is not None and element.text == "Recently deleted":
            return "trash"
        if element is not None and element.text == "Restore":
            state["restored"] = True
            return "list"
        return screen

    def listing() -> tuple[str, list[Any]]:
        extra = [el(4, "Running shoes", role="item")] if state["restored"] else []
        return APP, [*screens["list"][1][:3], *extra]

    return FakeWorld({"list": listing, "trash": screens["trash"]}, move, "list"), state


def test_checks_written_for_an_earlier_turn_do_not_end_the_run_while_work_is_left() -> None:
    world, state = expenses()
    turns = iter([
        bundle(tap("UNDO gone"), todo=["[ ] tap UNDO", "[ ] confirm it is back"],
               end_checks=[CHECK]),  # the checks, for this turn's outcome: it missed
        bundle(tap("Recently deleted"), todo=["[x] tap UNDO (missed)", "[ ] open the trash",
                                              "[ ] restore Running shoes"]),
        bundle(tap("Restore"), todo=["[x] open the trash", "[ ] restore Running shoes"]),
        bundle(goal_complete=True, answer="Running shoes is back in the list"),
    ])
    model = ScriptedModel(replies(("DecisionBundle", lambda text: next(turns))))
    with orchestrator(world, model, planning="unified", task=TASK, max_steps=8) as orch:
        result = orch.run(TASK)
    assert state["restored"], "the run ended before it restored the expense"
    assert result.status == "done", result.stopped_because
    assert model.contracts().count("DecisionBundle") >= 3  # the trash list ended nothing
