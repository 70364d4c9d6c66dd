"""A real run leaves a trace folder, and `omg-agent report` turns it into a page that opens in
headless Chromium without errors (the run: vphone + real openai client + model double)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from omg_agent.cli import app
from omg_agent.sim.model_double import ModelDouble

BLANK = {"OMG_MODEL": "", "OMG_BASE_URL": "", "OMG_API_KEY": "", "OPENAI_API_KEY": "",
         "OPENAI_BASE_URL": "", "OMG_CONFIG": "", "OMG_PLANNER_MODEL": "",
         "OMG_OPERATOR_MODEL": ""}


def _script() -> list[str]:
    return [
        json.dumps({"goal": "open Settings", "steps": [
            {"description": "Open Settings", "success_criteria": "Settings is shown"}]}),
        json.dumps({"thought": "tap the Settings icon", "last_action_result": "none",
                    "execute_now": {"intent": "open Settings", "actions": [
                        {"type": "tap", "target": {"kind": "anchor", "text": "Settings"}}]}}),
        json.dumps({"thought": "Settings is open", "last_action_result": "success",
                    "step_complete": True, "goal_complete": True, "answer": "opened"}),
        json.dumps({"status": "done", "response": "Settings is open",  # the confirmation
                    "evidence": [{"kind": "element", "text": "Wi-Fi"}]}),
    ]


def test_a_run_trace_renders_as_a_report_that_chromium_opens(vphone, tmp_path,
                                                             chromium_page):
    with ModelDouble(_script()) as double:
        env = {**BLANK, "OMG_MODEL": "double", "OMG_BASE_URL": double.base_url}
        result = CliRunner().invoke(app, ["run", "open Settings", "--device", vphone.serial,
                                          "--driver", "adb", "--json",
                                          "--runs-dir", str(tmp_path / "runs")], env=env)
    assert result.exit_code == 0, result.output
    run_dir = Path(json.loads(result.stdout.strip().splitlines()[-1])["run_dir"])
    assert vphone.phone.focus()[0] == "com.android.settings"
    assert (run_dir / "trace.jsonl").is_file() and list((run_dir / "screens").glob("*.jpg"))

    made = CliRunner().invoke(app, ["report", str(run_dir)])
    assert made.exit_code == 0, made.output
    report = run_dir / "report.html"
    assert report.is_file()

    page = chromium_page.page
    page.goto(report.as_uri(), wait_until="load")
    page.wait_for_function("Array.from(document.images).every(i => i.complete)")
    widths = page.eval_on_selector_all("section.step img", "els => els.map(e => e.naturalWidth)")
    header = page.inner_text("header.run")
    assert chromium_page.errors == []
    assert widths and all(w > 0 for w in widths)
    assert "open Settings" in header
