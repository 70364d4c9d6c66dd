"""The gate's record of what it let through (issue 34, mutation testing of guards/ledger.py):
what a passage keeps, how a saved one reads back, and a restore before the review settles."""

from __future__ import annotations

from types import SimpleNamespace

from omg_agent.guards.ledger import Ledger, Passage, task_classes

PAID = Passage("payment", "tap Pay", "human", True)
DELETED = Passage("delete", "tap Delete", "authorisation", False)


def test_a_passage_keeps_what_the_gate_described_and_the_message_it_read():
    ledger = Ledger()
    ledger.let(SimpleNamespace(cls="send", describe="tap Send", text="hi"), "human", 3)
    ledger.let(SimpleNamespace(cls="payment", describe="tap Pay"), "authorisation", 4)
    ledger.let(None, "human", 5)  # harmless: nothing to record
    assert ledger.entries == [Passage("send", "tap Send", "human", None, "hi"),
                              Passage("payment", "tap Pay", "authorisation")]
    assert ledger.open == [(0, 3), (1, 4)]


def test_passages_restored_before_the_review_settles_keep_the_review_on_its_own():
    ledger = Ledger()
    ledger.let(SimpleNamespace(cls="send", describe="tap Send", text="hi"), "human", 0)
    assert ledger.restore([PAID, DELETED]) is ledger.entries
    ledger.settle(lambda at: True)
    assert ledger.entries == [PAID, DELETED, Passage("send", "tap Send", "human", True, "hi")]


def test_a_saved_passage_with_missing_or_wrong_fields_reads_as_empty():
    assert Passage.of({}) == Passage("", "", "")
    assert Passage.of({"cls": "send", "ok": "yes", "text": 5}) == Passage("send", "", "")


def test_removing_from_a_cart_is_no_delete_the_gate_could_back():
    assert task_classes("Remove the cable from the cart in Shop") == ()
