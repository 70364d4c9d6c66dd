"""Issue 36 item 3: a question task whose answer is read from verified screen text ends
without a planner confirmation (the relay round: "tell me the price", "tell me what she
said", a conditional purchase declined on price each spent one that added nothing) — and
honest done still holds: a purchase declined on its price never ends ``done``."""

from __future__ import annotations

from typing import Any

import pytest

from omg_agent.brain.honest import observes_only

from .fakes import FakeWorld, ScriptedModel, bundle, el, orchestrator, tap
from .test_orchestrator_transitions import replies

SHOP = "com.omg.shop"


def shop(price: str = "¥99.00") -> FakeWorld:
    screens = {
        "home": ("launcher", [el(1, "Shop"), el(2, "Messages")]),
        "shop": (SHOP, [el(1, "", editable=True), el(2, "Mouse", row=3)]),
        "product": (SHOP, [el(1, "Mouse", role="text", clickable=False),
                           el(2, price, role="text", clickable=False),
                           el(3, "Add to cart"), el(4, "Buy now")]),
        "chat": ("com.omg.messages", [el(1, "Emma", role="text", clickable=False),
                                      el(2, "See you at 7 by the station", role="text",
                                         clickable=False)]),
    }

    def move(screen: str, action: Any, element: Any) -> str:
        label = element.text if element is not None else ""
        return {"Shop": "shop", "Messages": "chat"}.get(label) or (
            "product" if (screen, label) == ("shop", "Mouse") else screen)

    return FakeWorld(screens, move, "home")


def run(task: str, answer: str, *turns: dict[str, Any], price: str = "¥99.00",
        mode: str = "unified") -> tuple[Any, list[str]]:
    script = iter(turns)
    model = ScriptedModel(replies(
        ("DecisionBundle", lambda text: next(script, None) or bundle(goal_complete=True,
                                                                     answer=answer)),
        ("Replan", {"status": "done", "response": answer,
                    "evidence": [{"kind": "element", "text": "Mouse"}]})))
    with orchestrator(shop(price), model, planning=mode, task=task) as orch:
        result = orch.run(task)
    return result, model.contracts()


TO_PRODUCT = (bundle(tap("Shop")), bundle(tap("Mouse")))


@pytest.mark.parametrize("task", ["Open Shop and tell me the price of the Mouse",
                                  "Go to Shop, find the Mouse and tell me what it costs"])
def test_a_question_joined_to_going_somewhere_ends_without_a_planner_call(task: str) -> None:
    result, calls = run(task, "The Mouse costs ¥99.00", *TO_PRODUCT)
    assert result.status == "done" and result.answer == "The Mouse costs ¥99.00"
    assert "Replan" not in calls and result.planner_calls == 0


def test_what_emma_said_quoted_from_her_message_ends_without_a_planner_call() -> None:
    result, calls = run("Open Messages and tell me what Emma said",
                        'Emma said: "See you at 7 by the station"', bundle(tap("Messages")))
    assert result.status == "done" and "Replan" not in calls


@pytest.mark.parametrize("task", ["Buy the Mouse in Shop if it costs less than ¥50",
                                  "If the Mouse in Shop costs under ¥50, buy it"])
def test_a_purchase_declined_on_a_price_beyond_the_tasks_limit_ends_infeasible_unasked(
        task: str) -> None:
    answer = "The Mouse costs ¥99.00, more than ¥50: I did not buy it"
    result, calls = run(task, answer, *TO_PRODUCT)
    assert result.status == "infeasible" and result.answer == answer
    assert "Replan" not in calls and result.planner_calls == 0


def test_a_purchase_within_the_limit_and_not_paid_is_still_never_done() -> None:
    # the price admits the purchase: declining it is no reading of the screen — the planner
    # looks, and honest done still wants the payment in the gate's ledger
    result, calls = run("Buy the Mouse in Shop if it costs less than ¥50",
                        "The Mouse costs ¥30.00: not bought", *TO_PRODUCT, price="¥30.00")
    assert result.status != "done" and result.status != "infeasible"
    assert "Replan" in calls


@pytest.mark.parametrize(("task", "looks"), [
    ("Open Settings and tell me whether Wi-Fi is on", True),
    ("Open Settings and turn on Wi-Fi", False),  # a change: judged as one
    ("Check the price of the Mouse and save it in Notes", False),
    ("Open Shop and search for mouse", False),  # no question asked
    ("Open Shop and buy the Mouse", False),
    ("打开蓝牙然后告诉我连了什么", False),  # 打开 also turns things on
])
def test_only_clauses_that_go_somewhere_or_ask_make_a_task_that_only_looks(
        task: str, looks: bool) -> None:
    assert observes_only(task) is looks
