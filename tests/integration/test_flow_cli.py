"""``omg-agent flow …`` and the replay cache through ``omg-agent run``, via typer's runner on
vphones over the real adb server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from omg_agent.cli import app

BLANK = {"OMG_MODEL": "", "OMG_BASE_URL": "", "OMG_API_KEY": "", "OPENAI_API_KEY": "",
         "OPENAI_BASE_URL": "", "OMG_CONFIG": "", "OMG_PLANNER_MODEL": "",
         "OMG_OPERATOR_MODEL": ""}
SHIPPED = Path(__file__).resolve().parents[2] / "omg_agent" / "assets" / "flows"


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_an_unsupported_maestro_command_is_named_before_any_device_is_touched(
        in_tmp: Path) -> None:
    (in_tmp / "f.yaml").write_text("appId: com.omg.notes\n---\n- launchApp\n"
                                   "- evalScript: ${1 + 1}\n")
    result = CliRunner().invoke(app, ["flow", "run", "f.yaml", "--device", "nope"], env=BLANK)
    assert result.exit_code == 1
    assert "unsupported command 'evalScript'" in result.output and "step 2" in result.output


def test_flow_run_replays_a_maestro_file_with_no_model(vphone, in_tmp: Path) -> None:
    result = CliRunner().invoke(app, ["flow", "run", str(SHIPPED / "maestro_new_note.yaml"),
                                      "--device", vphone.serial, "--json", "--runs-dir",
                                      str(in_tmp / "runs")], env=BLANK)
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["status"] == "done"
    assert vphone.phone.apps["com.omg.notes"].notes == [{"title": "Groceries",
                                                        "body": "milk, eggs, bread"}]
    assert (Path(out["run_dir"]) / "report.html").is_file()


def test_a_flow_needing_a_var_says_which(in_tmp: Path) -> None:
    (in_tmp / "f.yaml").write_text("- inputText: $city\n")
    result = CliRunner().invoke(app, ["flow", "run", "f.yaml"], env=BLANK)
    assert result.exit_code == 1 and "--var city=" in result.output


def test_run_twice_replays_from_the_cache_and_no_cache_bypasses_it(in_tmp: Path) -> None:
    goal = "Like the first 3 posts in Feed"
    args = ["run", goal, "--model", "sim", "--json", "--runs-dir", str(in_tmp / "runs")]
    first = CliRunner().invoke(app, args, env=BLANK)
    assert first.exit_code == 0, first.output
    assert json.loads(first.output.splitlines()[-1])["model_calls"] >= 2
    second = CliRunner().invoke(app, args, env=BLANK)
    assert second.exit_code == 0, second.output
    again = json.loads(second.output.splitlines()[-1])
    assert again["status"] == "done" and again["model_calls"] <= 1
    listed = CliRunner().invoke(app, ["flow", "list", "--runs-dir", str(in_tmp / "runs")],
                                env=BLANK)
    assert "like first 3 posts in feed" in listed.output and "hits 1" in listed.output
    third = CliRunner().invoke(app, [*args, "--no-cache"], env=BLANK)
    assert json.loads(third.output.splitlines()[-1])["model_calls"] >= 2
    text = CliRunner().invoke(app, ["flow", "from-trace", again["run_dir"]], env=BLANK)
    assert text.exit_code == 0 and "Like post 3" in text.output


def test_a_secret_is_typed_but_never_written_and_the_gate_wants_an_allow(vphone,
                                                                          in_tmp: Path) -> None:
    login = vphone.phone.apps["com.omg.login"]
    (in_tmp / "login.yaml").write_text(
        "appId: com.omg.login\n---\n- launchApp\n"
        "- inputText:\n    id: username\n    text: demo\n    clear: true\n"
        "- inputText:\n    id: password\n    text: '{{secret:pw}}'\n    clear: true\n"
        "- tapOn:\n    id: sign_in\n- assertVisible:\n    id: welcome\n")
    args = ["flow", "run", "login.yaml", "--device", vphone.serial, "--json", "--runs-dir",
            str(in_tmp / "runs"), "--secret", f"pw={login.valid_password}"]
    held = CliRunner().invoke(app, args, env=BLANK)
    assert held.exit_code == 5, held.output  # typing a secret waits for a yes
    assert not login.logged_in
    done = CliRunner().invoke(app, [*args, "--allow", "secret_entry"], env=BLANK)
    assert done.exit_code == 0, done.output
    assert login.logged_in and login.user == "demo"
    written = [p for p in (in_tmp / "runs").rglob("*") if p.is_file()]
    assert written and not [p for p in written
                            if login.valid_password.encode() in p.read_bytes()]


# -- bounded input and the gate on replays (issue 24) ------------------------------------------
def _laughs(levels: int) -> str:
    lines = ["- &a0 back"]
    for i in range(1, levels + 1):
        lines.append(f"- &a{i} {{runFlow: {{commands: [" + ", ".join([f"*a{i - 1}"] * 10)
                     + "]}}")
    return "\n".join(lines) + "\n"


BAD_FILES = {  # name -> what goes in the file (None: the path is given as is)
    "alias-bomb": _laughs(9),  # ~700 bytes, 10⁹ steps once expanded
    "million-steps": _laughs(6),
    "million-lines": "- back\n" * 1_000_000,  # 7 MB
    "deep-list": "[" * 5000 + "]" * 5000,
    "dev-zero": None,
}


def _bad_file(name: str, folder: Path) -> str:
    text = BAD_FILES[name]
    if text is None:
        return "/dev/zero"
    path = folder / f"{name}.yaml"
    path.write_text(text)
    return str(path)


def _omg(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "omg_agent.cli", *args], capture_output=True,
                          text=True, timeout=60, cwd=cwd, stdin=subprocess.DEVNULL,
                          env={**os.environ, **BLANK, "COLUMNS": "200", **env})


def _one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode != 0, proc.stdout
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), proc.stderr
    assert "Traceback" not in proc.stderr
    return lines[0]


@pytest.mark.parametrize("name", list(BAD_FILES))
def test_flow_run_on_a_hostile_file_is_one_error_line(in_tmp: Path, name: str) -> None:
    line = _one_error_line(_omg("flow", "run", _bad_file(name, in_tmp), "--device", "nope",
                                cwd=in_tmp))
    assert "limit" in line or "nesting depth" in line or "not a regular file" in line


@pytest.mark.parametrize("name", list(BAD_FILES))
def test_run_with_a_hostile_plan_file_is_one_error_line(in_tmp: Path, name: str) -> None:
    # a model is named (never called): the plan is read before any device or model
    line = _one_error_line(_omg("run", "Open Settings", "--plan", _bad_file(name, in_tmp),
                                "--device", "nope", cwd=in_tmp, OMG_MODEL="any",
                                OMG_BASE_URL="http://127.0.0.1:9/v1"))
    assert line.startswith("error: plan file")


PAY_FLOW = ("appId: com.omg.shop\n---\n- launchApp\n- tapOn:\n    id: cart\n"
            "- tapOn:\n    id: checkout\n- tapOn:\n    id: pay\n"
            "- assertVisible: Payment successful 支付成功\n")


def test_flow_run_of_a_paying_step_stops_for_a_yes_and_pays_once_with_an_allow(
        vphone, in_tmp: Path) -> None:
    shop = vphone.phone.apps["com.omg.shop"]
    shop.promo_mode = "never"
    shop.cart = {"p05": 1}  # MacBook Air 13
    (in_tmp / "pay.yaml").write_text(PAY_FLOW)
    args = ["flow", "run", "pay.yaml", "--device", vphone.serial, "--json", "--runs-dir",
            str(in_tmp / "runs")]
    held = CliRunner().invoke(app, args, env=BLANK)
    assert held.exit_code == 5, held.output
    assert json.loads(held.output)["status"] == "needs_confirmation"
    assert shop.orders == []  # nothing paid without a yes
    vphone.phone.force_stop("com.omg.shop")  # the next launch starts at its first screen
    done = CliRunner().invoke(app, [*args, "--allow", "payment"], env=BLANK)
    assert done.exit_code == 0, done.output
    assert len(shop.orders) == 1
