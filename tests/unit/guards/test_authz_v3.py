"""What the user said is honoured — limits from any sentence about spending, a run total,
several recipients, Chinese phrasings, negations, named deletes and secrets (issue 34 item 5,
issue 35 item 4). Each case failed on main @668f8c2."""

from __future__ import annotations

from decimal import Decimal

import pytest
from gate_screens import LOGIN, MESSAGES, SHOP, element, made_screen, observe, tap

from omg_agent.core.actions import parse_action
from omg_agent.core.observation import Observation
from omg_agent.guards.amounts import UNREADABLE, Limit, Money
from omg_agent.guards.authorisation import Authorisation, parse_allow, parse_authorisations
from omg_agent.guards.confirmation import ScriptedChannel
from omg_agent.guards.gatekeeper import GateKeeper
from omg_agent.guards.sensitive import Gate
from omg_agent.guards.spend_ledger import SpendLedger

A = Authorisation
KINDLE = "p15"  # ¥1,079.00 on a seed-0 phone


def cny(value: str) -> Money:
    return Money(Decimal(value), "CNY")


def at_most(value: str, currency: str | None = "CNY") -> Limit:
    return Limit(Money(Decimal(value), currency))


def tap_on(e):
    return parse_action({"type": "tap", "target": e.id})


@pytest.fixture
def checkout(make_phone):
    phone = make_phone(seed=0)
    phone.apps[SHOP].cart = {KINDLE: 1}
    phone.start_activity(SHOP)
    phone.apps[SHOP].push("checkout")
    obs = observe(phone)
    return obs, element(obs, rid="pay")


# -- limits from any sentence about spending -----------------------------------------------
@pytest.mark.parametrize("task", [
    "You may pay in Shop. Do not spend more than 100 yuan.",
    "You may pay in Shop. Never exceed ¥100.",
    "You may pay in Shop. The budget is ¥100.",
    "You may pay in Shop; anything above ¥100 needs my ok.",
    "You may pay in Shop up to ¥100 per item.",
    "可以在Shop付款，预算100元。",
    "可以付款，100元封顶。",
    "You may pay in Shop. Don't spend more than a hundred bucks.",  # unreadable: nothing
])
def test_a_limit_in_any_spending_sentence_holds_a_payment_beyond_it(checkout, task):
    obs, pay = checkout
    decision = Gate(parse_authorisations(task)).check(tap_on(pay), pay, obs)
    assert decision.needs_confirmation
    assert "limit" in decision.sensitivity.reason


@pytest.mark.parametrize(("task", "expected"), [
    ("You may pay in Shop. Do not spend more than 100 yuan.",
     [A("payment", "Shop", limit=at_most("100"))]),
    ("You may pay in Shop up to ¥100 per item",
     [A("payment", "Shop", limit=at_most("100"), per_payment=True)]),
    ("You may pay up to ¥100 per item in Shop",
     [A("payment", "Shop", limit=at_most("100"), per_payment=True)]),
    ("You may pay in Shop. Don't spend more than a hundred bucks.",
     [A("payment", "Shop", limit=UNREADABLE)]),
    ("if it costs under ¥50 you may buy it",
     [A("payment", None, limit=Limit(cny("50"), inclusive=False))]),
])
def test_limits_keep_their_target_and_scope(task, expected):
    assert parse_authorisations(task) == expected


@pytest.mark.parametrize(("value", "expected"), [
    ("payment:100", A("payment", None, "--allow", at_most("100", None))),
    ("payment:¥100", A("payment", None, "--allow", at_most("100"))),
    ("payment:<=100", A("payment", None, "--allow", at_most("100", None))),
    ("payment:Shop<=100", A("payment", "Shop", "--allow", at_most("100", None))),
])
def test_an_amount_in_allow_is_a_limit_not_a_target(value, expected):
    assert parse_allow([value]) == [expected]


def test_allow_payment_100_holds_a_1079_payment(checkout):
    obs, pay = checkout
    assert Gate(parse_allow(["payment:100"])).check(tap_on(pay), pay, obs).needs_confirmation


# -- the run's total ---------------------------------------------------------------------------
def _pay_59() -> Observation:
    return made_screen(SHOP, [
        {"text": "Checkout", "bounds": (0, 100, 1080, 250)},
        {"text": "Total: ¥59.00", "bounds": (40, 1800, 1040, 1900)},
        {"role": "button", "cls": "android.widget.Button", "clickable": True,
         "text": "Pay ¥59.00", "resource_id": f"{SHOP}:id/pay", "bounds": (40, 2000, 1040, 2150)},
    ])


def _three_payments(task: str) -> list[bool]:
    keeper = GateKeeper(Gate(parse_authorisations(task)), ScriptedChannel([False] * 3))
    obs = _pay_59()
    pay = obs.elements[-1]
    return [keeper.review([tap_on(pay)], obs, elements=[pay]) is None for _ in range(3)]


def test_a_limit_bounds_the_runs_total_not_each_payment():
    """"spend no more than ¥100" let a model buy three ¥59 items (¥177)."""
    assert _three_payments("Buy three cables in Shop; spend no more than ¥100") == [
        True, False, False]


def test_a_per_item_limit_bounds_each_payment_and_a_stated_total_still_holds():
    assert _three_payments("You may pay in Shop up to ¥60 per item") == [True, True, True]
    assert _three_payments("You may pay in Shop up to ¥60 per item and ¥150 in total") == [
        True, True, False]


def test_a_held_payment_says_what_was_paid_already():
    gate = Gate(parse_authorisations("Buy cables in Shop; spend no more than ¥100"))
    obs = _pay_59()
    pay = obs.elements[-1]
    gate.paid(gate.check(tap_on(pay), pay, obs).sensitivity)
    decision = gate.check(tap_on(pay), pay, obs)
    assert decision.needs_confirmation
    assert "¥59.00 paid already; ¥59.00 more makes ¥118.00, beyond your limit (at most ¥100)" \
        in decision.sensitivity.reason


def test_an_unreadable_payment_holds_every_later_total():
    ledger = SpendLedger()
    ledger.record(())
    assert "could not be read" in ledger.problem(at_most("100"), (cny("1"),))
    assert SpendLedger.of(ledger.as_data()) == ledger
    ledger = SpendLedger([cny("59"), Money(Decimal("5"), "USD")])
    assert SpendLedger.of(ledger.as_data()) == ledger
    assert ledger.total("CNY") == Decimal("59") and ledger.total(None) == Decimal("64")
    with pytest.raises(ValueError, match="not an"):
        SpendLedger.of([["x", "CNY"]])


# -- sends the task states in full -------------------------------------------------------------
@pytest.mark.parametrize(("task", "expected"), [
    ('Send "On my way" to 妈妈 and to Bob in Messages.',
     [("妈妈", "On my way"), ("Bob", "On my way")]),
    ("给妈妈发消息说我到了", [("妈妈", "我到了")]),
    ('Text Bob "running late"', [("Bob", "running late")]),
    ("Reply ok to Alice", [("Alice", "ok")]),
    ("Send hi to Alice, Bob and 妈妈", [("Alice", "hi"), ("Bob", "hi"), ("妈妈", "hi")]),
    ("回复Alice：好的", [("Alice", "好的")]),
])
def test_sends_name_every_recipient_and_the_exact_text(task, expected):
    assert [(a.target, a.text) for a in parse_authorisations(task)] == expected
    assert all(a.cls == "send" and a.grants for a in parse_authorisations(task))


def test_both_sends_of_a_two_recipient_task_pass_without_a_question(make_phone):
    phone = make_phone()
    phone.start_activity(MESSAGES)
    gate = Gate(parse_authorisations('Send "On my way" to 妈妈 and to Bob in Messages.'))
    tap(phone, desc="Bob")
    tap(phone, rid="compose")
    phone.input_text("On my way")
    obs = observe(phone)
    send = element(obs, rid="send")
    assert gate.check(tap_on(send), send, obs).allowed


# -- negations, reading, conditionals ---------------------------------------------------------
@pytest.mark.parametrize(("task", "cls"), [
    ("You may pay in Shop. Don't pay.", "payment"),
    ("可以付款。不要付款。", "payment"),
    ("you may delete notes, but never delete anything", "delete"),
])
def test_a_negated_permission_wins(checkout, task, cls):
    found = parse_authorisations(task)
    assert not any(a.grants for a in found)
    assert A(cls, None, grants=False, forbids=True) in found
    if cls == "payment":
        obs, pay = checkout
        held = Gate([*found, *parse_allow(["payment"])]).check(tap_on(pay), pay, obs)
        assert held.needs_confirmation and "no payment" in held.sensitivity.reason


@pytest.mark.parametrize("task", ["you may read my messages", "don't delete anything",
                                  "Never buy anything in Shop", "不要付款"])
def test_words_that_permit_nothing_grant_nothing(task):
    assert not any(a.grants for a in parse_authorisations(task))


# -- named deletes and secrets -----------------------------------------------------------------
@pytest.mark.parametrize("task", ["Delete the note titled old", "删除备忘录old",
                                  "Delete the note 'old' in Notes"])
def test_a_named_delete_grants_that_object_only(task):
    assert parse_authorisations(task) == [A("delete", "old")]


def test_a_secret_named_for_signing_in_is_typed_into_that_apps_password_field(make_phone):
    phone = make_phone()
    phone.start_activity(LOGIN)
    obs = observe(phone)
    pw = element(obs, rid="password")
    typed = parse_action({"type": "type", "text": "{{secret:Pass}}", "target": pw.id})
    task = "Sign in to Login as demo with password {{secret:Pass}}"
    assert parse_authorisations(task) == [A("secret_entry", "Login")]
    assert Gate(parse_authorisations(task)).check(typed, pw, obs).allowed
    assert Gate(parse_authorisations("Open Login")).check(typed, pw, obs).needs_confirmation
