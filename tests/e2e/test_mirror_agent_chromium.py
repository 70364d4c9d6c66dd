"""The agent's channel on the mirror page in headless Chromium (issue 16): a run's
``ask_user`` question answered on the page resumes it, and a Pay approval rejected on the
page leaves no order. The run is the real Orchestrator with the model double over HTTP and
a vphone over adb; its ask_user and gate channel are the mirror's (as ``run --mirror``
wires them); outcomes are read from the vphone's state.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from mirror_models import ANSWER, QUESTION, SETTINGS, AskingModel  # tests/e2e/mirror_models.py

from omg_agent.brain.agent import gatekeeper
from omg_agent.brain.llm import LLMClient
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.orchestrator import Orchestrator, RunResult
from omg_agent.config import Settings
from omg_agent.drivers.adb import AdbDriver
from omg_agent.hitl.server import Mirror
from omg_agent.sim.gullible import GulliblePolicy
from omg_agent.sim.model_double import ModelDouble

playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = playwright.expect
PlaywrightTimeout = playwright.TimeoutError

SHOP = "com.omg.shop"


def _run_in_thread(vphone, policy: Any, task: str, mirror: Mirror, tmp_path: Path,
                   out: list[RunResult]) -> threading.Thread:
    def go() -> None:
        with ModelDouble(policy) as double, MemoryBank(None, "mirror") as memory:
            settings = Settings(base_url=double.base_url, model="double", max_steps=8,
                                retry_backoff_s=0.001, retry_backoff_max_s=0.01,
                                timeout_s=20, runs_dir=tmp_path, planning="adaptive")
            llm = LLMClient(settings, "operator")
            driver = AdbDriver(vphone.serial)
            try:
                orch = Orchestrator(driver, llm, llm, memory, settings, None,
                                    mirror.channel.ask, gatekeeper=gatekeeper(
                                        settings, task, mirror.channel))
                out.append(orch.run(task))
            finally:
                driver.close()
                llm.close()

    thread = threading.Thread(target=go, name="agent-run", daemon=True)
    thread.start()
    return thread


def test_an_ask_user_question_answered_on_the_page_resumes_the_run(vphone, tmp_path,
                                                                   chromium_page):
    page = chromium_page.page
    model = AskingModel(vphone.phone)
    out: list[RunResult] = []
    with AdbDriver(vphone.serial) as view, Mirror(view) as mirror:
        page.goto(mirror.url)
        thread = _run_in_thread(vphone, model, model.goal, mirror, tmp_path, out)
        request = page.locator(".req[data-kind=ask]")
        expect(request).to_contain_text(QUESTION, timeout=60_000)
        request.locator("input.answer").fill(ANSWER)
        request.locator("button.send-answer").click()
        thread.join(120)
        answers = [e for e in mirror.audit.entries if e["action"] == "answer"]
    assert not thread.is_alive() and model.seen_answer
    assert vphone.phone.foreground == SETTINGS  # the run went on and acted on the answer
    assert answers and answers[0]["by"] == "page" and answers[0]["request"] == "ask"
    assert chromium_page.errors == []


def test_a_pay_approval_rejected_on_the_page_leaves_no_order(vphone, tmp_path, chromium_page):
    vphone.phone.set_hazards("promo_injection")  # the screen tells the agent to pay
    page = chromium_page.page
    out: list[RunResult] = []
    shown: list[str] = []
    with AdbDriver(vphone.serial) as view, Mirror(view) as mirror:
        page.goto(mirror.url)
        thread = _run_in_thread(vphone, GulliblePolicy(), "Open Shop and look at today's "
                                "offers", mirror, tmp_path, out)
        while thread.is_alive():  # reject every approval the run asks for
            request = page.locator(".req[data-kind=confirm]").first
            try:
                text = request.inner_text(timeout=1000)  # what the page shows, then No
                request.locator("button.reject").click(timeout=1000)
                shown.append(text)
            except PlaywrightTimeout:
                continue
        rejected = [e for e in mirror.audit.entries if e["action"] == "answer"]
    assert vphone.phone.state()["apps"][SHOP]["orders"] == []
    assert rejected and all(e["answer"] is False and e["by"] == "page" for e in rejected)
    assert any("Pay now" in text for text in shown)  # exactly what would be tapped
    assert out and out[0].status != "done"
