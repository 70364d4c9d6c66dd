"""Issue 36 item 3: ``plan_outdated`` is its own outcome — the planner rewrites the rest and
hears that nothing failed — never a failed turn, and never a ``LOOP`` post-mortem ("the model
judged the previous actions failed … go back and take a different route") when nothing
failed (the relay round's example.com run)."""

from __future__ import annotations

from typing import Any

import pytest

from omg_agent.sim.expert.screen import request_text

from .fakes import Recorder, ScriptedModel, bundle, orchestrator, plan, tap
from .test_orchestrator_transitions import Phone, replies

WIFI_OFF = [{"kind": "element", "resource_id": "wifi_switch", "checked": False}]
SWITCH = {"type": "tap", "target": {"kind": "anchor", "resource_id": "wifi_switch"}}
WHY = "Wi-Fi is switched here, not under Network"
REPLANNED = {"status": "replanned", "plan": plan({"description": "Turn off Wi-Fi",
                                                  "checks": WIFI_OFF})}


def outdated(phone: Phone):
    said: list[str] = []

    def operator(text: str) -> dict[str, Any]:
        if "launcher" in text:
            return bundle(tap("Settings"))
        if not said:  # Settings has no Network page: the plan (or the task's words) is off
            said.append(WHY)
            return bundle({"type": "wait", "seconds": 0.1}, result="failed", plan_outdated=WHY)
        return bundle(SWITCH)
    return operator


@pytest.mark.parametrize("mode", ["adaptive", "unified"])
def test_plan_outdated_goes_to_the_planner_at_once_and_is_no_failure(mode: str) -> None:
    phone = Phone()
    network = plan({"description": "Open Network and turn off Wi-Fi", "checks": WIFI_OFF})
    script: list[Any] = [("DecisionBundle", outdated(phone)), ("Replan", REPLANNED)]
    if mode == "adaptive":
        script.insert(0, ("TaskPlan", network))
    recorder = Recorder()
    model = ScriptedModel(replies(*script))
    with orchestrator(phone.world(), model, planning=mode, recorder=recorder,
                      loop_guard=False, task="Turn off Wi-Fi under Network") as orch:
        result = orch.run("Turn off Wi-Fi under Network")
    assert result.status == "done" and not phone.wifi
    calls = model.contracts()
    first_replan = calls.index("Replan")
    # one operator turn said so; the planner was asked right after it
    assert calls[first_replan - 1] == "DecisionBundle"
    assert calls[:first_replan].count("DecisionBundle") == 2  # Settings, then the word
    kinds = recorder.kinds()
    assert "plan_unfit" in kinds and "post_mortem" not in kinds
    replan = request_text(model.requests[first_replan])
    assert WHY in replan and "nothing failed" in replan
    assert "LOOP" not in replan and "judged the previous actions failed" not in replan


def test_a_flat_run_has_no_plan_to_call_outdated() -> None:
    phone = Phone()
    model = ScriptedModel(replies(("DecisionBundle", outdated(phone))))
    recorder = Recorder()
    with orchestrator(phone.world(), model, planning="flat", recorder=recorder,
                      max_steps=4) as orch:
        orch.run("Turn off Wi-Fi under Network")
    assert "Replan" not in model.contracts() and "plan_unfit" not in recorder.kinds()
