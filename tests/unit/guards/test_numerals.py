"""Numbers as written (issue 34, mutation testing of guards/numerals.py): what reads, what
is no number, and Indian grouping — pinned on :func:`number` itself (docs/mutation.md)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from omg_agent.guards.numerals import number


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
