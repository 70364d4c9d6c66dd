"""Issue 40 follow-ups: a finishing reply may leave its action part empty, as the prompt
says (the schema refused it: a validation retry for nothing), and the scans under Kept are
saved with the run's state, so a resumed run shows them as the run before did."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from omg_agent.brain import prompts
from omg_agent.brain.budget import StepBudget
from omg_agent.brain.kept import KeptResults
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.resume import STATE_FILE, load_state, save_state
from omg_agent.brain.run_state import RunState
from omg_agent.core.contracts import DecisionBundle

from .fakes import ScriptedModel, bundle, orchestrator, tap, user_text
from .test_orchestrator_transitions import Phone, replies

SWITCH = {"type": "tap", "target": {"kind": "anchor", "resource_id": "wifi_switch"}}
EMPTY = {"intent": "finish", "actions": []}


def test_a_finishing_reply_with_no_actions_is_read_as_no_action_part() -> None:
    for flag in ("goal_complete", "step_complete", "goal_infeasible", "user_declined"):
        reply = DecisionBundle.model_validate({"thought": "t", "last_action_result": "success",
                                               "execute_now": EMPTY, flag: True})
        assert reply.execute_now is None
    assert "or hold no actions) only with" in prompts.operator_system("unified")


def test_a_finishing_reply_with_no_actions_costs_no_retry() -> None:
    phone = Phone()
    turns = iter([bundle(tap("Settings")), bundle(SWITCH)])

    def operator(text: str) -> dict[str, Any]:
        return next(turns, None) or {**bundle(goal_complete=True, answer="Wi-Fi is off"),
                                     "execute_now": EMPTY}

    model = ScriptedModel(replies(("DecisionBundle", operator)))
    with orchestrator(phone.world(), model, planning="flat") as orch:
        result = orch.run("Turn off Wi-Fi")
    assert result.status == "done" and not phone.wifi
    assert model.contracts() == ["DecisionBundle"] * 3  # no validation retry


def test_kept_scans_are_saved_with_the_state_and_come_back_on_resume(tmp_path: Path) -> None:
    state = RunState("Like every post by Emma in Feed", StepBudget(12), phase="THINK")
    for turn in (2, 5, 7):
        state.kept.keep([{"type": "scan", "ok": True, "detail": f"scan read {turn} items"}],
                        turn)
    with MemoryBank(None, "run1") as memory:
        save_state(tmp_path, state, memory, device="emulator-5554")
    saved = json.loads((tmp_path / STATE_FILE).read_text(encoding="utf-8"))
    assert [s[0] for s in saved["kept"]["scans"]] == ["scan2", "scan3"]
    back = load_state(tmp_path).state.kept
    assert back.section() == state.kept.section() and "scan1 replaced" in back.section()
    back.keep([{"type": "scan", "ok": True, "detail": "scan read 9 items"}], 9)
    assert back.scans[-1].name == "scan4"  # names go on after the saved ones


def test_a_state_saved_without_kept_scans_loads_with_none() -> None:
    assert KeptResults.of(None).section() == ""
    assert KeptResults.of({"scans": [["scan1", "x", "bad turn"]]}).section() == ""


def test_a_resumed_runs_operator_shows_the_kept_scans(tmp_path: Path) -> None:
    state = RunState("Turn off Wi-Fi", StepBudget(12))
    state.kept.keep([{"type": "scan", "ok": True, "detail": "scan read 3 items: Wi-Fi"}], 1)
    model = ScriptedModel(replies(("DecisionBundle", bundle(goal_complete=True,
                                                            answer="nothing to do"))))
    with orchestrator(Phone().world(), model, planning="flat", max_steps=3) as orch:
        orch.start(state, None)
    assert "[scan1, turn 1] scan read 3 items: Wi-Fi" in user_text(model.requests[0])
