"""``omg-agent demo`` as a user runs it: a subprocess of the real CLI, a vphone on the real adb
server, the real openai client talking to a model double over HTTP."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from omg_agent.sim.model_double import ModelDouble

BLANK = {"OMG_MODEL": "", "OMG_BASE_URL": "", "OMG_API_KEY": "", "OPENAI_API_KEY": "",
         "OPENAI_BASE_URL": "", "OMG_CONFIG": "", "OMG_PLANNER_MODEL": "",
         "OMG_OPERATOR_MODEL": ""}
PRICE = re.compile(r"^¥\d{1,3}(,\d{3})*\.\d{2}$")


def omg(*args: str, cwd: Path, env: dict[str, str] | None = None,
        timeout: float = 240) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **BLANK, "COLUMNS": "200", **(env or {})}
    return subprocess.run([sys.executable, "-m", "omg_agent.cli", *args], capture_output=True,
                          text=True, timeout=timeout, env=full, cwd=cwd,
                          stdin=subprocess.DEVNULL)


@pytest.fixture(autouse=True)
def _needs_adb() -> None:
    from omg_agent.errors import AdbNotFound
    from omg_agent.vphone import adbhost

    try:
        adbhost.adb_path()
    except AdbNotFound as exc:
        pytest.skip(str(exc))


def test_demo_without_a_model_runs_the_task_on_the_double_and_reports_the_truth(
        tmp_path: Path) -> None:
    result = omg("demo", "--json", "--out", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SIMULATED" in result.stderr and "OMG_MODEL" in result.stderr
    out = json.loads(result.stdout)
    assert out["status"] == "done" and out["simulated"] is True and out["ok"] is True
    assert PRICE.match(out["price"]), out["price"]
    assert out["notes"] == [out["price"]] and out["saved"] is True
    assert out["model_calls"] >= 3 and out["steps"] >= out["model_calls"]
    assert out["wall_s"] > 0
    report = Path(out["report"])
    assert report.is_file() and report.parent == Path(out["run_dir"])
    assert report.is_relative_to(tmp_path / "out")
    html = report.read_text(encoding="utf-8")
    assert out["task"] in html and out["price"] in html  # the saved price is in the trace
    adb_devices = subprocess.run(["adb", "devices"], capture_output=True, text=True,
                                 timeout=30).stdout
    assert out["serial"] not in adb_devices  # the demo's vphone was disconnected


def test_demo_prints_the_result_the_costs_and_the_report_path(tmp_path: Path) -> None:
    result = omg("demo", "--out", "out", "--seed", "2", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    text = result.stdout
    assert "SIMULATED model" in text and "OMG_BASE_URL" in text
    assert "done" in text and "the note equals the Shop price" in text
    assert re.search(r"model calls \d+ · budget steps \d+", text)
    found = re.search(r"HTML trace report: (\S+report\.html)", text)
    assert found and Path(found.group(1)).is_file()


CLAIM = json.dumps({"thought": "nothing to do", "last_action_result": "none",
                    "goal_complete": True, "answer": "saved it"})
CONFIRMED = json.dumps({"status": "done", "response": "looks done"})


def test_demo_on_a_configured_model_uses_it_and_fails_when_the_phone_disagrees(
        tmp_path: Path) -> None:
    # the default mode has no plan call: the operator claims, the planner confirms — with
    # no evidence on the screen, twice: the agent itself does not say done
    with ModelDouble([CLAIM, CONFIRMED] * 2, models=("tiny-vl",)) as double:
        env = {"OMG_MODEL": "tiny-vl", "OMG_BASE_URL": double.base_url}
        result = omg("demo", "--json", "--out", "out", cwd=tmp_path, env=env)
        models = {r.model for r in double.requests}
    assert result.returncode == 1, result.stdout + result.stderr
    assert "SIMULATED" not in result.stderr and "tiny-vl" in result.stderr
    assert models == {"tiny-vl"}
    out = json.loads(result.stdout)
    assert out["simulated"] is False and out["model"] == "tiny-vl"
    assert out["status"] == "failed" and "the screen never showed it" in out["summary"]
    assert out["notes"] == [] and out["saved"] is False and out["ok"] is False  # the truth
    assert Path(out["report"]).is_file()
