"""What a turn costs (issue 27): one budget step per model turn in every mode, the budget
left told to the model, the screenshot only when it adds something, and no planner
confirmation when the system read the end state's value off the screen itself.

FakeDriver screens, the real openai client on httpx.MockTransport."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from omg_agent.core.actions import Action
from omg_agent.core.observation import UIElement

from .fakes import FakeWorld, ScriptedModel, bundle, el, orchestrator, plan, tap, user_text

LIST = [el(1, "Wi-Fi"), el(2, "Bluetooth"), el(3, "Display"), el(4, "About phone")]


def world(screens: dict[str, Any] | None = None) -> FakeWorld:
    """Settings: tapping a row opens its page; anything else changes nothing."""
    pages = {"Wi-Fi": "wifi", "Bluetooth": "bt", "Display": "display", "Open web": "web"}

    def move(screen: str, action: Action, element: UIElement | None) -> str:
        return pages.get(element.text, screen) if element is not None else screen

    return FakeWorld(screens or {
        "settings": ("com.android.settings", LIST + [el(5, "Open web")]),
        "wifi": ("com.android.settings", [el(1, "Networks"), el(2, "Bluetooth"),
                                          el(3, "Saved")]),
        "bt": ("com.android.settings", [el(1, "Pair new"), el(2, "Display"),
                                        el(3, "Devices")]),
        "display": ("com.android.settings", [el(1, "Brightness"), el(2, "Dark theme"),
                                              el(3, "Font size")]),
        "web": ("com.example", [UIElement(1, "android.webkit.WebView", "web",
                                          LIST[0].bounds)]),
    }, move, "settings")


def script(*replies: tuple[str, Any]) -> ScriptedModel:
    queue: Iterator[tuple[str, Any]] = iter(replies)

    def policy(contract: str, text: str, body: dict[str, Any]) -> Any:
        want, reply = next(queue)
        assert contract == want, (contract, want)
        return reply

    return ScriptedModel(policy)


def operator_requests(model: ScriptedModel) -> list[dict[str, Any]]:
    return [r for r in model.requests
            if r.get("response_format", {}).get("json_schema", {}).get("name")
            == "DecisionBundle"]


def has_image(request: dict[str, Any]) -> bool:
    return any(p.get("type") == "image_url" for p in request["messages"][-1]["content"])


# -- the budget ---------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["flat", "unified", "adaptive"])
def test_each_model_turn_costs_one_budget_step_whatever_its_bundle_runs(mode: str) -> None:
    def policy(contract: str, text: str, body: dict[str, Any]) -> Any:
        if contract == "TaskPlan":
            return plan({"description": "Open Display"})
        if contract == "Replan":
            return {"status": "done", "response": "open",
                    "evidence": [{"kind": "element", "text": "Dark theme"}]}
        screen = text.split("Elements on screen", 1)[-1]
        for seen, row in (("Networks", "Bluetooth"), ("Pair new", "Display")):
            if seen in screen:
                return bundle(tap(row), {"type": "wait", "seconds": 0.1})
        if "Brightness" in screen:
            return bundle(goal_complete=True, answer="open")
        return bundle(tap("Wi-Fi"))

    model = ScriptedModel(policy)
    with orchestrator(world(), model, planning=mode, confirm_done="always") as orch:
        result = orch.run("open Display")
    assert result.status == "done"
    turns = len(operator_requests(model))
    replans = model.contracts().count("Replan")
    assert turns == 4 and replans == 1  # three turns acted, one claimed; one confirmation
    # each reply one step; the bundles they carried and the free first plan add nothing
    assert result.steps_used == turns + replans == 5


def test_the_model_is_told_the_budget_left_each_turn() -> None:
    model = script(("DecisionBundle", bundle(tap("Wi-Fi"))),
                   ("DecisionBundle", bundle(tap("Bluetooth"))),
                   ("DecisionBundle", bundle(tap("Display"))))
    with orchestrator(world(), model, planning="flat", max_steps=3) as orch:
        result = orch.run("toggle things")
    texts = [user_text(r) for r in operator_requests(model)]
    assert "Budget: 3 of 3 steps left" in texts[0]
    assert "Budget: 2 of 3 steps left" in texts[1]
    assert "Budget: 1 of 3 steps left" in texts[2]
    assert result.status == "failed" and result.steps_used == 3


# -- confirmations --------------------------------------------------------------------------
def _read_version(save: dict[str, Any]) -> ScriptedModel:
    return script(
        ("TaskPlan", plan({"description": "Read the Android version",
                           "data_output": "version"})),
        ("DecisionBundle", bundle(save, goal_complete=True, answer="Android $version")),
        ("Replan", {"status": "done", "response": "Android 14",
                    "evidence": [{"kind": "element", "text": "About phone"}]}))


def test_a_value_read_off_the_screen_ends_the_run_without_a_confirmation_call() -> None:
    model = _read_version({"type": "mem_save", "key": "version",
                           "from_screen": {"target": {"kind": "element", "id": 4}}})
    with orchestrator(world(), model) as orch:
        result = orch.run("what is the android version")
    assert result.status == "done" and result.answer == "Android About phone"
    assert model.contracts() == ["TaskPlan", "DecisionBundle"]
    assert result.confirm_calls == 0


def test_a_value_the_model_only_says_is_confirmed_by_the_planner_and_counted() -> None:
    model = _read_version({"type": "mem_save", "key": "version", "value": "14"})
    with orchestrator(world(), model) as orch:
        result = orch.run("what is the android version")
    assert result.status == "done"
    assert model.contracts() == ["TaskPlan", "DecisionBundle", "Replan"]
    assert result.confirm_calls == 1


# -- vision ---------------------------------------------------------------------------------
def test_auto_vision_sends_the_element_list_alone_on_a_well_labelled_screen() -> None:
    model = script(("DecisionBundle", bundle(tap("Bluetooth"))),
                   ("DecisionBundle", bundle(tap("Display"))),
                   ("DecisionBundle", bundle(goal_complete=True, answer="ok")))
    with orchestrator(world(), model, planning="flat", confirm_done="never") as orch:
        orch.run("open Display")
    sent = operator_requests(model)
    assert [has_image(r) for r in sent] == [False, False, False]
    assert '[3] button "Display"' in user_text(sent[0])  # the element list is there


def test_auto_vision_shows_a_web_view_and_a_screen_the_model_asked_to_see() -> None:
    model = script(("DecisionBundle", bundle(tap("Open web"), look=True)),
                   ("DecisionBundle", bundle(goal_complete=True, answer="ok")))
    with orchestrator(world(), model, planning="flat", confirm_done="never") as orch:
        orch.run("open the web page")
    # turn 2: the model asked to look, and the page draws its content in a WebView
    assert [has_image(r) for r in operator_requests(model)] == [False, True]


def test_auto_vision_shows_the_screen_after_an_action_with_no_visible_effect() -> None:
    model = script(("DecisionBundle", bundle(tap("About phone"))),
                   ("DecisionBundle", bundle(goal_complete=True, answer="ok")))
    with orchestrator(world(), model, planning="flat", confirm_done="never",
                      loop_guard=False) as orch:
        orch.run("tap About phone")
    # the tap went through and the screen stayed the same: what happened is unclear
    assert [has_image(r) for r in operator_requests(model)] == [False, True]


@pytest.mark.parametrize(("vision", "images"), [("always", [True, True]),
                                                ("never", [False, False])])
def test_vision_always_and_never_override_the_rules(vision: str, images: list[bool]) -> None:
    model = script(("DecisionBundle", bundle(tap("Open web"), look=True)),
                   ("DecisionBundle", bundle(goal_complete=True, answer="ok")))
    with orchestrator(world(), model, planning="flat", confirm_done="never",
                      vision=vision) as orch:
        orch.run("open the web page")
    assert [has_image(r) for r in operator_requests(model)] == images


def test_a_bad_vision_setting_names_the_choices() -> None:
    from omg_agent.config import Settings
    from omg_agent.errors import ConfigError

    with pytest.raises(ConfigError, match="vision") as info:
        Settings.load(overrides={"vision": "sometimes"}, env={})
    assert "auto" in str(info.value) and "never" in str(info.value)


# -- the stable prefix ----------------------------------------------------------------------
def test_the_system_prompt_and_schema_stay_identical_across_turns() -> None:
    model = script(("DecisionBundle", bundle(tap("Bluetooth"))),
                   ("DecisionBundle", bundle(tap("Display"))),
                   ("DecisionBundle", bundle(goal_complete=True, answer="ok")))
    with orchestrator(world(), model, planning="unified", confirm_done="never") as orch:
        orch.run("open Display")
    sent = operator_requests(model)
    assert len(sent) == 3
    assert len({r["messages"][0]["content"] for r in sent}) == 1
    assert len({str(r["response_format"]) for r in sent}) == 1
    # what changes from turn to turn comes after what does not
    assert all(user_text(r).startswith("Task: open Display") for r in sent)


def test_run_vision_flag_rejects_an_unknown_setting_in_one_line() -> None:
    from typer.testing import CliRunner

    from omg_agent.cli import app

    result = CliRunner().invoke(app, ["run", "Turn off Wi-Fi", "--vision", "sometimes"],
                                env={"OMG_MODEL": "m", "OMG_BASE_URL": "http://m.test/v1",
                                     "OMG_CONFIG": ""})
    assert result.exit_code == 1
    assert "--vision 'sometimes':" in result.output and "'never'" in result.output


def test_the_trace_says_why_each_turn_saw_the_screenshot(tmp_path) -> None:
    import json

    from omg_agent.trace.recorder import TraceRecorder

    model = script(("DecisionBundle", bundle(tap("Open web"))),
                   ("DecisionBundle", bundle(goal_complete=True, answer="ok")))
    with TraceRecorder(tmp_path / "run", task="t") as recorder, \
            orchestrator(world(), model, planning="flat", confirm_done="never",
                         recorder=recorder) as orch:
        orch.run("open the web page")
    lines = [json.loads(line) for line in (tmp_path / "run" / "trace.jsonl").read_text(
        encoding="utf-8").splitlines()]
    steps = [line for line in lines if line.get("record") == "step"]
    assert [s["vision"] for s in steps] == ["", "the screen draws its content (WebView)"]


def test_cached_prompt_tokens_the_endpoint_reports_are_summed_in_the_result() -> None:
    model = script(("DecisionBundle", bundle(tap("Bluetooth"))),
                   ("DecisionBundle", bundle(goal_complete=True, answer="ok")))
    model.cached = 64
    with orchestrator(world(), model, planning="flat", confirm_done="never") as orch:
        result = orch.run("open Bluetooth")
    assert result.model_calls == 2
    assert result.tokens_cached == 128 and result.tokens_in == 200
