"""`omg-agent run` writes report.html and prints its path; the page, opened in headless
Chromium, says what the run's result says: the same counts, each action drawn on the screen
it ran on (a turn that went on to a new screen shows both), a tap that changed nothing
marked as such, and a summary in sentences with no raw JSON (run: vphone + the real openai
client + a scripted model double)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from omg_agent.cli import app
from omg_agent.sim.model_double import ModelDouble

BLANK = {"OMG_MODEL": "", "OMG_BASE_URL": "", "OMG_API_KEY": "", "OPENAI_API_KEY": "",
         "OPENAI_BASE_URL": "", "OMG_CONFIG": "", "OMG_PLANNER_MODEL": "",
         "OMG_OPERATOR_MODEL": ""}


def _script() -> list[str]:
    def turn(thought: str, *actions: dict, **more: object) -> str:
        bundle = {"intent": thought, "actions": list(actions)} if actions else None
        return json.dumps({"thought": thought, "last_action_result": "none",
                           **({"execute_now": bundle} if bundle else {}), **more})

    return [
        json.dumps({"goal": "open About phone", "steps": [
            {"description": "Open About phone in Settings",
             "success_criteria": "About phone is shown"}]}),
        # turn 1: back on the home screen: it goes through but changes nothing; the loop
        # guard waits, presses back, then reports the plan step failed (a post-mortem) …
        turn("press back", {"type": "back"}),
        # … and the planner plans again
        json.dumps({"status": "replanned", "plan": {"goal": "open About phone", "steps": [
            {"description": "Open Settings, then About phone",
             "success_criteria": "About phone is shown"}]}}),
        # turn 2: Settings on the home screen, then About phone on the Settings screen
        turn("open Settings, then About phone",
             {"type": "tap", "target": {"kind": "anchor", "text": "Settings"}},
             {"type": "tap", "target": {"kind": "anchor", "text": "About phone"}}),
        turn("About phone is open", step_complete=True, goal_complete=True,
             answer="About phone is open"),
        json.dumps({"status": "done", "response": "About phone is open",  # confirmation
                    "evidence": [{"kind": "element", "text": "About phone"}]}),
    ]


def _run(vphone, tmp_path: Path, *extra: str) -> tuple[dict, str]:
    with ModelDouble(_script()) as double:
        env = {**BLANK, "OMG_MODEL": "double", "OMG_BASE_URL": double.base_url}
        result = CliRunner().invoke(app, ["run", "open About phone", "--device", vphone.serial,
                                          "--driver", "adb", "--no-cache", "--no-macros",
                                          "--runs-dir", str(tmp_path / "runs"), *extra],
                                    env=env)
    assert result.exit_code == 0, result.output
    last = result.stdout.strip().splitlines()[-1]
    return (json.loads(last) if "--json" in extra else {}), result.stdout


def test_run_prints_the_report_path_and_the_counts_in_one_vocabulary(vphone, tmp_path):
    _, out = _run(vphone, tmp_path)
    found = re.search(r"HTML trace report: (\S+report\.html)", out)
    assert found and Path(found.group(1)).is_file(), out
    assert re.search(r"\d+ turns · \d+ budget steps · \d+ model calls · plan steps 1/1 done",
                     out), out


def test_the_report_of_a_run_shows_its_counts_screens_and_a_summary_in_words(
        vphone, tmp_path, chromium_page):
    result, _ = _run(vphone, tmp_path, "--json")
    assert result["status"] == "done" and vphone.phone.focus()[0] == "com.android.settings"
    report = Path(result["report"])
    assert report == Path(result["run_dir"]) / "report.html" and report.is_file()
    assert result["budget_steps"] == result["steps_used"]  # the old key stays

    page = chromium_page.page
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(report.as_uri(), wait_until="load")
    page.wait_for_function("Array.from(document.images).every(i => i.complete)")
    fact = lambda name: page.inner_text(f'dd[data-fact="{name}"]')  # noqa: E731
    assert int(fact("budget steps")) == result["budget_steps"]
    assert int(fact("turns")) == result["turns"] == page.locator("section.turn").count() == 3
    assert int(fact("model calls")) == result["model_calls"]

    # turn 2 acted on two screens: Settings tapped on the home screen, About phone on the next
    second = page.locator("section.turn").nth(1)
    screens = second.locator("figure.screen")
    assert screens.count() == 2
    first_marks = screens.nth(0).locator("svg.overlay text").all_text_contents()
    second_marks = screens.nth(1).locator("svg.overlay text").all_text_contents()
    assert first_marks == ["1"] and second_marks == ["2"]
    assert [screens.nth(k).get_attribute("data-package") for k in (0, 1)] == [
        "com.android.launcher3", "com.android.settings"]
    assert screens.nth(1).locator(".screenlabel").inner_text() == "screen 2 (new)"

    # turn 1's back went through but changed nothing: marked, never a green ok
    first = page.locator("section.turn").nth(0)
    assert "no effect" in first.locator("ol.actions").inner_text()
    assert first.locator("ol.actions .badge.ok").count() == 0

    summary = page.inner_text("#summary")
    assert "Done" in summary and "About phone is open" in summary
    assert "Why it stopped: the task is complete" in summary
    assert '{"' not in summary and "\\n" not in summary
    shown = page.inner_text("body")  # the model's raw replies stay folded away
    assert '{"' not in shown and "\\n" not in shown
    assert re.search(r"AAAAAAA", page.inner_text("main")) is None  # no raw screen hash

    # the failed-turns filter leaves turn 1 (no effect) only
    page.check("#failed-only")
    visible = [t for t in range(3) if page.locator("section.turn").nth(t).is_visible()]
    assert visible == [0]
    page.uncheck("#failed-only")
    page.click("section.turn >> nth=1 >> label[for$='-som'] >> nth=0")
    assert second.locator("figure.screen").nth(0).locator("img.som").is_visible()
    assert chromium_page.errors == []

    page.set_viewport_size({"width": 390, "height": 844})  # a phone: nothing wider than it
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
