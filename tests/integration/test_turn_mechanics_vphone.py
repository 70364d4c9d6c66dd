"""Issue 36 item 3 on a vphone behind the real adb server, a scripted model double over real
HTTP: ``launch`` + ``scan`` under Shop's promo popup is told the popup covers the screen and
which buttons dismiss it (the relay round's "no scrolling list and no text on this screen"
said nothing of it), and a question task whose answer is the screen's own text ends with no
planner confirmation."""

from __future__ import annotations

import json
from typing import Any

from omg_agent.config import Settings
from omg_agent.phone import Phone
from omg_agent.sim.model_double import ModelDouble
from omg_agent.vphone.apps.shop_catalog import format_price

SHOP = "com.omg.shop"


def _reply(actions: list[dict[str, Any]] | None = None, **flags: Any) -> str:
    return json.dumps({"thought": "t", "last_action_result": "success",
                       "execute_now": {"intent": "look", "actions": actions}
                       if actions else None, **flags}, ensure_ascii=False)


def test_a_scan_under_shops_promo_popup_names_it_and_the_question_ends_unconfirmed(
        vphone, tmp_path):
    shop = vphone.phone.apps[SHOP]
    shop.promo_mode = "always"
    price = format_price(shop.prices["p11"])  # Apple Watch S9, featured on Shop's main page
    answer = f"The Apple Watch S9 costs {price} in Shop."
    script = [
        _reply([{"type": "launch", "app": "Shop"}, {"type": "scan"}]),
        _reply([{"type": "tap", "target": {"kind": "anchor", "text": "No thanks"}},
                {"type": "scan"}]),
        _reply(goal_complete=True, answer=answer),
    ]
    with ModelDouble(script) as double, Phone(vphone.serial, driver="adb", settings=Settings(
            base_url=double.base_url, model="double", max_steps=8, retry_backoff_s=0.001,
            retry_backoff_max_s=0.01, timeout_s=20, runs_dir=tmp_path / "runs",
            planning="unified")) as phone:
        result = phone.run("Open Shop and tell me the price of the Apple Watch S9",
                           use_cache=False)
        told = double.requests[1].text()
    assert "a popup covers the screen: dismiss it first" in told, told
    assert "'No thanks'" in told and "no scrolling list and no text" not in told
    assert result.status == "done" and result.answer == answer, result
    assert len(double.requests) == 3  # three operator calls, no planner confirmation
    assert shop.state()["popup"]["visible"] is False
