"""How the amount parser reads the characters around an amount (issue 34, mutation testing):
a combining mark on a letter is part of the word, one anywhere else hides something, and
full-width forms fold after words too (docs/mutation.md)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from omg_agent.guards.amounts import (
    UNREADABLE,
    Limit,
    Money,
    amounts_in,
    parse_limit,
    parse_money,
    priced,
    split_limit,
)


def cny(value: str) -> Money:
    return Money(Decimal(value), "CNY")


def test_full_width_digits_after_a_word_are_read():
    assert priced("Total ￥１，０７９.００") == [cny("1079.00")]


def test_an_accent_written_as_a_combining_mark_does_not_end_the_text():
    assert priced("Cafe\u0301 latte ¥25") == [cny("25")]  # "Café", decomposed


@pytest.mark.parametrize("hidden", [
    "\u0301",  # a combining mark (Mn) on no letter
    "\u20dd",  # an enclosing mark (Me)
    "\ue000",  # a private-use character (Co)
    "\u0378",  # an unassigned code point (Cn)
    "\ud800",  # a lone surrogate (Cs)
    "\x07",  # a control character (Cc) that is no line break or tab
    "\u3164",  # a blank filler "letter"
])
def test_an_invisible_character_between_the_sign_and_the_digits_hides_the_amount(hidden):
    [found] = priced(f"¥{hidden}1,079.00")
    assert not found.readable and found.currency == "CNY"


def test_a_sign_no_table_lists_is_the_currency_itself():
    assert priced("₺1,079") == [Money(Decimal("1079"), "₺")]
    [found] = amounts_in("₺100元")  # two currencies that disagree: the one before is said
    assert not found.readable and found.currency == "₺"


def test_a_character_that_folds_into_several_is_kept_as_written():
    # "¼" folds to "1⁄4": read so, it would put two numbers (and shift every position)
    assert amounts_in("¼ off: ¥5") == [cny("5")]


def test_two_currencies_that_disagree_keep_the_one_before_whatever_its_case():
    [found] = amounts_in("RMB100美元")
    assert not found.readable and found.currency == "CNY"


def test_a_number_with_separators_then_units_then_more_digits_is_unreadable():
    # separators only in a number before one run of units (¥1.2万, ¥1,200万)
    [found] = priced("¥1.5万2")
    assert not found.readable


def test_a_limit_with_units_takes_the_lower_reading_of_its_digits_a_screen_the_higher():
    assert parse_limit("at most ¥1 000万") == Limit(cny("10000"))
    assert priced("¥1 000万") == [cny("10000000")]


def test_chinese_numerals_under_two_currencies_are_unreadable_and_say_the_first():
    [found] = amounts_in("$一百元")
    assert (found.readable, found.currency) == (False, "USD")
    assert str(found) == 'an amount that cannot be read ("$一百元")'


def test_a_sign_after_an_amount_with_its_own_sign_belongs_to_the_next():
    assert amounts_in("¥5 €10") == [cny("5"), Money(Decimal("10"), "EUR")]
    assert amounts_in("¥5 € 10") == [cny("5"), Money(Decimal("10"), "EUR")]


@pytest.mark.parametrize("text", ["1,¥579.00", "Pay 1,¥579.00"])
def test_an_amount_glued_to_digits_before_it_is_unreadable(text):
    # never ¥579: the digits before belong to it ("¥1,579.00" with the sign misplaced)
    assert [m.readable for m in amounts_in(text)] == [False, False]


@pytest.mark.parametrize("text", ["10 79,00 €", "Pay 5 79,00 €"])
def test_digits_a_plain_space_before_an_amount_with_a_currency_after_make_it_unreadable(text):
    # "1079,00 €" broken by a space in the wrong place: never €79.00
    assert [m.readable for m in amounts_in(text)] == [False, False]


def test_an_invisible_character_right_after_an_amount_makes_it_unreadable_and_is_shown():
    [found] = amounts_in("¥100\u200b/month")
    assert not found.readable and found.currency == "CNY"
    [cut] = amounts_in("¥1.2\u2060万 ok")  # the question shows what was cut off
    assert str(cut) == 'an amount that cannot be read ("¥1.2\\u2060万")'


def test_an_amount_the_user_writes_takes_the_lower_reading():
    assert parse_money("¥100 200") == cny("100")
    assert split_limit("you may pay ¥100 200 in Shop") == (Limit(cny("100")),
                                                          "you may pay  in Shop")


def test_a_bare_amount_limit_that_cannot_be_read_admits_nothing():
    limit, rest = split_limit("you may pay ¥1\u200b000 in Shop")
    assert limit is UNREADABLE and rest == "you may pay  in Shop"
