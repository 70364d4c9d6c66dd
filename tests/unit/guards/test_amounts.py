"""The one amount parser: what users write as a limit and what screens show as a price."""

from __future__ import annotations

from decimal import Decimal

import pytest

from omg_agent.guards.amounts import (
    UNREADABLE,
    Limit,
    Money,
    amounts_in,
    number,
    parse_limit,
    parse_money,
    priced,
    split_limit,
    zh_number,
)

CNY = "CNY"


def m(value: str, currency: str | None = CNY) -> Money:
    return Money(Decimal(value), currency)


@pytest.mark.parametrize(("text", "expected"), [
    ("Pay ¥1,079.00", m("1079.00")),
    ("￥1079", m("1079")),
    ("１０７９元", m("1079")),
    ("1079块", m("1079")),
    ("1079 块钱", m("1079")),
    ("RMB 1079", m("1079")),
    ("rmb1079", m("1079")),
    ("人民币1079元", m("1079")),
    ("1079 yuan", m("1079")),
    ("$1,079", m("1079", "USD")),
    ("US$5", m("5", "USD")),
    ("20 dollars", m("20", "USD")),
    ("1.079,00 €", m("1079.00", "EUR")),
    ("€1.079,00", m("1079.00", "EUR")),
    ("12,50 €", m("12.50", "EUR")),
    ("3 euros", m("3", "EUR")),
    ("£7.5", m("7.5", "GBP")),
    ("1\u202f079,00 €", m("1079.00", "EUR")),
    ("CHF 1'079", m("1079", "CHF")),
    ("一百元", m("100")),
    ("两千五百块", m("2500")),
    ("十五元", m("15")),
    ("三万元", m("30000")),
    ("JPY 500", m("500", "JPY")),
])
def test_every_way_of_writing_an_amount_reads_the_same(text, expected):
    assert amounts_in(text) == [expected]


@pytest.mark.parametrize("text", ["1,07,9 yuan", "on 1.2.2024", "1,2,3 元", "1.0790,5 €"])
def test_badly_grouped_digits_are_unreadable_never_a_number(text):
    [found] = amounts_in(text)
    assert not found.readable and not Limit(m("1000000")).admits(found)


@pytest.mark.parametrize(("raw", "value"), [
    ("1079", "1079"), ("1,079", "1079"), ("1.079", "1079"), ("1,079.5", "1079.5"),
    ("0.125", "0.125"), ("1.5", "1.5"), ("12,50", "12.50"), ("1,079,000", "1079000"),
    ("1.079.000,25", "1079000.25"), ("1234,567", None), ("12,3456", "12.3456")])
def test_numbers_read_separators_as_people_write_them(raw, value):
    assert number(raw) == (Decimal(value) if value else None)


def test_only_amounts_with_a_currency_are_prices():
    assert priced("Pixel 8 × 1  ¥4,999.00") == [m("4999.00")]
    assert priced("Order #12 · 3 items") == []
    assert amounts_in("Pixel 8 × 1") == [m("8", None), m("1", None)]


def test_two_currencies_that_disagree_make_the_amount_unreadable():
    [found] = priced("$100元")
    assert not found.readable and found.currency == "USD"
    assert str(found) == 'an amount that cannot be read ("$100元")'


def test_words_that_only_contain_a_currency_name_are_not_one():
    assert priced("amateur 5") == [] and priced("Europe 100") == []
    assert priced("5 eurozone") == []


@pytest.mark.parametrize(("text", "limit"), [
    ("up to ¥100", Limit(m("100"))),
    ("at most 1 yuan", Limit(m("1"))),
    ("no more than $20", Limit(m("20", "USD"))),
    ("a maximum of €5", Limit(m("5", "EUR"))),
    ("under ¥5", Limit(m("5"), inclusive=False)),
    ("below 10 yuan", Limit(m("10"), inclusive=False)),
    ("less than 1.079,00 €", Limit(m("1079.00", "EUR"), inclusive=False)),
    ("<=100", Limit(m("100", None))),
    ("≤ ¥100", Limit(m("100"))),
    ("<100", Limit(m("100", None), inclusive=False)),
    ("最多付100元", Limit(m("100"))),
    ("最多付一百元", Limit(m("100"))),
    ("不超过100元", Limit(m("100"))),
    ("100元以内", Limit(m("100"))),
    ("少于5元", Limit(m("5"), inclusive=False)),
    ("spend ¥50 or less", Limit(m("50"))),
])
def test_limits_are_read_inclusive_or_strict(text, limit):
    assert parse_limit(text) == limit


@pytest.mark.parametrize("text", ["at most one hundred dollars", "up to a hundred yuan",
                                  "最多付几百元", "不超过一些钱 元"])
def test_a_limit_whose_amount_cannot_be_read_admits_nothing(text):
    assert parse_limit(text) is UNREADABLE
    assert not UNREADABLE.admits(m("0"))
    assert str(UNREADABLE) == "a limit that could not be read"


@pytest.mark.parametrize("text", ["in Shop", "pay for the order under my name",
                                  "the thunder 5 album", "", "you may pay ¥100"])
def test_no_limit_stated_is_none(text):
    assert parse_limit(text) is None


def test_splitting_a_limit_leaves_the_words_that_name_the_target():
    assert split_limit(" up to ¥100 in Shop") == (Limit(m("100")), "  in Shop")
    assert split_limit(" ¥100 in Shop") == (Limit(m("100")), "  in Shop")
    assert split_limit(" 3 times in Shop") == (None, " 3 times in Shop")


def test_a_limit_admits_the_same_currency_up_to_its_amount():
    at_most, under = Limit(m("100")), Limit(m("100"), inclusive=False)
    assert at_most.admits(m("100")) and not at_most.admits(m("100.01"))
    assert under.admits(m("99.99")) and not under.admits(m("100"))
    assert not at_most.admits(m("50", "USD")) and not at_most.admits(m("50", None))
    bare = Limit(m("100", None))
    assert bare.admits(m("100", "USD")) and not bare.admits(m("101"))


def test_amounts_print_as_written():
    assert str(m("1079.00")) == "¥1,079.00" and str(m("5", "USD")) == "$5"
    assert str(m("1079", "JPY")) == "1,079 JPY" and str(m("12.5", None)) == "12.5"
    assert str(Limit(m("1"))) == "at most ¥1"
    assert str(Limit(m("5", "EUR"), inclusive=False)) == "under €5"


@pytest.mark.parametrize(("text", "money"), [
    ("¥1", m("1")), (" 100 ", m("100", None)), ("1,079.00 €", m("1079.00", "EUR")),
    ("¥1 and ¥2", None), ("abc", None), ("", None), ("1,07,9", None)])
def test_parse_money_reads_exactly_one_amount(text, money):
    assert parse_money(text) == money


def test_chinese_numerals():
    assert [zh_number(t) for t in ("一", "十", "二十", "一百零五", "两千", "一万二千")] == [
        1, 10, 20, 105, 2000, 12000]
    assert zh_number("一百x") is None


@pytest.mark.parametrize(("raw", "value"), [
    ("100,000", "100000"), ("1,079.000", "1079.000"), ("1.079,500", "1079.500"),
    ("1,079.000.5", None)])
def test_two_kinds_of_separators_make_the_last_one_the_decimal_point(raw, value):
    assert number(raw) == (Decimal(value) if value else None)


def test_chinese_numerals_with_a_bare_unit_and_mixed_signs():
    assert zh_number("十万") == 100_000 and zh_number("一百十") == 110
    assert not amounts_in("$一百元")[0].readable
    assert amounts_in("一百元 and ¥5") == [m("100"), m("5")]


def test_limit_words_before_badly_grouped_digits_are_unreadable():
    assert parse_limit("at most 1,07,9 yuan") is UNREADABLE


# -- issue 34: amounts read too low (limit ¥100, all allowed on main) ----------------------
HUNDRED = Limit(m("100"))


@pytest.mark.parametrize(("text", "expected"), [
    ("1 079,00 €", m("1079.00", "EUR")),  # main: €79.00
    ("¥1.2万", m("12000")),  # main: ¥1.2
    ("1.2万元", m("12000")),  # main: ¥0
    ("$1.2k", m("1200", "USD")),  # main: $1.2
])
def test_the_issues_renderings_read_their_whole_amount(text, expected):
    assert priced(text) == [expected]
    assert not HUNDRED.admits(expected)


@pytest.mark.parametrize("text", [
    "¥1\u201a079.00",  # SINGLE LOW-9 QUOTATION MARK for a comma; main: ¥1
    "¥1\u2060,079.00",  # WORD JOINER before the comma; main: ¥1
    "¥1\u200b079.00",  # ZERO WIDTH SPACE; main: ¥1
])
def test_an_unknown_character_between_digits_makes_the_amount_unreadable(text):
    [found] = priced(text)
    assert not found.readable and found.currency == "CNY"
    assert not HUNDRED.admits(found) and not Limit(m("1000000000")).admits(found)
    assert "cannot be read" in str(found)


@pytest.mark.parametrize(("text", "value", "currency"), [
    ("¥１,０７９.００", "1079.00", "CNY"), ("١٬٠٧٩٫٠٠ ¥", "1079.00", "CNY"),
    ("₹१,०७९", "1079", "INR"), ("₹1,07,900", "107900", "INR"),
    ("1\u202f079,00 €", "1079.00", "EUR"),
    ("¥1\u3000079.00", "1079.00", "CNY"), ("1'079.50 CHF", "1079.50", "CHF"),
    ("¥1万2千", "12000", "CNY"), ("¥1万2", "12000", "CNY"), ("¥3千万", "30000000", "CNY"),
    ("两亿元", "200000000", "CNY"), ("$2M", "2000000", "USD"),
    ("1.5 million dollars", "1500000", "USD"),
    ("US$1bn", "1000000000", "USD"), ("₩10,000", "10000", "KRW"), ("10,000원", "10000", "KRW"),
    ("HK$5", "5", "HKD"), ("¥ 1,079.00", "1079.00", "CNY"), ("1,079.00\u00a0€", "1079.00", "EUR"),
])
def test_digits_spaces_multipliers_and_currencies_of_the_world(text, value, currency):
    assert priced(text) == [m(value, currency)]


@pytest.mark.parametrize("text", [
    "¥1O79", "¥1-079", "¥1·079", "¥1\u00a007", "¥1.2\u200b万", "¥\u200b1,079.00",
    "1,079.00\u200b元", "¥1\n079.00", "¥1ʼ079", "¥1丨079",
])
def test_whatever_else_sits_between_or_beside_digits_is_unreadable(text):
    assert [f.readable for f in priced(text)] == [False]


def test_a_sign_between_two_numbers_counts_for_both():
    assert priced("Qty 1 ¥4,999.00") == [m("4999.00")]  # a sign before digits is theirs
    assert priced("5 € 10") == [m("5", "EUR"), m("10", "EUR")]  # either way: the higher wins
    assert priced("¥99-¥199") == [m("99"), m("199")]


def test_a_limit_takes_the_lower_reading_a_screen_the_higher():
    assert priced("¥100 200") == [m("100200")]
    assert parse_limit("at most ¥100 200 times") == Limit(m("100"))
    assert parse_limit("up to 1 000 €") == Limit(m("1000", "EUR"))  # the € ends one number
    assert parse_limit("up to 1 000,50") == Limit(m("1000.50", None))
    assert parse_limit("at most ¥1\u200b000") is UNREADABLE
    assert parse_money("¥1\u200b000") is None
