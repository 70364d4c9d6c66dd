"""Attack round on Gate v3 (docs/attack-round.md), amounts: renderings the parser read lower
than what is paid — a space inside a price's digits ("¥1,0 79" read ¥1.0) and a count the
price is multiplied by ("Pay ¥1,079.00 × 2", "2 × ¥1,079" read ¥1,079) — are unreadable
now: no limit admits them, the gate asks. A count beside a bare number stays a number."""

from __future__ import annotations

from decimal import Decimal

import pytest

from omg_agent.guards.amounts import amounts_in, priced


@pytest.mark.parametrize(("written", "paid"), [
    ("Pay ¥1,0 79", 1079), ("Pay ¥1,079.00 × 2", 2158), ("Pay 2 × ¥1,079", 2158),
    ("Pay ¥1,079 x2", 2158), ("Pay 2x ¥1,079", 2158), ("Pay $1,079 * 3", 3237),
    ("支付 ¥539.50 ✕ 2", 1079)])
def test_a_price_read_lower_than_what_is_paid_is_unreadable(written, paid) -> None:
    found = priced(written)
    assert found and not any(m.readable and m.value < paid for m in found), found


@pytest.mark.parametrize(("written", "value"), [("Pay ¥1,079.00", "1079.00"),
                                                ("Pixel 8 × 1  ¥4,999.00", "4999.00"),
                                                ("Pay ¥1 079.00", "1079.00")])
def test_a_plain_price_still_reads(written, value) -> None:
    assert [m.value for m in priced(written)] == [Decimal(value)]


def test_a_count_beside_a_bare_number_is_still_two_numbers() -> None:
    assert [m.value for m in amounts_in("Pixel 8 × 1")] == [Decimal(8), Decimal(1)]
