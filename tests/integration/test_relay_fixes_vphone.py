"""Findings of a relay-model round (issue 40), replayed with a scripted model double over real
HTTP on a vphone behind the real adb server; outcomes read from the vphone's app state."""

from __future__ import annotations

import json
from typing import Any

from omg_agent.config import Settings
from omg_agent.guards.confirmation import ScriptedChannel
from omg_agent.phone import Phone
from omg_agent.sim.model_double import ModelDouble

MESSAGES = "com.omg.messages"
NUMBER, TEXT = "13864472255", "Happy birthday!"


def _reply(actions: list[dict[str, Any]] | None = None, **flags: Any) -> str:
    return json.dumps({"thought": "sending", "last_action_result": "success",
                       "execute_now": {"intent": "send it", "actions": actions}
                       if actions else None, **flags}, ensure_ascii=False)


def _id(rid: str) -> dict[str, Any]:
    return {"kind": "anchor", "resource_id": f"{MESSAGES}:id/{rid}"}


def test_a_bundle_that_types_the_recipient_and_text_then_sends_asks_once(vphone, tmp_path):
    # the relay round: type recipient, type body, tap Send in one bundle on New message —
    # the gate asked twice, the second time about "an empty message to New message"
    app = vphone.phone.apps[MESSAGES]
    script = [
        _reply([{"type": "launch", "app": MESSAGES}]),
        _reply([{"type": "tap", "target": _id("fab_new")}]),
        _reply([{"type": "type", "text": NUMBER, "target": _id("recipient")},
                {"type": "type", "text": TEXT, "target": _id("body")},
                {"type": "tap", "target": _id("send")}]),
        _reply(goal_complete=True, answer="sent"),
    ]
    channel = ScriptedChannel(policy=lambda request: True)
    with ModelDouble(script) as double, Phone(vphone.serial, driver="adb", settings=Settings(
            base_url=double.base_url, model="double", max_steps=8, retry_backoff_s=0.001,
            retry_backoff_max_s=0.01, timeout_s=20, runs_dir=tmp_path / "runs",
            planning="unified", confirm_done="never")) as phone:
        result = phone.run(f"Send {TEXT} to the new number {NUMBER} in Messages",
                           confirm=channel, use_cache=False)
    asked = [r.describe for r in channel.requests]
    assert len(asked) == 1, asked
    assert TEXT in asked[0] and NUMBER in asked[0], asked
    assert app.state()["sent"] == [{"to": NUMBER, "text": TEXT}]
    assert result.status == "done", result
