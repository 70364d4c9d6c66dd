"""Honest done against a hostile planner (issue 34 item 4): the routes that ended ``done:
Paid: order #1001`` with nothing paid now end ``unverified`` or ``failed``, and a payment the
user allowed still ends ``done``.

In process through the Python API (:class:`omg_agent.phone.Phone`), a vphone on the real adb
server, models over real HTTP (:class:`~omg_agent.sim.model_double.ModelDouble`); every
outcome is read from the vphone's state (Shop's orders), never from what the run says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from omg_agent.config import Settings
from omg_agent.phone import Phone
from omg_agent.sim.expert.screen import Screen, request_text
from omg_agent.sim.hostile import HostilePolicy
from omg_agent.sim.model_double import ModelDouble, contract_name
from omg_agent.sim.replies import bundle, claim_done, one_step_plan
from tests.integration import vphone_scenes as scenes
from tests.integration.vphone_scenes import orders

SHOP = "com.omg.shop"
KINDLE, KINDLE_FEN = "p15", 107_900  # ¥1,079.00 on seed 0
PAY = "Pay for the order in Shop"
PAID = "Paid: order #1001"


def at_checkout(phone: Any) -> None:
    """Shop open at Checkout with one Kindle Paperwhite in the cart (no promo popup)."""
    assert scenes.at_checkout(phone, KINDLE).cart_total() == KINDLE_FEN


class Liar:
    """A planner and operator that never pay and always say the task is done: the plan's
    last step gets ``checks``; the operator first sends ``first`` (when given), then
    claims the goal done with ``end_checks``; a planner asked to confirm says done with the
    first text on the screen as its evidence."""

    def __init__(self, checks: list[dict[str, Any]] | None = None, *,
                 end_checks: list[dict[str, Any]] | None = None,
                 first: list[dict[str, Any]] | None = None) -> None:
        self.checks, self.end_checks, self.first = checks, end_checks, first
        self.claims = 0

    def reply(self, request: dict[str, Any]) -> str:
        name = contract_name(request)
        if name == "TaskPlan":
            plan = one_step_plan(PAY, "the order is paid")
            if self.checks:
                plan["steps"][0]["checks"] = self.checks
            return json.dumps(plan)
        if name == "Replan":
            screen = Screen(request_text(request).split("Current screen:", 1)[-1])
            shown = next((e.text for e in screen.elements if e.text), "Shop")
            return json.dumps({"status": "done", "plan": None, "response": PAID, "evidence": [
                {"kind": "element", "text": shown, "match": "contains"}]})
        if self.first is not None:
            first, self.first = self.first, None
            return bundle(first, "go home first")
        self.claims += 1
        if self.end_checks:
            return bundle(None, thought="done", step_complete=True, goal_complete=True,
                          answer=PAID, end_checks=self.end_checks)
        return claim_done(PAID, thought="done")


def run(vphone: Any, policy: Any, tmp: Path, task: str = PAY, **settings: Any) -> Any:
    with ModelDouble(policy) as double:
        config = Settings(base_url=double.base_url, model="double", runs_dir=tmp / "runs",
                          max_steps=12, retry_backoff_s=0.001, retry_backoff_max_s=0.01,
                          timeout_s=20, **settings)
        with Phone(vphone.serial, settings=config, driver="adb") as phone:
            return phone.run(task, use_cache=False)


@pytest.fixture
def checkout(vphone: Any) -> Any:
    at_checkout(vphone.phone)
    return vphone


PAY_BUTTON = [{"kind": "element", "resource_id": "pay"}]


# -- the routes: exit 0 "done: Paid", nothing paid --------------------------------
def test_the_operators_end_checks_that_held_on_the_checkout_are_not_done(checkout,
                                                                         tmp_path) -> None:
    result = run(checkout, Liar(end_checks=PAY_BUTTON), tmp_path, planning="unified")
    assert orders(checkout.phone) == []
    assert result.status == "unverified", result.summary
    assert "already held before the run acted" in result.summary


def test_the_planners_done_with_evidence_quoting_the_screen_is_not_done(checkout,
                                                                        tmp_path) -> None:
    liar = Liar()
    result = run(checkout, liar, tmp_path, planning="adaptive")
    assert orders(checkout.phone) == []
    assert result.status in ("unverified", "failed"), result.summary
    assert liar.claims >= 1  # it claimed, the planner confirmed: neither was believed


def test_a_plan_whose_last_checks_already_hold_is_not_done(checkout, tmp_path) -> None:
    result = run(checkout, Liar(PAY_BUTTON), tmp_path, planning="adaptive")
    assert orders(checkout.phone) == []
    assert result.status == "unverified", result.summary


def test_pressing_home_then_checking_the_shop_label_is_not_a_payment(checkout,
                                                                     tmp_path) -> None:
    home = [{"type": "key", "key": "home"}]
    result = run(checkout, Liar([{"kind": "element", "text": "Shop"}], first=home),
                 tmp_path, planning="adaptive")
    assert orders(checkout.phone) == []
    assert result.status == "unverified", result.summary
    assert "no payment" in result.summary


# -- what still ends done ---------------------------------------------------------------------
def test_a_payment_the_user_allowed_still_ends_done(checkout, tmp_path) -> None:
    result = run(checkout, HostilePolicy(style="element"), tmp_path, allow="payment:<=2000")
    assert [o["total"] for o in orders(checkout.phone)] == [KINDLE_FEN / 100]
    assert result.status == "done", result.summary


def test_a_task_whose_check_changed_and_asks_for_nothing_sensitive_ends_done(checkout,
                                                                             tmp_path) -> None:
    home = [{"type": "key", "key": "home"}]
    notes = [{"kind": "element", "text": "Notes"}]  # on the launcher, not at the checkout
    result = run(checkout, Liar(notes, first=home), tmp_path, "Go to the home screen",
                 planning="adaptive")
    assert result.status == "done", result.summary
    assert orders(checkout.phone) == []
