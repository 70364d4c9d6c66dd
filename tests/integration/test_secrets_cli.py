"""Secrets on the command line, over the real CLI (issue 24, item 7): a secret whose value
is also text on the screen (``--secret pw=Settings``) leaves "Turn off Wi-Fi" done with no
file of the run holding the value; names ignore case (``OMG_SECRET_USER`` is the task's
``{{secret:USER}}``); a placeholder nobody gave is refused before the first model call.
The model is a double over real HTTP; the phone a vphone through the real adb server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from omg_agent.cli import app
from omg_agent.sim.model_double import ModelDouble, contract_name

LOGIN, SETTINGS = "com.omg.login", "com.android.settings"
BLANK = {"OMG_MODEL": "", "OMG_BASE_URL": "", "OMG_API_KEY": "", "OPENAI_API_KEY": "",
         "OPENAI_BASE_URL": "", "OMG_CONFIG": "", "OMG_PLANNER_MODEL": "",
         "OMG_OPERATOR_MODEL": ""}


def _run(args: list[str], env: dict[str, str]) -> Any:
    return CliRunner().invoke(app, ["run", *args], env={**BLANK, **env})


def _text(request: dict[str, Any]) -> str:
    parts = []
    for message in request["messages"]:
        content = message["content"]
        parts += [content] if isinstance(content, str) else [
            p.get("text", "") for p in content if p.get("type") == "text"]
    return "\n".join(parts)


def _bundle(*actions: dict[str, Any], **flags: Any) -> str:
    return json.dumps({"thought": "looking", "last_action_result": "success",
                       "execute_now": {"intent": "wifi", "actions": list(actions)}
                       if actions else None, **flags})


class ReadsTheScreen:
    """A model that works from the element list it is sent, as a real one does: the launcher
    icon and the Settings title reach it as ``{{secret:pw}}``, so it taps that anchor and
    quotes it as evidence (plus the switch, which proves the outcome)."""

    def __init__(self, phone: Any) -> None:
        self.phone = phone

    def reply(self, request: dict[str, Any]) -> str:
        text = _text(request)
        match contract_name(request):
            case "TaskPlan":
                return json.dumps({"goal": "Turn off Wi-Fi", "steps": [{
                    "description": "Turn off Wi-Fi in the settings",
                    "success_criteria": "the Wi-Fi switch is off"}]})
            case "Replan":
                return json.dumps({"status": "done", "response": "Wi-Fi is off", "evidence": [
                    {"kind": "element", "text": "{{secret:pw}}"},
                    {"kind": "element", "resource_id": "wifi_switch", "checked": False}]})
        if "res=wifi_switch" not in text:
            return _bundle({"type": "tap", "target": {"kind": "anchor",
                                                      "text": "{{secret:pw}}"}})
        if self.phone.apps[SETTINGS].wifi:
            return _bundle({"type": "tap", "target": {"kind": "anchor",
                                                      "resource_id": "wifi_switch"}})
        return _bundle(step_complete=True, goal_complete=True, answer="Wi-Fi is off")


def test_a_secret_that_is_on_screen_text_lets_turn_off_wifi_finish_and_never_leaks(
        vphone, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    vphone.phone.apps[SETTINGS].wifi = True
    with ModelDouble(ReadsTheScreen(vphone.phone)) as double:
        result = _run(["Turn off Wi-Fi", "--device", vphone.serial, "--driver", "adb",
                       "--json", "--runs-dir", str(tmp_path / "runs"), "--no-cache",
                       "--secret", "pw=Settings"],
                      {"OMG_MODEL": "double", "OMG_BASE_URL": double.base_url,
                       "OMG_PLANNING": "adaptive", "OMG_CONFIRM_DONE": "always"})
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["status"] == "done" and not vphone.phone.apps[SETTINGS].wifi
    assert any("{{secret:pw}}" in _text(r.body) for r in double.requests)  # masked to it
    run_dir = Path(out["run_dir"])
    assert CliRunner().invoke(app, ["report", str(run_dir)]).exit_code == 0
    files = [p for p in run_dir.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"trace.jsonl", "result.json", "report.html"}
    assert [p for p in files if b"Settings" in p.read_bytes()] == []
    assert "Settings" not in result.stdout


class SignsInWithPlaceholders:
    """Opens Login and types the task's upper-case placeholders for both fields."""

    def reply(self, request: dict[str, Any]) -> str:
        text = json.dumps(request["messages"], ensure_ascii=False)
        match contract_name(request):
            case "TaskPlan":
                return json.dumps({"goal": "sign in", "steps": [{
                    "description": "Sign in", "success_criteria": "signed in"}]})
            case "Replan":
                return json.dumps({"status": "done", "response": "signed in", "evidence": [
                    {"kind": "element", "text": "Welcome", "match": "contains"}]})
        if "Welcome" in text:
            return json.dumps({"thought": "in", "last_action_result": "success",
                               "step_complete": True, "goal_complete": True,
                               "answer": "signed in"})
        anchor = {"kind": "anchor", "resource_id": f"{LOGIN}:id/%s"}
        return json.dumps({"thought": "sign in", "last_action_result": "none",
                           "execute_now": {"intent": "sign in", "actions": [
                               {"type": "launch", "app": LOGIN},
                               {"type": "type", "target": {**anchor, "resource_id":
                                                           anchor["resource_id"] % "username"},
                                "text": "{{secret:USER}}"},
                               {"type": "type", "target": {**anchor, "resource_id":
                                                           anchor["resource_id"] % "password"},
                                "text": "{{secret:PW}}"},
                               {"type": "tap", "target": {**anchor, "resource_id":
                                                          anchor["resource_id"] % "sign_in"}}]}})


def test_omg_secret_user_and_a_lowercase_option_resolve_uppercase_placeholders(
        vphone, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    password = vphone.phone.apps[LOGIN].valid_password
    with ModelDouble(SignsInWithPlaceholders()) as double:
        result = _run(["Sign in to Login as {{secret:USER}} with password {{secret:PW}}",
                       "--device", vphone.serial, "--driver", "adb", "--json",
                       "--runs-dir", str(tmp_path / "runs"), "--secret", f"pw={password}",
                       "--secret", "USER@Login:username"],  # a user name: not a password
                      {"OMG_MODEL": "double", "OMG_BASE_URL": double.base_url,
                       "OMG_SECRET_USER": "demo", "OMG_ALLOW": "secret_entry"})
    assert result.exit_code == 0, result.output
    assert vphone.phone.apps[LOGIN].state()["logged_in"]
    assert not any(password in json.dumps(r.body) for r in double.requests)


class NeverCalled:
    def reply(self, request: dict[str, Any]) -> str:
        raise AssertionError("the model was asked")


@pytest.mark.timeout(60)
def test_an_unknown_placeholder_is_one_error_line_before_any_model_call(
        tmp_path: Path) -> None:
    with ModelDouble(NeverCalled()) as double:
        env = {**os.environ, **BLANK, "OMG_MODEL": "double", "OMG_BASE_URL": double.base_url,
               "OMG_SECRET_USER": "demo-7"}
        done = subprocess.run(
            [sys.executable, "-m", "omg_agent.cli", "run", "Sign in as {{secret:NOPE}}",
             "--secret", "pw=hunter22", "--device", "emulator-5554", "--runs-dir",
             str(tmp_path / "runs")], env=env, cwd=tmp_path, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=50, check=False)
        requests = list(double.requests)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert lines[0].startswith("error: the task uses {{secret:NOPE}}")
    assert "known: pw, user" in lines[0] and "hunter22" not in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert requests == [] and not (tmp_path / "runs").exists()
