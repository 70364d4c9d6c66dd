"""Secrets stay out of every artifact (issue 9, probe 3): a whole run on the vphone's Login
app — real openai client → model double over HTTP, adb driver → vphone — with

- secrets in the task (an inline ``{{secret:memo=…}}`` and a worded "PIN …"),
- a password the model types literally into the password field in the same bundle that
  launches Login (nobody declared it: the field, found on the new screen, makes it secret),
- the right password given as the ``ask_user`` answer to "What is the password …?",

and not one of them in any byte of any file of the run folder (``report.html`` made with
``omg-agent report`` included), in the DEBUG log records, or in any request the model got.
"""

from __future__ import annotations

import json
import logging
import re
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from omg_agent.brain.agent import open_agent
from omg_agent.cli import app
from omg_agent.config import Settings
from omg_agent.drivers.adb import AdbDriver
from omg_agent.sim.model_double import ModelDouble, contract_name

LOGIN = "com.omg.login"
MEMO = "K7-tulip-93"
PIN = "5150-7781"
GUESS = "Wr0ng-guess-77"
TASK = f"Sign in to Login as demo. Keep {{{{secret:memo={MEMO}}}}} and PIN {PIN} private."
QUESTION = "What is the password for demo?"
_ANSWERED = re.compile(r"answered: (\{\{secret:\w+\}\})")


def _text(request: dict[str, Any]) -> str:
    parts = []
    for message in request["messages"]:
        content = message["content"]
        parts += [content] if isinstance(content, str) else [
            p.get("text", "") for p in content if p.get("type") == "text"]
    return "\n".join(parts)


def _anchor(key: str) -> dict[str, str]:
    return {"kind": "anchor", "resource_id": f"{LOGIN}:id/{key}"}


def _bundle(*actions: dict[str, Any], **flags: Any) -> str:
    return json.dumps({"thought": "looking", "last_action_result": "success",
                       "execute_now": {"intent": "sign in", "actions": list(actions)}
                       if actions else None, **flags})


def _plan(description: str) -> dict[str, Any]:
    return {"goal": "sign in", "steps": [{"description": description,
                                          "success_criteria": "signed in"}]}


WELCOME = [{"kind": "element", "text": "Welcome, demo", "match": "contains"}]


class LoginModel:
    """The operator and the planner for the run described in the module docstring."""

    def reply(self, request: dict[str, Any]) -> str:
        text = _text(request)
        match contract_name(request):
            case "TaskPlan":
                return json.dumps(_plan("Sign in to Login as demo"))
            case "Replan":
                if "The user answered" in text:
                    return json.dumps({"status": "replanned",
                                       "plan": _plan("Sign in with the user's password")})
                return json.dumps({"status": "done", "response": "signed in as demo",
                                   "evidence": WELCOME})
        answered = _ANSWERED.search(text)
        if "Welcome, demo" in text:
            return _bundle(step_complete=True, goal_complete=True,
                           answer="Signed in as demo")
        if answered:
            return _bundle({"type": "type", "target": _anchor("password"),
                            "text": answered.group(1)},
                           {"type": "tap", "target": _anchor("sign_in")})
        if "Wrong username or password" in text:
            return _bundle({"type": "ask_user", "question": QUESTION, "secret": True})
        # one bundle: open Login, then type into its fields found on the NEW screen
        return _bundle({"type": "launch", "app": LOGIN},
                       {"type": "type", "target": _anchor("username"), "text": "demo"},
                       {"type": "type", "target": _anchor("password"), "text": GUESS},
                       {"type": "tap", "target": _anchor("sign_in")})


def test_no_secret_reaches_any_file_log_line_or_model_request(
        vphone, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    password = vphone.phone.apps[LOGIN].valid_password
    secrets = [MEMO, PIN, GUESS, password]
    asked: list[str] = []

    def answer(question: str) -> str:
        asked.append(question)
        return password

    run_dir = tmp_path / "run"
    with ModelDouble(LoginModel()) as double, ExitStack() as stack:
        settings = Settings(base_url=double.base_url, model="double", max_steps=30,
                            retry_backoff_s=0.001, timeout_s=20, runs_dir=tmp_path,
                            confirm_done="never", allow="secret_entry",  # the gate's ok
                            planning="adaptive")
        driver = AdbDriver(vphone.serial)
        stack.callback(driver.close)
        result = open_agent(stack, driver, settings, TASK, run_dir=run_dir,
                            ask_user=answer).run(TASK)
    state = vphone.phone.apps[LOGIN].state()
    assert state["logged_in"] and state["failures"] == 1, state  # the guess, then the answer
    assert result.status == "done" and asked == [QUESTION]

    report = CliRunner().invoke(app, ["report", str(run_dir)])
    assert report.exit_code == 0, report.output
    files = {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()}
    assert {p.name for p in files} >= {"trace.jsonl", "result.json", "answer.txt",
                                       "report.html"}
    requests = [json.dumps(r.body, ensure_ascii=False) for r in double.requests]
    logged = caplog.text + "\n".join(r.getMessage() for r in caplog.records)
    for secret in secrets:
        for path, data in files.items():
            assert secret.encode() not in data, (secret, path)
        assert not any(secret in r for r in requests), secret
        assert secret not in logged, secret
        assert secret not in json.dumps(result.as_dict(), ensure_ascii=False)
    # the model worked with placeholders: it saw them, and the trace shows them
    assert "{{secret:memo}}" in requests[0] and "{{secret:pin}}" in requests[0]
    trace = (run_dir / "trace.jsonl").read_text(encoding="utf-8")
    assert "{{secret:password}}" in trace and "{{secret:password2}}" in trace
    assert any("typed" in r.getMessage() or "type " in r.getMessage()
               for r in caplog.records)  # the driver's typing lines were logged, masked


class TypesThePlaceholder:
    """Opens Login and signs in typing ``{{secret:pw}}``, as the task says to."""

    def reply(self, request: dict[str, Any]) -> str:
        text = _text(request)
        match contract_name(request):
            case "TaskPlan":
                return json.dumps(_plan("Sign in to Login as demo"))
            case "Replan":
                return json.dumps({"status": "done", "evidence": WELCOME,
                                   "response": "Confirmed: signed in with {{secret:pw}}"})
        if "Welcome, demo" in text:
            return _bundle(step_complete=True, goal_complete=True,
                           answer="Signed in as demo with {{secret:pw}}")
        return _bundle({"type": "launch", "app": LOGIN},
                       {"type": "type", "target": _anchor("username"), "text": "demo"},
                       {"type": "type", "target": _anchor("password"),
                        "text": "{{secret:pw}}"},
                       {"type": "tap", "target": _anchor("sign_in")})


BLANK = {"OMG_MODEL": "", "OMG_BASE_URL": "", "OMG_API_KEY": "", "OPENAI_API_KEY": "",
         "OPENAI_BASE_URL": "", "OMG_CONFIG": "", "OMG_PLANNER_MODEL": "",
         "OMG_OPERATOR_MODEL": ""}


def test_run_secret_option_types_the_value_and_shows_only_the_placeholder(
        vphone, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.chdir(tmp_path)
    caplog.set_level(logging.DEBUG)
    password = vphone.phone.apps[LOGIN].valid_password
    with ModelDouble(TypesThePlaceholder()) as double:
        env = {**BLANK, "OMG_MODEL": "double", "OMG_BASE_URL": double.base_url}
        result = CliRunner().invoke(app, [
            "-v", "run", "Sign in to Login as demo with password {{secret:pw}}", "--device",
            vphone.serial, "--driver", "adb", "--json", "--runs-dir", str(tmp_path / "runs"),
            "--secret", f"pw={password}"], env=env)
    assert result.exit_code == 0, result.output
    assert vphone.phone.apps[LOGIN].state()["logged_in"]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["answer"] == "Confirmed: signed in with {{secret:pw}}"  # the planner's words
    run_dir = Path(out["run_dir"])
    CliRunner().invoke(app, ["report", str(run_dir)])
    leaks = [p for p in run_dir.rglob("*") if p.is_file() and password.encode() in
             p.read_bytes()]
    assert leaks == [] and (run_dir / "report.html").is_file()
    assert password not in result.output and password not in caplog.text
    assert not any(password in json.dumps(r.body) for r in double.requests)


def test_a_malformed_secret_option_is_refused_without_echoing_it(tmp_path: Path) -> None:
    env = {**BLANK, "OMG_MODEL": "m", "OMG_BASE_URL": "http://127.0.0.1:9/v1"}
    result = CliRunner().invoke(app, ["run", "x", "--secret", "hunter2-pw"], env=env)
    assert result.exit_code == 1
    assert "NAME=VALUE" in result.output and "hunter2-pw" not in result.output
