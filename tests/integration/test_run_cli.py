"""``omg-agent run`` through typer's runner: setup errors, and a whole run on a vphone with the
real openai client talking to the model double."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from omg_agent.cli import app
from omg_agent.sim.model_double import ModelDouble

BLANK = {"OMG_MODEL": "", "OMG_BASE_URL": "", "OMG_API_KEY": "", "OPENAI_API_KEY": "",
         "OPENAI_BASE_URL": "", "OMG_CONFIG": "", "OMG_PLANNER_MODEL": "",
         "OMG_OPERATOR_MODEL": ""}


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no omg.toml around
    return tmp_path


def test_without_a_model_it_says_what_to_set_and_exits_1(in_tmp: Path) -> None:
    result = CliRunner().invoke(app, ["run", "open Shop"], env=BLANK)
    assert result.exit_code == 1
    assert "No model is configured" in result.output and "OMG_MODEL" in result.output


def test_model_sim_with_a_goal_it_has_no_expert_for_is_refused_clearly(in_tmp: Path) -> None:
    result = CliRunner().invoke(app, ["run", "open Shop", "--model", "sim"], env=BLANK)
    assert result.exit_code == 1
    assert "expert policy" in result.output


def test_a_bad_plan_file_is_named_before_anything_starts(in_tmp: Path) -> None:
    (in_tmp / "plan.yaml").write_text("steps:\n  - description: A\n")
    env = {**BLANK, "OMG_MODEL": "m", "OMG_BASE_URL": "http://127.0.0.1:9/v1"}
    result = CliRunner().invoke(app, ["run", "x", "--plan", "plan.yaml"], env=env)
    assert result.exit_code == 1
    assert "plan.yaml" in result.output and "success_criteria" in result.output


# the planner confirms from the launcher it was shown, naming an element there
CONFIRMED = json.dumps({"status": "done", "response": "the screen was looked at",
                        "evidence": [{"kind": "element", "text": "Settings"}]})


def test_a_run_on_the_vphone_prints_json_and_leaves_a_trace(vphone, in_tmp: Path) -> None:
    script = [json.dumps({"goal": "look", "steps": [
                  {"description": "Look at the screen", "success_criteria": "anything"}]}),
              json.dumps({"thought": "the home screen is shown", "last_action_result": "none",
                          "execute_now": {"intent": "settle",
                                          "actions": [{"type": "wait", "seconds": 0.1}]}}),
              json.dumps({"thought": "done", "last_action_result": "success",
                          "goal_complete": True, "answer": "looked"}),
              CONFIRMED]
    with ModelDouble(script) as double:
        env = {**BLANK, "OMG_MODEL": "double", "OMG_BASE_URL": double.base_url,
               "OMG_PLANNING": "adaptive"}  # the script starts with a plan
        result = CliRunner().invoke(app, ["run", "look at the screen", "--device",
                                          vphone.serial, "--driver", "adb", "--json",
                                          "--runs-dir", str(in_tmp / "runs")], env=env)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["status"] == "done" and out["answer"] == "the screen was looked at"
    # four calls: the plan (free), two operator turns (a step each, the wait they carry
    # included) and the planner's confirmation (a step) — counted as a confirmation
    assert out["steps_used"] == 3 and out["model_calls"] == 4 and out["confirm_calls"] == 1
    run_dir = Path(out["run_dir"])
    assert (run_dir / "trace.jsonl").is_file()
    assert json.loads((run_dir / "result.json").read_text())["status"] == "done"


def _look_script() -> list[str]:
    return [json.dumps({"goal": "look", "steps": [
                {"description": "Look at the screen", "success_criteria": "anything"}]}),
            json.dumps({"thought": "done", "last_action_result": "none",
                        "goal_complete": True, "answer": "looked"}),
            CONFIRMED]


def test_device_vphone_starts_one_in_process_and_shows_live_progress(in_tmp: Path) -> None:
    with ModelDouble(_look_script()) as double:
        env = {**BLANK, "OMG_MODEL": "double", "OMG_BASE_URL": double.base_url,
               "OMG_PLANNING": "adaptive"}
        result = CliRunner().invoke(app, ["run", "look at the screen", "--device", "vphone",
                                          "--driver", "adb", "--runs-dir",
                                          str(in_tmp / "runs")], env=env)
    assert result.exit_code == 0, result.output
    assert "started a vphone" in result.output
    assert "✔ 1. Look at the screen" in result.output  # the live plan with its tick
    assert "done: the screen was looked at" in result.output
    assert "Stopped because: the task is complete" in result.output


def test_a_planner_done_after_a_failed_step_exits_1_with_its_words(vphone, in_tmp: Path) -> None:
    """The first probe of the loop-v2 issue, through the CLI: the step fails, the planner
    says "done" — the run is failed (exit 1), Wi-Fi untouched, the planner's words shown."""
    missing = json.dumps({"thought": "tap it", "last_action_result": "none",
                          "execute_now": {"intent": "switch", "actions": [
                              {"type": "tap", "target": {"kind": "anchor",
                                                         "text": "No such switch"}}]}})
    script = [json.dumps({"goal": "wifi off", "steps": [
                  {"description": "Turn off Wi-Fi", "success_criteria": 'Wi-Fi shows "OFF"',
                   "on_fail": "replan"}]}),
              *[missing] * 3,  # the failure threshold, then the planner
              json.dumps({"status": "done", "response": "I could not turn off Wi-Fi"})]
    wifi = vphone.phone.apps["com.android.settings"].wifi
    with ModelDouble(script) as double:
        env = {**BLANK, "OMG_MODEL": "double", "OMG_BASE_URL": double.base_url,
               "OMG_PLANNING": "adaptive"}
        result = CliRunner().invoke(app, ["run", "Turn off Wi-Fi", "--device", vphone.serial,
                                          "--driver", "adb", "--json", "--runs-dir",
                                          str(in_tmp / "runs")], env=env)
    assert result.exit_code == 1, result.output
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["status"] == "failed" and "I could not turn off Wi-Fi" in out["stopped_because"]
    assert vphone.phone.apps["com.android.settings"].wifi == wifi
