"""A replay that paid (sent, deleted) and then failed stops there — "paid once: check the
phone" — and nothing in it pays again (issue 24, item 5). Runs on a fake shop: a Pay
button that records an order each time it is tapped."""

from __future__ import annotations

from typing import Any

from brain.fakes import FakeDriver, FakeWorld, el

from omg_agent.core.actions import Action
from omg_agent.core.observation import UIElement
from omg_agent.drivers.base import ActionOutcome, ExecResult
from omg_agent.errors import ActionRejected, DeviceOffline
from omg_agent.flows.parse import parse_flow
from omg_agent.flows.replay import FlowRunner
from omg_agent.guards.authorisation import parse_allow
from omg_agent.guards.confirmation import ScriptedChannel
from omg_agent.guards.gatekeeper import GateKeeper
from omg_agent.guards.sensitive import Gate

SHOP = "com.omg.shop"


class Shop:
    """Checkout → Pay → a page saying ``outcome``; every Pay is an order. A page that says
    the payment failed offers Pay again (as shops do) — though the order went through."""

    def __init__(self, outcome: str = "Payment successful") -> None:
        self.orders = 0
        pay = el(2, "Pay ¥1,079.00", res=f"{SHOP}:id/pay")
        again = [pay] if "failed" in outcome else []
        self.world = FakeWorld(
            {"checkout": (SHOP, [el(1, "Checkout", role="text", clickable=False), pay]),
             "paid": (SHOP, [el(3, outcome, res=f"{SHOP}:id/outcome", role="text",
                                clickable=False), *again])},
            self.move, "checkout")

    def move(self, screen: str, action: Action, element: UIElement | None) -> str:
        if element is not None and element.id == 2:
            self.orders += 1
            return "paid"
        return screen


def allowed() -> GateKeeper:
    return GateKeeper(Gate(parse_allow(["payment"])))


PAY = "- tapOn:\n    id: pay\n"


def test_a_check_failing_after_a_payment_ends_failed_paid_once_and_pays_once() -> None:
    shop = Shop(outcome="Payment failed")
    flow = parse_flow(PAY + "- assertVisible: Payment successful\n")
    result = FlowRunner(FakeDriver(shop.world), gate=allowed(), step_timeout=0).run(flow)
    assert result.status == "failed"
    assert result.failed.startswith("paid once: check the phone")
    assert result.irreversible == ["payment"] and shop.orders == 1


def test_a_retry_block_never_runs_a_body_again_once_it_paid() -> None:
    shop = Shop(outcome="Payment failed")
    flow = parse_flow("- retry:\n    maxRetries: 3\n    commands:\n      - tapOn:\n"
                      "          id: pay\n      - assertVisible: Payment successful\n")
    result = FlowRunner(FakeDriver(shop.world), gate=allowed(), step_timeout=0).run(flow)
    assert shop.orders == 1
    assert result.status == "failed" and result.once == "paid once"


def test_a_payment_that_shows_its_proof_is_done() -> None:
    shop = Shop()
    flow = parse_flow(PAY + "- assertVisible: Payment successful\n")
    result = FlowRunner(FakeDriver(shop.world), gate=allowed(), step_timeout=0).run(flow)
    assert result.status == "done" and shop.orders == 1


def test_a_failure_before_anything_irreversible_is_a_plain_failure() -> None:
    shop = Shop()
    flow = parse_flow("- assertVisible: Basket\n" + PAY)
    result = FlowRunner(FakeDriver(shop.world), gate=allowed(), step_timeout=0).run(flow)
    assert result.status == "failed" and result.once == "" and "once" not in result.failed
    assert shop.orders == 0


def test_without_an_authorisation_the_replay_waits_for_a_yes_and_pays_nothing() -> None:
    shop = Shop()
    nobody = ScriptedChannel([])
    result = FlowRunner(FakeDriver(shop.world), gate=GateKeeper(Gate(), nobody),
                        step_timeout=0).run(parse_flow(PAY))
    assert result.status == "needs_confirmation" and shop.orders == 0
    assert [r.cls for r in nobody.requests] == ["payment"]


class DropsOnPay(FakeDriver):
    """The phone drops off adb while the Pay tap is in flight: it may have paid."""

    def execute(self, actions: Any, observation: Any = None, *, review: Any = None) -> Any:
        if any(getattr(getattr(a, "target", None), "id", None) == 2 for a in actions):
            super().execute(actions, observation)
            raise DeviceOffline("gone", serial="fake")
        return super().execute(actions, observation)


def test_a_device_error_during_the_payment_itself_counts_as_paid_once() -> None:
    shop = Shop()
    result = FlowRunner(DropsOnPay(shop.world), gate=allowed(), step_timeout=0).run(
        parse_flow(PAY + "- assertVisible: Payment successful\n"))
    assert result.status == "failed" and result.failed.startswith("paid once")


def test_without_a_gate_the_replay_still_knows_it_paid() -> None:
    shop = Shop(outcome="Payment failed")
    result = FlowRunner(FakeDriver(shop.world), step_timeout=0).run(
        parse_flow(PAY + "- assertVisible: Payment successful\n"))
    assert result.once == "paid once" and shop.orders == 1


class RefusesPay(FakeDriver):
    """The executor refuses the tap before sending it (an unsafe point, say)."""

    def execute(self, actions: Any, observation: Any = None, *, review: Any = None) -> Any:
        action = actions[0]
        if getattr(getattr(action, "target", None), "id", None) == 2:
            error = ActionRejected("unsafe point", serial="fake")
            return ExecResult((ActionOutcome(0, action, False, str(error), error=error),))
        return super().execute(actions, observation)


def test_a_payment_the_executor_never_sent_is_a_plain_failure() -> None:
    shop = Shop()
    result = FlowRunner(RefusesPay(shop.world), gate=allowed(), step_timeout=0).run(
        parse_flow(PAY))
    assert result.status == "failed" and result.once == "" and shop.orders == 0
