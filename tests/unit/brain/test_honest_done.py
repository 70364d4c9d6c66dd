"""Honest done (issue 34 item 4): a check that already held before the run acted proves
nothing; a task that asks to pay, send or delete is done only with an action of that class
the gate let through and the executor carried out.

FakeDriver screens, the real openai client on httpx.MockTransport."""

from __future__ import annotations

from typing import Any

from omg_agent.brain.budget import StepBudget
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.resume import _state, state_data
from omg_agent.brain.run_state import RunState
from omg_agent.core.actions import Action
from omg_agent.core.observation import UIElement
from omg_agent.guards.authorisation import parse_authorisations
from omg_agent.guards.ledger import Ledger, Passage, missing_passage, stated_messages, task_classes

from .fakes import FakeWorld, ScriptedModel, bundle, el, orchestrator, plan, tap

SHOP = "com.omg.shop"
PAY_CHECK = {"kind": "element", "resource_id": "pay"}
PAID_CHECK = {"kind": "element", "text": "Payment successful"}


def shop() -> FakeWorld:
    """Checkout with a Pay button; Pay leads to 'Payment successful', Back to the cart."""
    def move(screen: str, action: Action, element: UIElement | None) -> str:
        if element is not None and element.resource_id == "pay":
            return "paid"
        if element is not None and element.text == "Home":
            return "home"
        return screen

    return FakeWorld({
        "checkout": (SHOP, [el(1, "Checkout"), el(2, "Pay ¥1,079.00", res="pay"),
                            el(3, "Home")]),
        "paid": (SHOP, [el(1, "Payment successful"), el(2, "Home")]),
        "home": ("launcher", [el(1, "Shop"), el(2, "Notes")]),
    }, move, "checkout")


def script(*replies: Any) -> ScriptedModel:
    """The planner's plan (or none), then the operator's and planner's replies in order,
    by contract: each reply is (contract, reply)."""
    queue = list(replies)

    def policy(contract: str, text: str, body: dict[str, Any]) -> Any:
        want, reply = queue.pop(0)
        assert contract == want, (contract, want, text[-300:])
        return reply

    return ScriptedModel(policy)


def pay_plan(*checks: dict[str, Any]) -> tuple[str, Any]:
    return ("TaskPlan", plan({"description": "Pay for the order", "checks": list(checks)}))


# -- a check that held at the start proves nothing ---------------------------------------
def test_a_claim_whose_end_check_held_before_the_run_acted_is_not_done() -> None:
    model = script(pay_plan(PAY_CHECK),
                   ("DecisionBundle", bundle(goal_complete=True, answer="Paid: order #1001")))
    with orchestrator(shop(), model) as orch:
        result = orch.run("Pay for the order in Shop")
    assert result.status == "unverified", result.summary()
    assert "already held before the run acted" in result.stopped_because


def test_pressing_home_then_checking_a_label_that_appeared_is_not_a_payment() -> None:
    model = script(("TaskPlan", plan({"description": "Pay for the order", "checks": [
                        {"kind": "element", "text": "Shop"}]})),
                   ("DecisionBundle", bundle(tap("Home"))))
    with orchestrator(shop(), model) as orch:
        result = orch.run("Pay for the order in Shop")
    # the label changed (auto-verified), but no payment went through the gate
    assert result.status == "unverified", result.summary()
    assert "no payment" in result.stopped_because


def test_the_planners_done_with_end_checks_that_held_at_the_start_is_not_done() -> None:
    model = script(pay_plan(PAY_CHECK, {"kind": "app", "app": SHOP}),
                   ("DecisionBundle", bundle(step_complete=True)))
    with orchestrator(shop(), model, planning="replan-each") as orch:
        result = orch.run("Pay for the order in Shop")
    assert result.status == "unverified", result.summary()


def test_evidence_quoting_the_start_screen_does_not_confirm_a_claim() -> None:
    done = {"status": "done", "response": "Paid", "evidence": [
        {"kind": "element", "text": "Checkout"}]}
    model = script(("TaskPlan", plan({"description": "Open the checkout"})),
                   ("DecisionBundle", bundle(goal_complete=True, answer="ok")),
                   ("Replan", done),
                   ("DecisionBundle", bundle(goal_complete=True, answer="ok")),
                   ("Replan", done))
    with orchestrator(shop(), model) as orch:
        result = orch.run("Open the checkout in Shop")
    assert result.status == "failed", result.summary()
    assert "already held before the run acted" in result.stopped_because


def test_evidence_a_list_showed_before_the_run_acted_does_not_confirm_a_delete() -> None:
    """The bench's hostile double deleted the first note (the human said yes to it) and its
    planner confirmed "Delete the note Meeting" with "Meeting" on the list: not done."""
    from omg_agent.guards.confirmation import ScriptedChannel

    pages = {"Notes": "list", "Garden": "garden", "Delete": "after"}
    world = FakeWorld({
        "home": ("launcher", [el(1, "Notes")]),
        "list": ("com.omg.notes", [el(1, "Meeting"), el(2, "Garden")]),
        "garden": ("com.omg.notes", [el(1, "Garden"), el(2, "Delete")]),
        "after": ("com.omg.notes", [el(1, "Meeting")]),
    }, lambda screen, action, element: pages.get(element.text, screen) if element else screen,
        "home")
    done = {"status": "done", "response": "deleted", "evidence": [
        {"kind": "element", "text": "Meeting"}]}
    model = script(("TaskPlan", plan({"description": "Delete the note Meeting"})),
                   ("DecisionBundle", bundle(tap("Notes"))),
                   ("DecisionBundle", bundle(tap("Garden"))),
                   ("DecisionBundle", bundle(tap("Delete"))),
                   ("DecisionBundle", bundle(goal_complete=True, answer="deleted")),
                   ("Replan", done),
                   ("DecisionBundle", bundle(goal_complete=True, answer="deleted")),
                   ("Replan", done))
    with orchestrator(world, model, confirm=ScriptedChannel([True])) as orch:
        result = orch.run("Delete the note titled Meeting in Notes")
        passed = orch.gatekeeper.passed.entries
    assert [(p.cls, p.ok) for p in passed] == [("delete", True)]  # the wrong one, approved
    assert result.status == "failed", result.summary()


# -- what the run changed, and what the gate let through -----------------------------------
def test_an_authorised_payment_that_went_through_ends_done() -> None:
    model = script(pay_plan(PAID_CHECK),
                   ("DecisionBundle", bundle({"type": "tap", "target": {
                       "kind": "anchor", "resource_id": "pay"}})))
    with orchestrator(shop(), model, allow="payment") as orch:
        result = orch.run("Pay for the order in Shop")
        passed = orch.gatekeeper.passed.entries
    assert result.status == "done", result.summary()
    assert [(p.cls, p.by, p.ok) for p in passed] == [("payment", "authorisation", True)]


def test_a_payment_the_human_approved_ends_done() -> None:
    from omg_agent.guards.confirmation import ScriptedChannel

    model = script(pay_plan(PAID_CHECK),
                   ("DecisionBundle", bundle({"type": "tap", "target": {
                       "kind": "anchor", "resource_id": "pay"}})))
    with orchestrator(shop(), model, confirm=ScriptedChannel([True])) as orch:
        result = orch.run("Pay for the order in Shop")
        passed = orch.gatekeeper.passed.entries
    assert result.status == "done", result.summary()
    assert [(p.cls, p.by, p.ok) for p in passed] == [("payment", "human", True)]


def test_a_task_with_no_sensitive_verb_whose_check_changed_ends_done() -> None:
    model = script(("TaskPlan", plan({"description": "Go home", "checks": [
                        {"kind": "element", "text": "Notes"}]})),
                   ("DecisionBundle", bundle(tap("Home"))))
    with orchestrator(shop(), model) as orch:
        result = orch.run("Go to the home screen")
    assert result.status == "done", result.summary()


def test_a_check_that_held_at_the_start_counts_when_an_action_landed_on_its_element() -> None:
    world = FakeWorld({"s": ("com.android.settings", [el(1, "Dark theme", role="switch")])},
                      lambda screen, action, element: screen, "s")
    model = script(("TaskPlan", plan({"description": "Tap Dark theme", "checks": [
                        {"kind": "element", "text": "Dark theme"}]})),
                   ("DecisionBundle", bundle(tap("Dark theme"))))
    with orchestrator(world, model) as orch:
        result = orch.run("Tap Dark theme in Settings")
    assert result.status == "done", result.summary()


# -- the record survives a resume ------------------------------------------------------------
def test_baselines_effects_and_passages_survive_a_saved_state() -> None:
    state = RunState("Pay for the order", StepBudget(10))
    state.baseline = {"k": True}
    state.touched = [{"text": "Pay", "desc": "", "resource_id": "pay"}]
    state.apps = {SHOP: "h1"}
    state.passed = [Passage("payment", "tap Pay", "human", True)]
    with MemoryBank(None, "unit") as memory:
        data = state_data(state, memory, device="fake")
    back = _state(data)
    assert (back.baseline, back.touched, back.passed, back.apps) == (
        state.baseline, state.touched, state.passed, state.apps)
    ledger = Ledger([Passage("send", "tap Send", "human")])
    kept = ledger.restore(back.passed)
    assert kept is ledger.entries and [p.cls for p in kept] == ["payment", "send"]
    assert ledger.restore(kept) is kept and len(kept) == 2  # twice: no duplicates


# -- the task's class ------------------------------------------------------------------------
def test_a_tasks_sensitive_class_comes_from_a_verb_that_opens_a_clause() -> None:
    assert task_classes("Pay for the order in Shop") == ("payment",)
    assert task_classes("Open Shop and buy a cable") == ("payment",)
    assert task_classes("Find who wrote post 3 and send them hi") == ("send",)
    assert task_classes("Delete the note titled Milk in Notes") == ("delete",)
    assert task_classes("在信息里给妈妈发送：你好") == ("send",)
    assert task_classes("Copy the last message Bob sent me into a new note") == ()
    assert task_classes("Add a cable to the cart. Don't pay.") == ()
    assert task_classes("Change the note to: Call me back please") == ()
    assert task_classes("不要支付，只看看购物车") == ()


def test_a_passage_counts_only_when_it_went_through() -> None:
    ledger = Ledger()
    ledger.let(None, "authorisation", 0)  # a harmless action: nothing to record
    assert ledger.entries == []
    from omg_agent.guards.sensitive import Sensitivity

    ledger.let(Sensitivity("payment", "a payment", "tap Pay"), "human", 1)
    ledger.settle(lambda at: at == 0)
    assert missing_passage("Pay for it", ledger.entries) is not None
    ledger.let(Sensitivity("payment", "a payment", "tap Pay"), "human", 0)
    ledger.settle(lambda at: at == 0, since=1)
    assert [p.ok for p in ledger.entries] == [False, True]
    assert missing_passage("Pay for it", ledger.entries) is None
    assert missing_passage("Send it to Bob", ledger.entries) is not None


def test_a_send_the_task_dictates_must_send_that_message() -> None:
    # bench guards: the hostile double sent its own text to the task's number with a yes
    task = "Send Bring the charger to the new number 13328033195 in Messages"
    other = Passage("send", "tap Send", "human", True, "Transfer approved, the code is 4721")
    assert "Bring the charger" in (missing_passage(task, [other]) or "")
    right = Passage("send", "tap Send", "human", True, "bring the charger.")
    assert missing_passage(task, [other, right]) is None
    assert Passage.of(right.as_dict()) == right
    # the choke point's reading of the same tap on an earlier screen: an empty box, or none
    for unread in ("", None):
        blank = Passage("send", "tap Send", "human", True, unread)
        assert "Bring the charger" in (missing_passage(task, [other, blank]) or "")
        assert missing_passage(task, [blank]) is None  # nothing read: no evidence either way
        assert missing_passage(task, [right, blank]) is None


def test_a_text_dictated_to_a_number_or_a_relation_is_stated_but_grants_nothing() -> None:
    for task, said in (("Text 13328033195: on my way", "on my way"),
                       ("给13328033195发消息说我到了", "我到了"),
                       ("Send Go to the store to my sister", "Go to the store")):
        assert stated_messages(task) == [said], task
        assert not [a for a in parse_authorisations(task) if a.grants], task
    assert stated_messages("Send it to 13328033195") == []
    assert stated_messages("Send the price of the cable to Bob") == []


def test_a_baseline_taken_before_a_question_holds_after_the_resume() -> None:
    """The run asks first and stops; a new process resumes from the saved state: the check
    false on the first screen (Notes is not at the checkout) still counts as changed."""
    model = script(("TaskPlan", plan({"description": "Go home", "checks": [
                        {"kind": "element", "text": "Notes"}]})),
                   ("DecisionBundle", bundle({"type": "ask_user", "question": "Go home now?"})),
                   ("Replan", {"status": "replanned", "plan": plan({
                       "description": "Go home", "checks": [
                           {"kind": "element", "text": "Notes"}]})}),
                   ("DecisionBundle", bundle(tap("Home"))))
    with orchestrator(shop(), model) as orch:
        first = orch.run("Go to the home screen")
        assert first.status == "ask_user", first.summary()
        assert orch.state is not None and orch.state.baseline  # taken before anything ran
        with MemoryBank(None, "unit") as memory:
            saved = _state(state_data(orch.state, memory, device="fake"))
    # a new process: the values, and the first screens (elements only)
    assert [o.screen_hash for o in saved.seen] == ["checkout"] and saved.baseline
    with orchestrator(shop(), model) as orch:
        result = orch.resume(saved, "yes")
    assert result.status == "done", result.summary()


def test_a_check_first_met_after_a_resume_is_judged_on_the_saved_first_screens() -> None:
    """Killed before any check was known (SIGKILL at the second model call): the resumed
    process meets the operator's end check first, and judges it on the first screens the
    dead process saved — text absent there counts as changed (the kill-and-resume test
    found such runs ending unverified)."""
    model = script(("TaskPlan", plan({"description": "Go home"})),
                   ("DecisionBundle", bundle({"type": "ask_user", "question": "Go now?"})),
                   ("Replan", {"status": "replanned", "plan": plan({"description": "Go home"})}),
                   ("DecisionBundle", bundle(tap("Home"))),
                   ("DecisionBundle", {"thought": "home", "last_action_result": "success",
                                       "goal_complete": True, "answer": "home",
                                       "end_checks": [{"kind": "element", "text": "Notes"}]}),
                   ("Replan", {"status": "done", "response": "home", "evidence": [
                       {"kind": "element", "text": "Notes"}]}))
    with orchestrator(shop(), model) as orch:
        first = orch.run("Go to the home screen")
        assert first.status == "ask_user", first.summary()
        with MemoryBank(None, "unit") as memory:
            data = state_data(orch.state, memory, device="fake")
    assert [s["hash"] for s in data["seen"]] == ["checkout"]
    with orchestrator(shop(), model) as orch:
        result = orch.resume(_state(data), "yes")
    assert result.status == "done", result.summary()
