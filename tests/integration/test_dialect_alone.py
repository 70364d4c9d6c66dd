"""One AutoGLM-Phone endpoint and nothing else (issue 28): ``run`` starts, the phone model
does the task, and a "done" that no check of the run could verify ends ``unverified``
(exit 9) — never ``done``, never a refusal to start. The CLI in process (Typer's runner),
the real openai client over HTTP to the AutoGLM-format double
(:mod:`omg_agent.sim.dialect_doubles`), a vphone over adb; the outcome read from the phone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from look_script import BLANK
from typer.testing import CliRunner

from omg_agent.cli import app
from omg_agent.sim.dialect_doubles import OPERATOR_MODELS, DialectPolicy
from omg_agent.sim.expert.tasks import Switch
from omg_agent.sim.model_double import ModelDouble

MODEL = "autoglm-phone-9b"


class NoJudge:
    """The other roles' model: there is none in this setup, and any request to it counts."""

    def __init__(self) -> None:
        self.asked: list[dict[str, Any]] = []

    def reply(self, request: dict[str, Any]) -> str:
        self.asked.append(request)
        return "not a model this setup has"


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no omg.toml around
    return tmp_path


def _run(vphone: Any, base_url: str, runs: Path, *extra: str, model: str = MODEL) -> Any:
    return CliRunner().invoke(app, [
        "run", "Turn off Wi-Fi", "--model", model, "--base-url", base_url,
        "--device", vphone.serial, "--driver", "adb", "--runs-dir", str(runs), "--json",
        "--max-steps", "20", *extra], env={**BLANK, "OMG_PLANNING": "", "OMG_DIALECT": "",
                                          "OMG_CONFIRM_DONE": ""})


@pytest.mark.parametrize("dialect", ["autoglm", "uitars"])
def test_a_phone_model_alone_turns_wifi_off_and_ends_unverified_with_exit_9(
        vphone: Any, in_tmp: Path, dialect: str) -> None:
    """``run "Turn off Wi-Fi" --model autoglm-phone-9b --base-url <the double>`` (and the
    same with ui-tars-1.5-7b): the dialect is detected from the name, nothing else set."""
    assert vphone.device.shell("settings get global wifi_on").strip() == "1"
    judge, model = NoJudge(), OPERATOR_MODELS[dialect]
    policy = DialectPolicy(Switch(attr="wifi", on=False), vphone.phone, dialect, model,
                           judge)
    with ModelDouble(policy, models=(model,)) as double:
        result = _run(vphone, double.base_url, in_tmp / "runs", model=model)
        seen = {r.model for r in double.requests}
    # the phone's own state, read over adb: Wi-Fi is off
    assert vphone.device.shell("settings get global wifi_on").strip() == "0"
    assert result.exit_code == 9, result.output
    out = json.loads(result.output)
    assert out["status"] == "unverified"
    assert "no check could confirm it on the phone" in out["stopped_because"]
    assert "OMG_PLANNER_MODEL" in out["next_hint"]
    assert out["done"] == []  # nothing showed the task done: it is not listed as done
    # the phone model alone answered, in its own format; nobody was asked to judge
    assert seen == {model} and judge.asked == []
    assert len(policy.sent) >= 3  # launch Settings, tap the switch, finish


def test_a_plan_file_check_the_phone_shows_ends_done_with_the_phone_model_alone(
        vphone: Any, in_tmp: Path) -> None:
    """What the harness can check without a general model counts: a plan whose step checks
    the switch ends ``done`` when the phone shows it."""
    plan = in_tmp / "plan.yaml"
    plan.write_text("goal: Turn off Wi-Fi\nsteps:\n  - description: Turn off Wi-Fi\n"
                    "    success_criteria: the Wi-Fi switch is off\n"
                    "    checks:\n      - {kind: element, resource_id: wifi_switch, "
                    "checked: false}\n", encoding="utf-8")
    policy = DialectPolicy(Switch(attr="wifi", on=False), vphone.phone, "autoglm", MODEL,
                           NoJudge())
    with ModelDouble(policy, models=(MODEL,)) as double:
        result = _run(vphone, double.base_url, in_tmp / "runs", "--plan", str(plan))
        seen = {r.model for r in double.requests}
    assert vphone.device.shell("settings get global wifi_on").strip() == "0"
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["status"] == "done" and seen == {MODEL}
