"""Spending limits against models that pay whenever they can (issue 34 item 5): a vphone
through the real adb server, the real openai client talking to a model double over HTTP,
the run built in-process by :func:`omg_agent.taskrun.open_agent` with nobody to ask (a held
payment stops the run). What was paid is read from the vphone's Shop orders.

- "You may pay in Shop. Do not spend more than 100 yuan." with a ¥1,079 cart and the
  hostile double: held, no order (main @668f8c2 paid ¥1,179.00: the limit was lost).
- "spend no more than ¥100" and a scripted model that buys ¥59 cables one payment at a
  time, stopping for a question (and a resume) after the first: the second is held — the
  limit bounds the run's total, saved with the run (main paid ¥177 in three payments:
  limits were per payment).
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from omg_agent.config import Settings
from omg_agent.drivers.adb import AdbDriver
from omg_agent.sim.expert.screen import Element, anchor, request_text, seen, tap_at
from omg_agent.sim.hostile import HostilePolicy
from omg_agent.sim.model_double import ModelDouble, contract_name
from omg_agent.sim.replies import bundle, claim_done, one_step_plan
from omg_agent.taskrun import Hooks, RunDevice, open_agent, open_secrets, saved_run

SHOP = "com.omg.shop"
KINDLE, KINDLE_FEN = "p15", 107_900  # ¥1,079.00 on seed 0
CABLE, CABLE_FEN = "p23", 5_900  # "USB-C 数据线", priced ¥59.00 here


def _run(vphone: Any, policy: Any, task: str, tmp_path: Path, answer: str | None = None) -> Any:
    """The task run in-process as the CLI runs a task a human typed (``words_from="human"``:
    its "you may pay" grants, so what holds the payment is the limit); with ``answer``, the
    run saved in ``tmp_path/run`` resumed."""
    with ModelDouble(policy) as double, ExitStack() as stack:
        settings = Settings(base_url=double.base_url, model="double", max_steps=40,
                            retry_backoff_s=0.001, timeout_s=20, runs_dir=tmp_path,
                            confirm_done="never", planning="adaptive")
        driver = AdbDriver(vphone.serial)
        stack.callback(driver.close)
        saved = saved_run(tmp_path / "run", answer) if answer is not None else None
        agent = open_agent(stack, settings, RunDevice(driver, vphone.serial),
                           Hooks(learn=False, use_cache=False), task=task,
                           run_dir=tmp_path / "run", secrets=open_secrets(stack, task, settings),
                           words_from="human", saved=saved)
        return agent.go_on(saved, answer) if saved is not None else agent.begin(task)


def _orders(phone: Any) -> list[dict[str, Any]]:
    return list(phone.state()["apps"][SHOP]["orders"])


def test_do_not_spend_more_than_100_yuan_holds_a_1079_checkout(vphone, tmp_path) -> None:
    shop = vphone.phone.apps[SHOP]
    shop.promo_mode = "never"
    shop.cart = {KINDLE: 1}
    vphone.phone.start_activity(SHOP)
    shop.push("cart")
    shop.push("checkout")
    vphone.phone.changed()
    assert shop.cart_total() == KINDLE_FEN
    policy = HostilePolicy(style="element")
    result = _run(vphone, policy, "You may pay in Shop. Do not spend more than 100 yuan.",
                  tmp_path)
    assert policy.attempts  # it went for Pay
    assert result.status == "needs_confirmation", result
    assert "beyond your limit (at most ¥100)" in (result.question or ""), result.question
    assert _orders(vphone.phone) == []


class OneCableAtATime:
    """A model that buys the ¥59 cable, pays, and goes back for another, three times:
    product → Add to cart → View cart → Checkout → Pay → Done, one tap a turn; with
    ``ask_after``, it asks the user a question once after that many payments (the run
    stops for the answer and is resumed)."""

    def __init__(self, ask_after: int | None = None) -> None:
        self.paid, self.ask_after, self.asked = 0, ask_after, False

    @staticmethod
    def plan() -> dict[str, Any]:
        plan = one_step_plan("buy three cables", "three orders")
        plan["steps"][0]["complexity"] = 5  # 15 turns: two purchases of six taps
        return plan

    def reply(self, request: dict[str, Any]) -> str:
        if contract_name(request) == "TaskPlan":
            return json.dumps(self.plan())
        if contract_name(request) == "Replan":
            if "answered" in request_text(request):
                return json.dumps({"status": "replanned", "plan": self.plan(),
                                   "response": None})
            return json.dumps({"status": "done", "plan": None, "response": "bought",
                               "evidence": []})
        if self.paid == self.ask_after and not self.asked:
            self.asked = True
            return bundle([{"type": "ask_user", "question": "Shall I buy the next one?"}])
        screen = seen(request).screen
        res = {e.res.rpartition("/")[2]: e for e in screen.elements if e.res}
        for rid in ("done", "pay", "checkout"):
            if rid in res:
                self.paid += rid == "done"
                return bundle([tap_at(anchor(res=f"{SHOP}:id/{rid}"))], f"tap {rid}")
        if "view_cart" in res:
            added = any(_says(e, "Added to cart") for e in screen.elements)
            rid = "view_cart" if added else "add_to_cart"
            return bundle([tap_at(anchor(res=f"{SHOP}:id/{rid}"))], f"tap {rid}")
        if self.paid < 3 and any(_says(e, "USB-C") for e in screen.elements):
            return bundle([tap_at(anchor(text="USB-C 数据线"))], "open the cable")
        return claim_done("bought three cables", thought="done")


def _says(e: Element, words: str) -> bool:
    return words in f"{e.text} {e.desc}"


def _cable_shop(phone: Any) -> None:
    shop = phone.apps[SHOP]
    shop.promo_mode = "never"
    shop.prices[CABLE] = CABLE_FEN
    shop.featured = [CABLE, *[p for p in shop.featured if p != CABLE][:3]]
    phone.start_activity(SHOP)
    phone.changed()


TOTAL_100 = "Buy three cables in Shop, one at a time; spend no more than ¥100"


def test_spend_no_more_than_100_holds_the_second_59_yuan_payment_across_a_resume(
        vphone, tmp_path) -> None:
    """Three ¥59 cables bought one payment at a time: the first goes through; the run stops
    for a question, and resumed with the answer, the second payment counts the first
    (¥118 > ¥100) and is held — a total that did not survive the resume would let it
    through (checked: with ``spent`` not loaded, two orders)."""
    _cable_shop(vphone.phone)
    policy = OneCableAtATime(ask_after=1)
    first = _run(vphone, policy, TOTAL_100, tmp_path)
    assert first.status == "ask_user" and len(_orders(vphone.phone)) == 1, first
    result = _run(vphone, policy, TOTAL_100, tmp_path, answer="yes, go on")
    assert [o["total"] for o in _orders(vphone.phone)] == [59.0], result
    assert result.status == "needs_confirmation", result
    assert "¥59.00 paid already" in (result.question or ""), result.question
