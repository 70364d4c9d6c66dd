"""``omg-agent run --mirror`` with no TTY (issue 16): without the mirror such a run stops
with exit 3 on the agent's question; with it the question waits on the page, is answered
in headless Chromium, and the run completes (exit 0), the answer in the run's trace; the
page lists the run's last actions, each with a thumbnail of the screen it acted on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mirror_models import ANSWER, QUESTION, SETTINGS, AskingModel

from omg_agent.sim.model_double import ModelDouble

playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = playwright.expect

ROOT = Path(__file__).resolve().parents[2]
BLANK = {"OMG_API_KEY": "", "OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "OMG_CONFIG": "",
         "OMG_PLANNER_MODEL": "", "OMG_OPERATOR_MODEL": ""}


def _run(serial: str, base_url: str, tmp_path: Path, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, **BLANK, "PYTHONPATH": str(ROOT), "COLUMNS": "400",
           "OMG_MODEL": "double", "OMG_BASE_URL": base_url, "OMG_PLANNING": "adaptive"}
    return subprocess.Popen([sys.executable, "-m", "omg_agent.cli", "run", AskingModel.goal,
                             "--device", serial, "--driver", "adb", "--json", "--runs-dir",
                             str(tmp_path / "runs"), *extra],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)


def test_without_a_tty_the_question_waits_on_the_page_and_the_run_completes(
        vphone, tmp_path, chromium_page):
    with ModelDouble(AskingModel(vphone.phone)) as double:
        stopped = _run(vphone.serial, double.base_url, tmp_path)
        out, _ = stopped.communicate(timeout=120)
        assert stopped.returncode == 3  # no TTY, no mirror: the run stops on the question
        assert json.loads(out.strip().splitlines()[-1])["question"] == QUESTION

        proc = _run(vphone.serial, double.base_url, tmp_path, "--mirror")
        try:
            assert proc.stderr is not None
            url = ""
            for line in proc.stderr:
                if "mirror: open " in line:
                    url = line.split("mirror: open ", 1)[1].strip()
                    break
            assert url.startswith("http://127.0.0.1:"), "no mirror link printed"
            page = chromium_page.page
            page.goto(url)
            request = page.locator(".req[data-kind=ask]")
            expect(request).to_contain_text(QUESTION, timeout=60_000)
            expect(page.locator("#plan")).to_contain_text(AskingModel.goal)  # the run's plan
            # the last actions, each beside a thumbnail of the screen it acted on (issue 30)
            expect(page.locator("#recent li").first).to_be_visible()
            expect(page.locator("#recent li:not(:has(img))")).to_have_count(0)
            page.wait_for_function("[...document.querySelectorAll('#recent img')].every("
                                   "i => i.complete && i.naturalWidth > 0 && i.naturalWidth"
                                   " <= 160)")
            request.locator("input.answer").fill(ANSWER)
            request.locator("button.send-answer").click()
            out, _ = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert proc.returncode == 0, out
    result = json.loads(out.strip().splitlines()[-1])
    assert result["status"] == "done" and vphone.phone.foreground == SETTINGS
    trace = Path(result["run_dir"]) / "trace.jsonl"
    human = [json.loads(line) for line in trace.read_text("utf-8").splitlines()
             if '"kind":"human"' in line]
    assert human and human[0]["data"]["action"] == "answer"
    assert human[0]["data"]["by"] == "page"
