"""A yes approves exactly what the question showed; a no stands (issues 34 and 35, item 2).

Runs go in-process through the Python API (:class:`omg_agent.phone.Phone`) on a vphone
behind the real adb server, with a model double over real HTTP that taps Pay whenever it
shows (:class:`~tests.integration.test_declined_vphone.Payer`). While the question is open
the Shop cart is refilled (twice the items, twice the total): the yes was given to the old
amount. Every outcome is read from the vphone's Shop orders.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from omg_agent.config import Settings
from omg_agent.guards.confirmation import TerminalChannel
from omg_agent.phone import Phone
from omg_agent.sim.model_double import ModelDouble
from omg_agent.vphone.apps.shop_catalog import format_price
from tests.integration.test_declined_vphone import TASK, Payer

SHOP = "com.omg.shop"


def at_checkout(phone: Any) -> Any:
    shop = phone.apps[SHOP]
    shop.promo_mode = "never"
    shop.cart = {next(iter(shop.prices)): 1}
    return shop


def refill(phone: Any) -> str:
    """The cart doubles while the question is open; the new total as the screen shows it."""
    shop = phone.apps[SHOP]
    with phone.lock:
        shop.cart = {k: n * 2 for k, n in shop.cart.items()}
        phone.changed()
    return format_price(shop.cart_total())


def settings(base_url: str, tmp: Path) -> Settings:
    return Settings(base_url=base_url, model="double", max_steps=12, retry_backoff_s=0.001,
                    retry_backoff_max_s=0.01, timeout_s=20, runs_dir=tmp / "runs",
                    planning="adaptive")


def test_terminal_yes_while_the_cart_changed_asks_again_with_the_new_amount(vphone, tmp_path):
    shop = at_checkout(vphone.phone)
    shown: list[str] = []
    replies = iter(["yes", None])  # a yes to the first question; then nobody answers
    new_total: list[str] = []

    def read(prompt: str) -> str | None:
        if not new_total:
            new_total.append(refill(vphone.phone))
        return next(replies)

    with ModelDouble(Payer(vphone.phone)) as double, \
            Phone(vphone.serial, settings=settings(double.base_url, tmp_path),
                  driver="adb") as phone:
        result = phone.run(TASK, confirm=TerminalChannel(read, shown.append),
                           use_cache=False)
    assert shop.orders == []  # neither the old nor the new amount was paid
    asked = [t for t in shown if "wants to" in t]
    assert len(asked) == 2 and new_total[0] in asked[1] and new_total[0] not in asked[0]
    assert result.status == "needs_confirmation", result


def test_resume_yes_after_the_cart_changed_pays_nothing_and_asks_the_new_amount(vphone,
                                                                                tmp_path):
    shop = at_checkout(vphone.phone)
    with ModelDouble(Payer(vphone.phone)) as double, \
            Phone(vphone.serial, settings=settings(double.base_url, tmp_path),
                  driver="adb") as phone:
        held = phone.run(TASK, use_cache=False)
        assert held.status == "needs_confirmation" and shop.orders == []
        total = refill(vphone.phone)
        again = phone.resume(held.run_dir, "yes")
    assert shop.orders == []
    assert again.status == "needs_confirmation" and total in (again.question or ""), again


def test_mirror_yes_while_the_cart_changed_asks_again_over_its_http_api(vphone, tmp_path):
    from omg_agent.hitl.server import Mirror
    from tests.unit.mirror_doubles import Client

    shop = at_checkout(vphone.phone)
    texts: list[str] = []
    with ModelDouble(Payer(vphone.phone)) as double, \
            Phone(vphone.serial, settings=settings(double.base_url, tmp_path),
                  driver="adb") as phone, Mirror(phone.driver, video=False) as mirror:
        tab = Client(mirror)
        assert tab.sign_in().status == 200

        def human() -> None:
            for answer in (True, False):
                page = mirror.channel
                version = page.changes.version
                while not page.pending():
                    version = page.changes.wait(version, 10)
                [request] = page.pending()
                texts.append(request["text"])
                if answer:
                    refill(vphone.phone)
                reply = tab.post("/api/answer", {"id": request["id"], "answer": answer})
                assert reply.status == 200, reply.data

        thread = threading.Thread(target=human, daemon=True)
        thread.start()
        result = phone.run(TASK, confirm=mirror.channel, use_cache=False)
        thread.join(10)
    assert shop.orders == []
    assert len(texts) == 2 and "changed" in texts[1] and texts[0] != texts[1]
    assert result.status == "declined", result
