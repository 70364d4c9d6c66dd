"""A "no" ends the run ``declined`` (the user's words, what was done, how to do it after all);
a yes carries out exactly the held action — on resume with no model call before it, and
only when the screen still shows the same element and amount; otherwise the model hears why.

The Shop here is a fake world of four screens; the model (the real openai client over
``httpx.MockTransport``) walks to the checkout and taps Pay whenever it can see it, and
stops with ``user_declined`` once it is told the user said no. Each payment records how many
model requests had been made when it happened."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from omg_agent.brain.resume import load_state, save_state
from omg_agent.brain.run_state import HeldAction, Refusal
from omg_agent.cli.run import EXIT_CODES
from omg_agent.core.actions import Action, Launch, Tap
from omg_agent.core.observation import UIElement
from omg_agent.guards.confirmation import (
    ENTER_ONLY,
    NO_CLEAR_ANSWER,
    ScriptedChannel,
    TerminalChannel,
)

from .fakes import FakeWorld, ScriptedModel, bundle, el, orchestrator, plan

TASK = "Buy the kettle in Shop"
SHOP = "com.omg.shop"
STEP = {"description": TASK, "complexity": 3,
        "checks": [{"kind": "element", "resource_id": "paid_title"}]}


@dataclass
class Shop:
    """Home → shop → cart → checkout → paid. ``paid_at`` holds, for each payment, how many
    model requests had been made by then."""

    model: ScriptedModel | None = None
    total: str = "¥199.00"
    pay_label: str = "Pay ¥199.00"
    pay_shown: bool = True
    paid_at: list[int] = field(default_factory=list)

    def world(self, at: str = "home") -> FakeWorld:
        return FakeWorld({
            "home": ("launcher", [el(1, "Shop", res="app_shop")]),
            "shop": (SHOP, [el(1, "Kettle ¥199.00", role="text", clickable=False),
                            el(2, "Cart", res="cart")]),
            "cart": (SHOP, [el(1, "Kettle × 1", role="text", clickable=False),
                            el(2, "Checkout", res="checkout")]),
            "checkout": lambda: (SHOP, [
                el(1, f"Total: {self.total}", res="total", role="text", clickable=False),
                *([el(2, self.pay_label, res="pay")] if self.pay_shown else [])]),
            "paid": (SHOP, [el(1, "Payment successful", res="paid_title", role="text",
                               clickable=False)])}, self.move, at)

    def move(self, screen: str, action: Action, element: UIElement | None) -> str:
        if isinstance(action, Launch):
            return "shop"
        if not isinstance(action, Tap) or element is None:
            return screen
        if element.resource_id == "pay":
            self.paid_at.append(len(self.model.requests) if self.model else -1)
            return "paid"
        return {"app_shop": "shop", "cart": "cart", "checkout": "checkout"}.get(
            element.resource_id, screen)


def act(intent: str, action: dict[str, Any]) -> dict[str, Any]:
    return {**bundle(action), "execute_now": {"intent": intent, "actions": [action]}}


def shopper(contract: str, text: str, body: dict[str, Any]) -> Any:
    """Walks to the checkout, taps Pay whenever it shows; stops when the user said no."""
    if contract == "TaskPlan":
        return plan(STEP)
    if contract == "Replan":
        return {"status": "replanned", "plan": plan(STEP)}
    if "Payment successful" in text:
        return bundle(goal_complete=True, answer="paid for the kettle")
    if "said no" in text:
        return bundle(user_declined=True, answer="the user does not want to pay")
    for res, intent in (("pay", "pay"), ("checkout", "go to the checkout"),
                        ("cart", "open the cart")):
        if f"res={res} " in text:
            return act(intent, {"type": "tap", "target": {"kind": "anchor",
                                                          "resource_id": res}})
    return act("open Shop", {"type": "launch", "app": SHOP})


def decisions(model: ScriptedModel) -> int:
    return model.contracts().count("DecisionBundle")


def paused(shop: Shop, model: ScriptedModel, tmp_path: Path) -> tuple[Any, Any]:
    """Run until the gate holds the payment (nobody to ask); the state saved and loaded
    back as a new process would."""
    with orchestrator(shop.world(), model, task=TASK) as orch:
        first = orch.run(TASK)
        assert first.status == "needs_confirmation" and shop.paid_at == []
        assert orch.state is not None
        save_state(tmp_path, orch.state, orch.memory, device="fake")
    return first, load_state(tmp_path).state


def test_a_paused_run_lists_what_it_did_not_nothing_yet(tmp_path: Path) -> None:
    shop = Shop()
    model = shop.model = ScriptedModel(shopper)
    first, _ = paused(shop, model, tmp_path)
    assert first.done == ["open Shop", "open the cart", "go to the checkout"]
    assert "nothing yet" not in first.summary() and "- open the cart" in first.summary()


def test_a_yes_on_resume_pays_the_held_tap_before_any_model_call(tmp_path: Path) -> None:
    shop = Shop()
    model = shop.model = ScriptedModel(shopper)
    first, state = paused(shop, model, tmp_path)
    assert isinstance(state.held, HeldAction)  # the action itself, not its description
    assert state.held.action["type"] == "tap" and state.held.label == "Pay ¥199.00"
    assert state.held.anchor["resource_id"] == "pay" and "¥199.00" in state.held.amount
    before = len(model.requests)
    with orchestrator(shop.world("checkout"), model, task=TASK) as orch:
        second = orch.resume(state, "yes")
    assert shop.paid_at == [before]  # paid with 0 model calls after the resume
    # the held tap was paid for by the turn that asked for it: one step per model turn
    assert second.status == "done" and second.steps_used == first.steps_used


@pytest.mark.parametrize(("change", "why"), [
    ("total", "the amounts on the screen changed"),
    ("label", "is not on the screen any more"),
    ("gone", "is not on the screen any more"),
])
def test_a_yes_to_a_held_tap_that_no_longer_resolves_runs_nothing_and_the_model_hears_why(
        tmp_path: Path, change: str, why: str) -> None:
    shop = Shop(pay_label="Pay now")
    model = shop.model = ScriptedModel(shopper)
    _, state = paused(shop, model, tmp_path)
    if change == "total":
        shop.total = "¥1,999.00"  # same button, another amount on the screen
    elif change == "label":
        shop.pay_label = "Pay ¥1,999.00"
    else:
        shop.pay_shown = False
    before = len(model.requests)
    with orchestrator(shop.world("checkout"), model, task=TASK, max_steps=12) as orch:
        second = orch.resume(state, "yes")
    assert shop.paid_at == []  # the yes was for the held action, not for what shows now
    told = model.texts()
    assert model.contracts()[before] == "DecisionBundle"
    assert "was not done" in told and why in told
    if change != "gone":  # the model taps what shows now: asked again, not paid
        assert second.status == "needs_confirmation"


def test_a_no_on_resume_ends_declined_with_the_users_words_and_the_work_done(
        tmp_path: Path) -> None:
    shop = Shop()
    model = shop.model = ScriptedModel(shopper)
    _, state = paused(shop, model, tmp_path)
    with orchestrator(shop.world("checkout"), model, task=TASK) as orch:
        result = orch.resume(state, "No")
    assert shop.paid_at == []
    assert result.status == "declined" and EXIT_CODES[result.status] == 6
    assert '"No"' in result.stopped_because and "Pay ¥199.00" in result.stopped_because
    assert result.done == ["open Shop", "open the cart", "go to the checkout"]
    assert "--allow payment" in result.next_hint and "check the task" not in result.next_hint
    assert result.answer == "the user does not want to pay"


def insistent(contract: str, text: str, body: dict[str, Any]) -> Any:
    """The shopper, except that a no does not stop it: it taps Pay again (a hostile model)."""
    return shopper(contract, text.replace("said no", "said"), body)


def test_a_model_reaching_again_for_a_refused_payment_ends_declined_without_asking_twice(
        tmp_path: Path) -> None:
    shop = Shop()
    model = shop.model = ScriptedModel(insistent)
    _, state = paused(shop, model, tmp_path)
    with orchestrator(shop.world("checkout"), model, task=TASK) as orch:
        result = orch.resume(state, "no")
    assert shop.paid_at == [] and result.status == "declined"
    assert "tried again what the user had refused" in result.answer
    assert result.question is None  # not a second needs_confirmation
    shop, channel = Shop(), ScriptedChannel([False, True])
    model = shop.model = ScriptedModel(insistent)
    with orchestrator(shop.world(), model, task=TASK, confirm=channel) as orch:
        result = orch.run(TASK)
    assert shop.paid_at == [] and result.status == "declined"
    assert len(channel.requests) == 1  # the user was not asked a second time
    # the model was told once that the no stands; only its second try ended the run
    told = [r for r in model.requests if "The user already said no to" in str(r)]
    assert len(told) == 1


def test_a_no_at_the_terminal_ends_declined_not_infeasible() -> None:
    shop, channel = Shop(), ScriptedChannel([False])
    model = shop.model = ScriptedModel(shopper)
    with orchestrator(shop.world(), model, task=TASK, confirm=channel) as orch:
        result = orch.run(TASK)
    assert shop.paid_at == [] and len(channel.requests) == 1
    assert result.status == "declined" and '"no"' in result.stopped_because
    assert "go to the checkout" in result.done


@pytest.mark.parametrize(("typed", "recorded"), [
    ("maybe\nwhat is this\nhmm\n", NO_CLEAR_ANSWER),  # three unclear answers
    ("\n", ENTER_ONLY),  # [y/N]: Enter alone is the default no, not a "no" typed
    ("nope\n", '"nope"'),  # a real no: the user's own word
])
def test_the_terminals_answer_is_recorded_as_given_never_as_a_no_not_said(
        typed: str, recorded: str) -> None:
    """Was: after three unclear terminal answers the run recorded the quote "no"."""
    import io

    shop = Shop()
    channel = TerminalChannel.from_streams(io.StringIO(typed), io.StringIO())
    model = shop.model = ScriptedModel(shopper)
    with orchestrator(shop.world(), model, task=TASK, confirm=channel) as orch:
        result = orch.run(TASK)
        state = orch.state
    assert shop.paid_at == [] and result.status == "declined"  # not done, as before
    assert f"the user declined: {recorded} " in result.stopped_because
    assert state is not None and state.refusal is not None
    assert state.refusal.words == recorded.strip('"')
    if recorded != '"nope"':
        assert '"no"' not in result.stopped_because
        assert all(answer != "no" for _, answer in state.dialogue.answers), \
            state.dialogue.answers


def test_a_yes_at_the_terminal_pays_in_the_same_turn_with_no_second_model_call() -> None:
    shop, channel = Shop(), ScriptedChannel([True])
    model = shop.model = ScriptedModel(shopper)
    with orchestrator(shop.world(), model, task=TASK, confirm=channel) as orch:
        result = orch.run(TASK)
    channel.assert_complete()
    # the reply that tapped Pay was the 4th decision; the tap ran in its own turn
    assert len(shop.paid_at) == 1 and model.contracts()[:shop.paid_at[0]].count(
        "DecisionBundle") == 4
    assert result.status == "done"


def test_a_no_to_the_operators_own_question_ends_declined_without_an_allow_hint() -> None:
    asked: list[str] = []

    def ask_first(contract: str, text: str, body: dict[str, Any]) -> Any:
        if contract == "DecisionBundle" and "answered: no" not in text:
            return bundle({"type": "ask_user", "question": "Pay ¥199.00 for the kettle?"})
        return shopper(contract, text.replace("answered: no", "said no"), body)

    def user(question: str) -> str:
        asked.append(question)
        return "no"

    shop = Shop()
    model = shop.model = ScriptedModel(ask_first)
    with orchestrator(shop.world(), model, task=TASK, ask_user=user) as orch:
        result = orch.run(TASK)
    assert asked == ["Pay ¥199.00 for the kettle?"] and shop.paid_at == []
    assert result.status == "declined" and "Pay ¥199.00 for the kettle?" in \
        result.stopped_because
    assert "--allow" not in result.next_hint and "answer yes when asked" in result.next_hint


def test_user_declined_when_the_user_said_no_to_nothing_is_not_believed() -> None:
    def liar(contract: str, text: str, body: dict[str, Any]) -> Any:
        if contract == "DecisionBundle":
            return bundle(user_declined=True, answer="the user does not want this")
        return shopper(contract, text, body)

    shop = Shop()
    model = shop.model = ScriptedModel(liar)
    with orchestrator(shop.world(), model, task=TASK, max_steps=8) as orch:
        result = orch.run(TASK)
    assert result.status == "failed"
    assert "said no to nothing" in model.texts()


def test_the_held_action_and_the_refusal_survive_state_json(tmp_path: Path) -> None:
    shop = Shop()
    model = shop.model = ScriptedModel(shopper)
    _, state = paused(shop, model, tmp_path)
    state.refusal = Refusal("不要", "tap Pay", "payment")
    with orchestrator(shop.world(), model) as orch:
        state.turns, state.usage = 3, (1, 2, 3)
        save_state(tmp_path, state, orch.memory, device="fake")
    again = load_state(tmp_path).state
    assert again.held == state.held and again.refusal == state.refusal
    assert [(r.intent, r.acted) for r in again.records] == [
        (r.intent, r.acted) for r in state.records]


def test_a_planner_that_gives_up_right_after_the_users_no_ends_declined() -> None:
    def planner_quits(contract: str, text: str, body: dict[str, Any]) -> Any:
        if contract == "Replan":
            return {"status": "infeasible", "response": "the user does not want to pay"}
        if contract == "DecisionBundle":
            return bundle({"type": "ask_user", "question": "Pay ¥199.00 for the kettle?"})
        return shopper(contract, text, body)

    shop = Shop()
    model = shop.model = ScriptedModel(planner_quits)
    with orchestrator(shop.world(), model, task=TASK, ask_user=lambda q: "不要") as orch:
        result = orch.run(TASK)
    assert result.status == "declined" and '"不要"' in result.stopped_because
    assert result.answer == "the user does not want to pay"


@pytest.mark.parametrize(("turns_after", "status"), [(0, "declined"), (1, "infeasible")])
def test_giving_up_on_the_first_turn_after_a_no_is_a_decline_later_it_is_not(
        turns_after: int, status: str) -> None:
    """A model that cannot say user_declined (a dialect's give-up) stops on the no."""
    seen: list[str] = []

    def gives_up(contract: str, text: str, body: dict[str, Any]) -> Any:
        if contract == "DecisionBundle" and "said no" in text:
            seen.append(text)
            if len(seen) <= turns_after:
                return act("look around", {"type": "wait", "seconds": 0.1})
            return bundle(goal_infeasible=True, answer="cannot pay")
        return shopper(contract, text, body)

    shop, channel = Shop(), ScriptedChannel([False])
    model = shop.model = ScriptedModel(gives_up)
    with orchestrator(shop.world(), model, task=TASK, confirm=channel) as orch:
        result = orch.run(TASK)
    assert shop.paid_at == [] and result.status == status
