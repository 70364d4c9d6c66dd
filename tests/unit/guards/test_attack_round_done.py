"""Attack round on Gate v3 (docs/attack-round.md), honest done: a request that names paying,
sending or deleting in words the clause-opening verb rule did not parse ("Can you pay…?",
"Make the payment", "Shop: pay for the order", "请帮我把购物车结算了") is a task of that
class — done only with that effect in the gate's ledger — while a question for information
and a "don't" name none."""

from __future__ import annotations

import pytest

from omg_agent.brain.honest import observes_only
from omg_agent.guards.ledger import Passage, missing_passage, task_classes

REQUESTS = [
    ("Can you pay for the order in Shop?", "payment"),
    ("Would you mind paying for the cart in Shop", "payment"),
    ("Make the payment in Shop", "payment"),
    ("Complete the purchase in Shop", "payment"),
    ("Place the order in Shop", "payment"),
    ("Submit the order in Shop", "payment"),
    ("Check out the cart in Shop", "payment"),
    ("Shop: pay for the order", "payment"),
    ("You should pay the order in Shop", "payment"),
    ("请帮我把购物车结算了", "payment"),
    ("去结账", "payment"),
    ("买下这个Kindle", "payment"),
    ("Trash the note Trip in Notes", "delete"),
    ("Wipe the note in Notes", "delete"),
    ("Discard the Trip note in Notes", "delete"),
    ("把这条笔记删掉", "delete"),
    ("Could you send Bob the file in Messages", "send"),
]


@pytest.mark.parametrize(("task", "cls"), REQUESTS)
def test_a_request_naming_a_sensitive_class_anywhere_is_of_that_class(task, cls) -> None:
    assert cls in task_classes(task)
    assert not observes_only(task)  # a question mark does not make it a mere question
    assert missing_passage(task, []) is not None  # done needs the effect
    assert missing_passage(task, [Passage(cls, "tap it", "human", ok=True)]) is None


@pytest.mark.parametrize("task", [
    "How much would I pay for the cart?", "What is the total I will pay in Shop?",
    "Is the order paid?", "Look at my payment history", "购物车里一共要付多少钱？",
    "Add a cable to the cart. Don't pay.", "Add milk to the cart without paying",
    "Do not delete anything, just read my notes", "不要支付，只看看购物车",
    "Check the order total in Shop", "Open the checkout in Shop",
    "Change the note to: Call me back please", "Write a note: pay the rent on Friday",
    "Remove the cable from the cart in Shop"])
def test_questions_negations_and_dictated_text_name_no_class(task) -> None:
    assert task_classes(task) == ()


def test_text_in_a_field_is_an_effect_only_of_a_task_that_asks_for_text() -> None:
    from omg_agent.guards.ledger import writes_text

    assert not writes_text("Turn on airplane mode", "Airplane mode is on")
    assert not writes_text("Open Settings")
    assert writes_text("Read the code in Messages and type it into OMG Desk", "482913")
    assert writes_text("Change the note to: Call me back please", "Call me back")
    assert writes_text("在备忘录里写：买牛奶", "买牛奶") and writes_text("搜索 Kindle")
