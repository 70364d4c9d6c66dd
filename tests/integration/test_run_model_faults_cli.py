"""``omg-agent run`` against a failing or hung model endpoint: each retry is shown to the
user, and ``--timeout`` ends the run failed with the deadline named. Typer's runner, the real
openai client and the model double over HTTP, a vphone over adb."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from look_script import BLANK, CONFIRMED, LOOKED, PLAN
from typer.testing import CliRunner

from omg_agent.cli import app
from omg_agent.sim.model_double import ModelDouble


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no omg.toml around
    return tmp_path


def _env(double: ModelDouble, **extra: str) -> dict[str, str]:
    # the scripts start with a plan: the planner is asked first, as in adaptive planning
    return {**BLANK, "OMG_MODEL": "double", "OMG_BASE_URL": double.base_url,
            "OMG_RETRY_BACKOFF_S": "0.01", "OMG_RETRY_BACKOFF_MAX_S": "0.01",
            "OMG_PLANNING": "adaptive", **extra}


def test_each_retry_of_a_failing_endpoint_is_shown_and_the_run_goes_on(
        vphone: Any, in_tmp: Path) -> None:
    script = [{"status": 503}, {"status": 429}, PLAN, LOOKED, CONFIRMED]
    with ModelDouble(script) as double:
        result = CliRunner().invoke(app, ["run", "look at the screen", "--device",
                                          vphone.serial, "--driver", "adb", "--runs-dir",
                                          str(in_tmp / "runs")], env=_env(double))
    assert result.exit_code == 0, result.output
    assert "⚠ planner model answered HTTP 503" in result.output
    assert "retry 1/4" in result.output
    assert "⚠ planner model is rate-limited (HTTP 429); retry 2/4" in result.output
    assert "done: the screen was looked at" in result.output  # the planner's words


def test_timeout_ends_a_run_whose_model_hangs_failed_naming_the_deadline(
        vphone: Any, in_tmp: Path) -> None:
    released = threading.Event()

    def hang(_request: dict[str, Any]) -> str:
        released.wait(60)  # the endpoint answers only after the test is over
        return PLAN

    try:
        with ModelDouble([hang, PLAN, LOOKED, CONFIRMED]) as double:
            result = CliRunner().invoke(app, ["run", "look at the screen", "--device",
                                              vphone.serial, "--driver", "adb", "--json",
                                              "--timeout", "1.5", "--runs-dir",
                                              str(in_tmp / "runs")], env=_env(double))
            released.set()
    finally:
        released.set()
    assert result.exit_code == 1, result.output
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["status"] == "failed"
    assert "run deadline of 1.5 s passed" in out["stopped_because"]
    assert out["steps_used"] == 0 and len(double.requests) <= 1  # no retry past it


def test_timeout_must_be_positive(in_tmp: Path) -> None:
    env = {**BLANK, "OMG_MODEL": "m", "OMG_BASE_URL": "http://127.0.0.1:9/v1"}
    result = CliRunner().invoke(app, ["run", "x", "--timeout", "0"], env=env)
    assert result.exit_code != 0
    assert "--timeout" in result.output
