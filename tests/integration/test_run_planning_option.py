"""``omg-agent run --planning MODE`` (the README's promise): the accepted values are
OMG_PLANNING's, anything else is refused in one line naming them, and the mode given is
the one the run plans with (its trace says so)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from omg_agent.cli import app

BLANK = {"OMG_MODEL": "", "OMG_BASE_URL": "", "OMG_API_KEY": "", "OPENAI_API_KEY": "",
         "OPENAI_BASE_URL": "", "OMG_CONFIG": "", "OMG_PLANNER_MODEL": "",
         "OMG_OPERATOR_MODEL": ""}


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no omg.toml around
    return tmp_path


def test_a_planning_mode_it_does_not_know_is_refused_in_one_line_naming_the_modes(
        in_tmp: Path) -> None:
    result = CliRunner().invoke(app, ["run", "Turn off Wi-Fi", "--planning", "plan-a-lot"],
                                env=BLANK)
    assert result.exit_code == 2  # bad usage
    line = result.output.strip()
    assert "\n" not in line and "--planning 'plan-a-lot'" in line
    assert "flat, unified, replan-each or adaptive" in line


@pytest.mark.parametrize("mode", ["flat", "adaptive"])
def test_the_planning_mode_given_is_the_one_the_run_plans_with(in_tmp: Path, mode: str
                                                                ) -> None:
    result = CliRunner().invoke(app, ["run", "Turn off Wi-Fi", "--model", "sim", "--json",
                                      "--no-cache", "--planning", mode],
                                env={**BLANK, "OMG_PLANNING": "unified"})
    assert result.exit_code == 0, result.output
    run_dir = Path(json.loads(result.stdout.strip().splitlines()[-1])["run_dir"])
    lines = [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]
    planned = [r["data"] for r in lines if r.get("record") == "event" and r.get("kind") == "plan"]
    assert planned and planned[0]["mode"] == mode  # the flag wins over OMG_PLANNING
