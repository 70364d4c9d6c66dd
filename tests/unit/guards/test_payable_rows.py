"""Which words label which amount of a total row (issue 34, mutation testing): the words in a
bracket, before it, after an amount and across an earlier amount — each pinned by a row the
gate could be shown, so a change to how a row is read fails here (docs/mutation.md)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from gate_screens import SHOP, made_screen

from omg_agent.guards.amounts import Money
from omg_agent.guards.payable import row_totals, total_rows


def cny(value: str) -> Money:
    return Money(Decimal(value), "CNY")


@pytest.mark.parametrize(("row", "totals"), [
    # a bracket's first word labels the amount inside it ("fee", not "ee")
    ("Total ¥1,079.00 (fee ¥5)", ["1079.00"]),
    # a label reaches back to the amount before it, not past it: "Delivery" is ¥5's
    ("Delivery ¥5 Total ¥1,079", ["1079"]),
    # words after an amount label it only up to the next amount; a break further on
    # does not make the next amount's words this one's
    ("Amount payable ¥1,079.00 You saved ¥50 (coupon)", ["1079.00"]),
    # the middle amount's own trailing words ("delivery,") label it
    ("Total ¥1,079 · ¥5 delivery, ¥2 tip", ["1079"]),
    # the words before a bracket label the amount inside it, read from the row's start …
    ("Delivery (¥5) · Total ¥1,079", ["1079"]),
    # … only up to the bracket, not past it to the next label
    ("Delivery (¥5) Total ¥1,079", ["1079"]),
    # … and from the last amount before the bracket, even one glued to it
    ("Shipping ¥5 (Total ¥1,079)", ["1079"]),
    ("You saved ¥50(total ¥1,079)", ["1079"]),
    # what a nested bracket says is no label of the amount after it
    ("Delivery (standard) ¥5 · Total ¥1,079", ["1079"]),
])
def test_each_amount_of_a_row_is_labelled_by_the_words_nearest_it(row, totals):
    assert row_totals(row) == [cny(v) for v in totals]


def test_a_total_row_with_its_amount_beside_it_is_read_once():
    obs = made_screen(SHOP, [
        {"text": "Total", "bounds": (40, 1800, 500, 1900)},
        {"text": "¥1,079.00", "bounds": (600, 1810, 1040, 1890)},
        {"text": "", "desc": "", "bounds": (500, 1800, 600, 1900)},  # a spacer on the row
        {"text": "¥3.00", "bounds": (600, 1950, 1040, 2050)},  # the next row
    ])
    assert total_rows(obs) == ["Total", "¥1,079.00"]
