"""The agent on the desktop: the real Orchestrator and openai client, a scripted model over
HTTP (:class:`~omg_agent.sim.model_double.ModelDouble`), the desktop driver on Xvfb, the Tk
test app. The model decides only from what the request shows it (the OCR element list);
the run's outcome is read from the app's own state file.
"""

from __future__ import annotations

import json
import re
from contextlib import ExitStack
from typing import Any

import pytest

from omg_agent.brain.agent import open_agent
from omg_agent.config import Settings
from omg_agent.drivers.desktop import open_desktop
from omg_agent.sim.expert.screen import Screen, request_text
from omg_agent.sim.model_double import ModelDouble, contract_name

pytestmark = pytest.mark.timeout(180)

PLAN = {"goal": "Save, type 你好世界 into the field, scroll the list to Row 20", "steps": [
    {"description": "Press Save", "success_criteria": "the status says Save pressed 1x",
     "checks": [{"kind": "element", "text": "Save pressed 1x"}], "complexity": 1},
    {"description": "Type 你好世界 into the field", "success_criteria": "the field shows it",
     "checks": [{"kind": "element", "text": "你好世界", "match": "contains"}],
     "complexity": 1},
    {"description": "Scroll the list to Row 20", "success_criteria": "Row 20 is shown",
     "checks": [{"kind": "element", "text": "Row 20"}], "complexity": 2}]}


def bundle(*actions: dict[str, Any], step_complete: bool = False,
           goal_complete: bool = False) -> str:
    return json.dumps({"thought": "looking at the screen", "last_action_result": "success",
                       "execute_now": {"intent": "act", "actions": list(actions)}
                       if actions else None,
                       "step_complete": step_complete, "goal_complete": goal_complete})


def on_screen(screen: Screen, words: str) -> bool:
    """Whether an element of the request's element list holds ``words`` (spaces ignored:
    OCR drops some)."""
    want = re.sub(r"\s+", "", words)
    return any(want in re.sub(r"\s+", "", e.text) for e in screen.elements)


class DeskModel:
    """Acts for the current step until the screen shows the step's goal, then says so."""

    def reply(self, request: dict[str, Any]) -> str:
        name = contract_name(request)
        if name == "TaskPlan":
            return json.dumps(PLAN)
        if name == "Replan":
            return json.dumps({"status": "replanned", "plan": PLAN})
        text = request_text(request)
        screen = Screen(text)
        step = int(re.search(r"Current step (\d+):", text).group(1))  # type: ignore[union-attr]
        if step == 1:
            if on_screen(screen, "Save pressed 1x"):
                return bundle(step_complete=True)
            return bundle({"type": "tap", "target": {"kind": "anchor", "text": "Save"}})
        if step == 2:
            if on_screen(screen, "你好世界"):
                return bundle(step_complete=True)
            return bundle({"type": "type", "text": "你好世界",
                           "target": {"kind": "anchor", "text": "Type here"}})
        if on_screen(screen, "Row 20"):
            return bundle(step_complete=True, goal_complete=True)
        return bundle({"type": "swipe", "direction": "up", "distance": 250,
                       "start": {"kind": "anchor", "text": "Row 04"}})


def test_the_agent_clicks_types_chinese_and_scrolls_on_the_desktop(
        xdisplay, desktop_app, ocr_engine, tmp_path) -> None:
    task = "In OMG Desk press Save, type 你好世界 into the field and scroll the list to Row 20"
    with ModelDouble(DeskModel()) as double, ExitStack() as stack:
        settings = Settings(base_url=double.base_url, model="double", max_steps=20,
                            retry_backoff_s=0.001, retry_backoff_max_s=0.01, timeout_s=20,
                            runs_dir=tmp_path, planning="adaptive")
        driver = open_desktop(f"desktop={xdisplay}", ocr=ocr_engine)
        stack.callback(driver.close)
        orchestrator = open_agent(stack, driver, settings, task, run_dir=tmp_path / "run")
        result = orchestrator.run(task)
    state = desktop_app.read()
    assert result.status == "done", (result.status, result.summary())
    assert state["clicks"]["Save"] == 1
    assert state["entry"] == "你好世界"
    assert 12 <= state["list_top"] <= 19  # Row 20 is among the 8 rows shown
    # the model saw the app's words as elements, and the frontmost app by its WM_CLASS
    first_turn = next(r for r in double.requests if contract_name(r.body) != "TaskPlan")
    assert "Type here" in request_text(first_turn.body)


def test_omg_agent_run_on_the_desktop(xdisplay, desktop_app, tmp_path) -> None:
    """The same task through ``omg-agent run --device desktop=:N``."""
    from typer.testing import CliRunner

    from omg_agent.cli import app

    with ModelDouble(DeskModel()) as double:
        env = {"OMG_MODEL": "double", "OMG_BASE_URL": double.base_url, "OMG_API_KEY": "",
               "OPENAI_API_KEY": "", "OMG_PLANNING": "adaptive"}
        result = CliRunner().invoke(app, [
            "run", "In OMG Desk press Save, type 你好世界 and scroll the list to Row 20",
            "--device", f"desktop={xdisplay}", "--json", "--runs-dir", str(tmp_path / "runs"),
            "--max-steps", "20"], env=env)
    assert result.exit_code == 0, result.output[-2000:]
    assert json.loads(result.stdout.strip().splitlines()[-1])["status"] == "done"
    state = desktop_app.read()
    assert state["clicks"]["Save"] == 1 and state["entry"] == "你好世界"
    assert 12 <= state["list_top"] <= 19
