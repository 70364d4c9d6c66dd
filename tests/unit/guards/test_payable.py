"""The payable total of a checkout (issue 34, item 6): what the gate keeps a limit with when
the Pay control shows no amount, and what it never takes for the total (a saving, a fee)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from gate_screens import SHOP, made_screen

from omg_agent.core.actions import parse_action
from omg_agent.core.observation import Observation
from omg_agent.guards.amounts import Money
from omg_agent.guards.authorisation import parse_allow, parse_authorisations
from omg_agent.guards.payable import is_total, payment_amounts, row_totals
from omg_agent.guards.sensitive import Gate


def cny(value: str) -> Money:
    return Money(Decimal(value), "CNY")


def checkout(*rows: str, pay: str = "Pay now") -> Observation:
    return made_screen(SHOP, [
        {"text": "Checkout", "bounds": (0, 100, 1080, 250)},
        *({"text": r, "bounds": (40, 300 + 110 * i, 1040, 400 + 110 * i)}
          for i, r in enumerate(rows)),
        {"role": "button", "cls": "android.widget.Button", "clickable": True, "text": pay,
         "resource_id": f"{SHOP}:id/pay", "bounds": (40, 2000, 1040, 2150)}])


def decide(obs: Observation, allow: str = "payment:<=100", task: str = ""):
    pay = obs.elements[-1]
    gate = Gate([*parse_allow([allow] if allow else []), *parse_authorisations(task)])
    return gate.check(parse_action({"type": "tap", "target": pay.id}), pay, obs)


# -- the two screens (limit ¥100; main allowed both) -------------------------------
def test_pay_now_reads_the_amount_payable_not_what_was_saved():
    obs = checkout("You saved ¥50 in total", "Amount payable ¥1,079.00")  # main: ¥50
    assert payment_amounts(obs.elements[-1], obs) == (cny("1079.00"),)
    decision = decide(obs)
    assert decision.needs_confirmation
    assert "¥1,079.00 is beyond your limit (at most 100)" in decision.sensitivity.reason
    assert decide(obs, "", "Pay in Shop; you may pay at most ¥100").needs_confirmation
    assert decide(obs, "payment:<=1079").allowed


def test_a_fee_inside_the_total_rows_label_is_not_the_total():
    obs = checkout("Total (incl. ¥5 delivery): ¥ 1,079.00")
    assert payment_amounts(obs.elements[-1], obs) == (cny("1079.00"),)
    assert decide(obs).needs_confirmation
    # the label and the amount as two texts of one row: main read ¥5 and paid
    split = made_screen(SHOP, [
        {"text": "Total (incl. ¥5 delivery):", "bounds": (40, 1800, 600, 1900)},
        {"text": "¥ 1,079.00", "bounds": (620, 1810, 1040, 1890)},
        {"role": "button", "cls": "android.widget.Button", "clickable": True,
         "text": "Pay now", "resource_id": f"{SHOP}:id/pay", "bounds": (40, 2000, 1040, 2150)}])
    assert payment_amounts(split.elements[-1], split) == (cny("1079.00"),)
    assert decide(split).needs_confirmation


def test_a_savings_label_beside_its_amount_is_no_total():
    obs = made_screen(SHOP, [
        {"text": "You saved in total", "bounds": (40, 1800, 600, 1900)},
        {"text": "¥50.00", "bounds": (620, 1810, 1040, 1890)},
        {"role": "button", "cls": "android.widget.Button", "clickable": True,
         "text": "Pay now", "resource_id": f"{SHOP}:id/pay", "bounds": (40, 2000, 1040, 2150)}])
    assert payment_amounts(obs.elements[-1], obs) == ()
    assert decide(obs).needs_confirmation


# -- reading a total row --------------------------------------------------------------------
@pytest.mark.parametrize(("row", "totals"), [
    ("Total (incl. ¥5 delivery): ¥ 1,079.00", ["1079.00"]),
    ("Total: ¥1,079.00 (you saved ¥50)", ["1079.00"]),
    ("Total ¥1,084.00 incl. ¥5 delivery", ["1084.00"]),
    ("Delivery ¥5 · Total ¥1,079", ["1079"]),
    ("Total incl. VAT: ¥1,079.00", ["1079.00"]),
    ("Amount payable ¥1,079.00 You saved ¥50", ["1079.00"]),
    ("实付款 ¥1,079.00 已优惠 ¥50", ["1079.00"]),
    ("合计：¥1,079.00，已省¥50", ["1079.00"]),
    ("合计 ¥1,079.00（含运费 ¥5）", ["1079.00"]),
    ("含税总价 ¥1,079", ["1079"]),
    ("Amount payable ¥1,079.00 incl. shipping", ["1079.00"]),
    ("Total ¥5.00 delivery", []),
    ("You saved ¥50 in total", []),
    ("Delivery fee (total ¥5)", []),
    ("Total ¥5 off", []),
    ("Total savings: ¥2,000.00", []),
])
def test_a_total_rows_amounts_are_labelled_by_their_own_words(row, totals):
    assert is_total(row)
    assert row_totals(row) == [cny(v) for v in totals]


@pytest.mark.parametrize("row", ["Subtotal ¥50.00", "Delivery ¥5.00", "Pixel 8 × 1 ¥4,999"])
def test_rows_that_name_no_total(row):
    assert not is_total(row)


def test_a_pay_control_with_no_amount_and_no_readable_total_asks():
    obs = checkout("You saved ¥50 in total", "Delivery ¥5.00", "Tax ¥8.00")
    assert payment_amounts(obs.elements[-1], obs) == ()
    decision = decide(obs)
    assert decision.needs_confirmation
    assert "no amount could be read" in decision.sensitivity.reason


def test_an_unreadable_total_is_beyond_every_limit():
    obs = checkout("Amount payable ¥1\u200b079.00", "You saved ¥50 in total")
    [found] = payment_amounts(obs.elements[-1], obs)
    assert not found.readable
    decision = decide(obs, "payment:<=1000000")
    assert decision.needs_confirmation and "cannot be read" in decision.sensitivity.reason


def test_several_totals_the_highest_first_and_every_one_within_the_limit():
    obs = checkout("合计 ¥99.00", "Amount payable ¥199.00", pay="Pay ¥99.00")
    assert payment_amounts(obs.elements[-1], obs) == (cny("199.00"), cny("99.00"))
    assert decide(obs, "payment:<=150").needs_confirmation
    assert decide(obs, "payment:<=199").allowed
