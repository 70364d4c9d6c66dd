"""The run's total counts a payment once, whichever judges it (issue 34): the segment review
lets a ¥1,079 payment go under "up to ¥2,000" and counts it; the choke point then judges the
same tap on Pay — without the review's count (else ¥1,079 + ¥1,079 = ¥2,158 and the payment
the limit allows is held) — and counts it as it lands."""

from __future__ import annotations

from decimal import Decimal

import pytest
from gate_screens import made_screen

from omg_agent.core.actions import parse_action
from omg_agent.core.geometry import Point
from omg_agent.drivers.ports import InputEffect, InputHeld, InputScene
from omg_agent.guards.authorisation import parse_allow
from omg_agent.guards.choke import ChokePoint
from omg_agent.guards.gatekeeper import GateKeeper
from omg_agent.guards.sensitive import Gate

PAY = (100, 1800, 980, 1950)
CHECKOUT = made_screen("com.omg.shop", [
    {"text": "Pay ¥1,079.00", "role": "button", "cls": "android.widget.Button",
     "clickable": True, "bounds": PAY, "resource_id": "com.omg.shop:id/pay"}])
TAP = parse_action({"type": "tap", "target": {"kind": "point", "x": 500, "y": 781}})
LANDS = InputEffect("tap", Point(540, 1875))


def keeper(allow: str) -> GateKeeper:
    return GateKeeper(Gate(parse_allow([allow])))  # nobody to ask: what needs a yes is held


def test_a_payment_the_review_let_go_lands_and_is_counted_once() -> None:
    gk = keeper("payment:<=2000")
    choke = ChokePoint(gk)
    assert gk.review([TAP], CHECKOUT) is None
    choke.judge(LANDS, InputScene(CHECKOUT, 28))  # main held it: ¥2,158 > ¥2,000
    assert gk.gate.ledger.total(None) == Decimal("1079.00")
    assert gk.review([TAP], CHECKOUT) is not None  # a second ¥1,079: ¥2,158, asked


def test_a_payment_only_the_choke_point_sees_joins_the_total() -> None:
    gk = keeper("payment:<=2000")
    choke = ChokePoint(gk)
    choke.judge(LANDS, InputScene(CHECKOUT, 28))  # no review before it (a direct tap)
    assert gk.gate.ledger.total(None) == Decimal("1079.00")
    with pytest.raises(InputHeld):
        choke.judge(LANDS, InputScene(CHECKOUT, 28))
