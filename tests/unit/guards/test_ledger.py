"""The gate's record of what it let through (issue 34, mutation testing of guards/ledger.py):
what a passage keeps, how a saved one reads back, and a restore before the review settles."""

from __future__ import annotations

from types import SimpleNamespace

from omg_agent.guards.ledger import (
    Ledger,
    Passage,
    missing_passage,
    stated_messages,
    task_classes,
    writes_text,
)

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


def test_a_verb_that_opens_a_clause_gives_its_class_where_no_naming_word_does():
    # "checkout", "order", "share", "call", "reply", "text", "uninstall" name no class
    # wherever they stand: only the clause-verb pass reads them (without it, done stopped
    # requiring a payment for "Checkout the cart")
    for task, cls in (("Checkout the cart", "payment"), ("Order a cable", "payment"),
                      ("Share the photo with Bob", "send"), ("Call Bob", "send"),
                      ("Text Bob", "send"), ("Reply to Ann", "send"),
                      ("Uninstall Foo", "delete")):
        assert task_classes(task) == (cls,), task
    # after a word that opens a clause, or after a clause break
    for task in ("Open Shop and order a cable", "Open Shop, then order a cable",
                 "Open Shop to order a cable", "Please order a cable",
                 "Open Shop; now order a cable", "Open Shop. First order a cable",
                 "Open Shop and finally order a cable", "Go home, also order a cable"):
        assert task_classes(task) == ("payment",), task
    assert task_classes("Open Photos and share it with Bob, then checkout the cart") == (
        "payment", "send")


def test_a_verb_inside_a_clause_or_of_another_class_gives_none():
    for task in ("Read the last message", "Check my order status", "Open the call log",
                 "Open Shop and look at the order", "Show the shared album",
                 "Install Foo",  # install: a gated class, but done asks for none
                 "Open Settings and allow it"):
        assert task_classes(task) == (), task


def test_a_chinese_task_s_class_comes_from_its_two_character_verbs_not_after_a_no():
    assert task_classes("去购物车付款") == ("payment",)
    assert task_classes("删除备忘录old") == ("delete",)
    assert task_classes("把照片分享给妈妈") == ("send",)
    assert task_classes("别删除备忘录，只看看") == ()
    assert task_classes("打开商城看看买什么") == ()  # one character (买, 发, 付) is no verb


def test_a_send_the_task_states_is_a_send_whatever_its_verb():
    assert task_classes("给妈妈发消息说我到了") == ("send",)  # 发 alone is no verb
    assert task_classes("Tell Bob: see you at 7") == ("send",)
    # the message first, quoted: the verb after it still opens the clause
    assert task_classes('"On my way" send it to Bob') == ("send",)


def test_a_message_stated_for_several_people_is_one_message():
    assert stated_messages("Send Happy birthday to Bob and Ann") == ["Happy birthday"]


def test_a_missing_passage_says_which_class_no_approved_action_carried_out():
    for task, noun in (("Pay for the order", "payment"), ("Delete the note Milk", "delete"),
                       ("Send hi to Bob", "send")):
        assert missing_passage(task, [DELETED]) == (
            f"the task asks for a {noun}, but no {noun} in this run was approved or "
            "authorised by the user and carried out"), task
    assert missing_passage("Open the cart", []) is None


def test_text_a_task_dictates_is_its_quoted_text_its_colon_s_text_or_a_message_it_sends():
    # a task without a writing word asks for text to be typed only where it dictates it
    assert writes_text('Set the title to "Trip  plan"', "trip plan")
    assert writes_text("Set the title to: Trip plan", "Trip plan")
    assert writes_text("Send call me back to Bob", "Call me back")
    assert not writes_text("Set the title to: Trip plan", "the title")  # before the colon
    # words of the task that are no text to type: the model typing "airplane mode" into a
    # URL bar is no proof airplane mode is on
    assert not writes_text("Turn on airplane mode", "airplane mode")
    assert not writes_text("Shop: open the cart", "open the cart")  # no dictating colon
    assert not writes_text("Turn on airplane mode")
    # a quote before: the words after it are still not dictated
    assert not writes_text('Open "Notes" and turn on airplane mode', "mode")
    # a writing word: any text may be the effect
    for task in ("Type hello", "Write a note", "Search Kindle", "Copy the code",
                 "Reply to Ann", "在备忘录里写东西", "搜索 Kindle", "填表"):
        assert writes_text(task), task
    assert not writes_text("Turn on Wi-Fi", "")
