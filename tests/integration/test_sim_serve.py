"""``omg-agent sim serve``: the simulated model as an OpenAI-compatible endpoint — a run,
``--model sim`` on its phone, ``doctor --model`` and ``--dry-run`` tried the way a user with a
real model would, through the real CLI and the real openai client; outcomes read from the
phone."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import openai
import pytest
from look_script import BLANK
from typer.testing import CliRunner

from omg_agent.cli import app
from omg_agent.sim.replies import SETTINGS
from omg_agent.sim.serve import serve_sim

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no omg.toml around
    return tmp_path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def on(base_url: str) -> dict[str, str]:
    return {**BLANK, "OMG_BASE_URL": base_url, "OMG_MODEL": "sim"}


def test_a_task_runs_against_sim_serve_through_omg_base_url(in_tmp: Path) -> None:
    with serve_sim() as served:
        assert served.phone.apps[SETTINGS].wifi  # the task has something to do
        result = CliRunner().invoke(app, [
            "run", "Turn off Wi-Fi", "--device", served.serial, "--driver", "adb", "--json",
            "--runs-dir", str(in_tmp / "runs")], env=on(served.base_url))
        wifi = served.phone.apps[SETTINGS].wifi
        served_calls = len(served.double.requests)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout.strip().splitlines()[-1])
    assert data["status"] == "done" and data["simulated"] is False  # a "real" endpoint
    assert wifi is False  # read from the phone, not the agent's word
    assert served_calls >= data["model_calls"] > 0  # the agent's requests went there


def test_model_sim_on_the_vphone_a_sim_serve_drives(in_tmp: Path) -> None:
    with serve_sim() as served:
        result = CliRunner().invoke(app, [
            "run", "Turn on Bluetooth", "--model", "sim", "--device", served.serial,
            "--driver", "adb", "--json", "--runs-dir", str(in_tmp / "runs")], env=BLANK)
        bluetooth = served.phone.apps[SETTINGS].bluetooth
        asked = len(served.double.requests)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout.strip().splitlines()[-1])
    assert data["status"] == "done" and data["simulated"] is True
    assert bluetooth is True and asked > 0  # the phone that sim serve drives, through it
    alone = CliRunner().invoke(app, ["run", "Turn on Bluetooth", "--model", "sim",
                                     "--device", served.serial], env=BLANK)
    assert alone.exit_code == 1  # it has stopped: one line saying what to start
    assert "no `omg-agent sim serve` drives it" in alone.output
    assert len(alone.output.strip().splitlines()) == 1


def test_the_openai_sdk_sees_an_openai_endpoint(in_tmp: Path) -> None:
    with serve_sim() as served, openai.OpenAI(base_url=served.base_url, api_key="none",
                                              max_retries=0) as client:
        models = [m.id for m in client.models.list().data]
        ping = client.chat.completions.create(
            model="sim", messages=[{"role": "user", "content": "Reply with OK."}])
        with pytest.raises(openai.BadRequestError) as unknown:
            client.chat.completions.create(model="sim", messages=[
                {"role": "user", "content": "Task: Order a pizza\n\nelements…"}])
    assert models == ["sim"]
    assert json.loads(ping.choices[0].message.content or "") == {"ok": True}
    assert "knows no task like 'Order a pizza'" in str(unknown.value)
    assert "Turn off Wi-Fi" in str(unknown.value)  # what it does know


def test_doctor_model_checks_sim_serve_with_one_request(in_tmp: Path) -> None:
    with serve_sim() as served:
        result = CliRunner().invoke(app, ["doctor", "--model", "--json"],
                                    env=on(served.base_url))
        sent = served.double.requests
    assert result.exit_code == 0, result.output
    lines = json.loads(result.stdout)["checks"]
    assert [c["status"] for c in lines] == ["ok"] and len(sent) == 1


def test_doctor_model_against_a_closed_port_is_one_line(in_tmp: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    result = CliRunner().invoke(app, ["doctor", "--model"], env=on(url))
    assert result.exit_code == 1
    first, *rest = result.output.strip().splitlines()
    assert first.startswith("✘ model sim: cannot reach " + url), result.output
    assert "Traceback" not in result.output and len(rest) == 1  # the fix, under it


def test_a_dry_run_ends_with_its_own_status(in_tmp: Path) -> None:
    runner = CliRunner()
    args = ["run", "Turn off Wi-Fi", "--model", "sim", "--dry-run", "--max-steps", "3",
            "--runs-dir", str(in_tmp / "runs")]
    text = runner.invoke(app, args, env=BLANK)
    data = runner.invoke(app, [*args, "--json"], env=BLANK)
    assert text.exit_code == 0 and data.exit_code == 0, text.output + data.output
    listed = json.loads(data.stdout.strip().splitlines()[-1])
    assert listed["status"] == "dry_run"
    assert listed["planned"] == ['{"type": "launch", "app": "com.android.settings"}']
    assert "1. {\"type\": \"launch\", \"app\": \"com.android.settings\"}" in text.stdout
    for word in ("loop", "--resume", "failed"):
        assert word not in text.output, text.output


def test_sim_serve_command_serves_until_sigterm(in_tmp: Path) -> None:
    port = free_port()
    env = {**os.environ, **BLANK, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "omg_agent.cli", "sim", "serve", "--port",
                             str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env, cwd=in_tmp)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # printed once both the phone and the port are up
        assert f"http://127.0.0.1:{port}/v1" in first and "driving vphone" in first, first
        hint = proc.stdout.readline()
        assert f"OMG_BASE_URL=http://127.0.0.1:{port}/v1 OMG_MODEL=sim" in hint
        checked = CliRunner().invoke(app, ["doctor", "--model"],
                                     env=on(f"http://127.0.0.1:{port}/v1"))
        assert checked.exit_code == 0, checked.output
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
        proc.stdout.close()  # type: ignore[union-attr]
    assert code == 0


def test_a_taken_port_is_one_line(in_tmp: Path) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        result = CliRunner().invoke(app, ["sim", "serve", "--port",
                                          str(held.getsockname()[1])], env=BLANK)
    assert result.exit_code == 1
    assert "choose another --port" in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
