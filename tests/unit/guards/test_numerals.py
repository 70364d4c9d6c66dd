"""Numbers as written (issue 34, mutation testing of guards/numerals.py): what reads, what
is no number, and Indian grouping — pinned on :func:`number` itself (docs/mutation.md)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from omg_agent.guards.amounts import Money, priced
from omg_agent.guards.numerals import number, zh_number


@pytest.mark.parametrize(("raw", "value"), [
    ("1 000", "1000"),  # a screen's reading: one number (only a limit reads the lower)
    ("12,34,567", "1234567"),  # Indian grouping with a two-digit head
    ("١,٠٧٩", "1079"),  # any script's digits
])
def test_numbers_that_read(raw, value):
    assert number(raw) == Decimal(value)


@pytest.mark.parametrize("raw", [
    "", ".5", "07",  # nothing, no whole part, a leading zero: a part of a number
    "1٫000,5",  # the Arabic decimal mark used to group
    "123,45,678",  # Indian grouping with a three-digit head
    "1,23,456,789", "1,2,456",  # Indian groups that are not pairs
])
def test_what_is_no_number(raw):
    assert number(raw) is None


@pytest.mark.parametrize(("text", "value"), [
    ("一亿三万", 100_030_000), ("三千亿", 300_000_000_000), ("一万亿", 10**12),
    ("万", 10_000), ("亿", 100_000_000),
])
def test_chinese_numerals_count_as_chinese_counts_them(text, value):
    assert zh_number(text) == value


def test_units_after_digits_keep_the_value_as_written():
    assert priced("¥3百5") == [Money(Decimal("350"), "CNY")]  # the last digit counts tens
    assert [str(m) for m in priced("¥1.2万")] == ["¥12,000"]  # a whole number stays whole
    assert priced("¥1.2345百") == [Money(Decimal("123.45"), "CNY")]  # never rounded down
