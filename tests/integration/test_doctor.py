"""``omg-agent doctor`` through the real CLI against real peers: the adb server (the shared one,
and a private one it must start itself), a vphone connected to it, and the model double
speaking HTTP to the real openai client."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from adbtools import adb, poll

from omg_agent.sim.model_double import ModelDouble, RecordedRequest
from omg_agent.vphone.phone import ADB_IME
from omg_agent.vphone.ui.fonts import missing_fonts

BLANK = {"OMG_MODEL": "", "OMG_BASE_URL": "", "OMG_API_KEY": "", "OPENAI_API_KEY": "",
         "OPENAI_BASE_URL": "", "OMG_CONFIG": "", "OMG_PLANNER_MODEL": "",
         "OMG_OPERATOR_MODEL": ""}


def doctor(*args: str, cwd: Path, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **BLANK, "COLUMNS": "200", **(env or {})}
    return subprocess.run([sys.executable, "-m", "omg_agent.cli", "doctor", *args],
                          capture_output=True, text=True, timeout=120, env=full, cwd=cwd,
                          stdin=subprocess.DEVNULL)


def checks(result: subprocess.CompletedProcess[str]) -> dict[str, dict[str, Any]]:
    data = json.loads(result.stdout)
    assert data["ok"] == (result.returncode == 0), result.stdout
    return {c["name"]: c for c in data["checks"]}


class HonestModel:
    """A capable model: follows the ping schema, and names the picture's colour."""

    def reply(self, request: dict[str, Any]) -> str:
        if (request.get("response_format") or {}).get("type") == "json_schema":
            return json.dumps({"ok": True})
        return "Red." if RecordedRequest("POST", "", request).images else "pong"


def endpoint(double: ModelDouble, model: str = "tiny-vl") -> dict[str, str]:
    return {"OMG_MODEL": model, "OMG_BASE_URL": double.base_url}


# -- the model endpoint --------------------------------------------------------------------
def test_a_good_endpoint_is_all_green(tmp_path: Path) -> None:
    with ModelDouble(HonestModel(), models=("other", "tiny-vl")) as double:
        result = doctor("--only", "model", "--json", cwd=tmp_path, env=endpoint(double))
        sent = double.requests
    assert result.returncode == 0, result.stdout + result.stderr
    lines = checks(result)
    assert [c["status"] for c in lines.values()] == ["ok"] * 5
    assert set(lines) == {"model endpoint", "model tiny-vl", "model tiny-vl json_schema",
                          "model tiny-vl vision", "dialect"}
    assert {r.model for r in sent} == {"tiny-vl"}
    assert [r.response_format["type"] for r in sent if r.response_format] == ["json_schema"]
    assert sum(len(r.images) for r in sent) == 1
    assert sent[-1].images[0].startswith("data:image/jpeg;base64,")


def test_a_model_the_endpoint_does_not_serve_is_red_with_the_fix(tmp_path: Path) -> None:
    with ModelDouble(HonestModel(), models=("qwen2.5-vl-7b", "llava")) as double:
        result = doctor("--only", "model", cwd=tmp_path, env=endpoint(double, "gpt-4o"))
        asked = len(double.requests)
    assert result.returncode == 1
    text = result.stdout
    assert "✘ model gpt-4o: 'gpt-4o' is not served" in text
    assert "qwen2.5-vl-7b, llava" in text
    assert "fix: set OMG_MODEL to a model the endpoint serves, e.g. qwen2.5-vl-7b" in text
    assert asked == 0  # no chat is sent to a model that does not exist


def test_an_endpoint_without_vision_is_red_and_without_json_schema_yellow(
        tmp_path: Path) -> None:
    with ModelDouble(HonestModel(), models=("tiny",), supports_images=False,
                     supports_json_schema=False) as double:
        result = doctor("--only", "model", "--json", cwd=tmp_path, env=endpoint(double, "tiny"))
        statuses = [r.status for r in double.requests]
    assert result.returncode == 1
    lines = checks(result)
    assert lines["model tiny vision"]["status"] == "fail"
    assert "image" in lines["model tiny vision"]["detail"]
    assert "vision-language model" in lines["model tiny vision"]["fix"]
    assert lines["model tiny json_schema"]["status"] == "warn"
    assert lines["model endpoint"]["status"] == lines["model tiny"]["status"] == "ok"
    assert statuses == [400, 400]  # the double itself refused both


def test_a_model_that_ignores_the_image_is_yellow(tmp_path: Path) -> None:
    blind = ModelDouble([json.dumps({"ok": True}), "I cannot see anything"], models=("m",))
    with blind as double:
        result = doctor("--only", "model", "--json", cwd=tmp_path, env=endpoint(double, "m"))
    lines = checks(result)
    assert result.returncode == 0
    assert lines["model m vision"]["status"] == "warn"
    assert "I cannot see anything" in lines["model m vision"]["detail"]


def test_an_unreachable_endpoint_is_red_and_the_model_lines_are_skipped(
        tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"OMG_MODEL": "m", "OMG_BASE_URL": f"http://127.0.0.1:{port}/v1"}
    result = doctor("--only", "model", "--json", cwd=tmp_path, env=env)
    lines = checks(result)
    assert result.returncode == 1
    assert lines["model endpoint"]["status"] == "fail"
    assert "OMG_BASE_URL" in lines["model endpoint"]["fix"]
    assert lines["model m"]["status"] == "warn" and "skipped" in lines["model m"]["detail"]


def test_no_model_configured_is_a_yellow_line_saying_what_to_set(tmp_path: Path) -> None:
    result = doctor("--only", "model,fonts", cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert "! model: no model configured" in result.stdout
    assert "OMG_MODEL=<model name>" in result.stdout
    font_mark = "!" if missing_fonts() else "✔"
    assert f"{font_mark} vphone fonts:" in result.stdout


def test_an_unknown_area_is_named(tmp_path: Path) -> None:
    result = doctor("--only", "adb,gpu", cwd=tmp_path)
    assert result.returncode == 2 and "gpu" in result.stderr


# -- adb and devices -------------------------------------------------------------------------
def test_a_vphone_passes_every_device_check(vphone, tmp_path: Path) -> None:
    result = doctor("--device", vphone.serial, "--only", "adb,devices,fonts", "--json",
                    cwd=tmp_path)
    lines = checks(result)
    assert result.returncode == 0, result.stdout
    assert lines["adb"]["status"] == "ok" and "Android Debug Bridge" in lines["adb"]["detail"]
    assert lines["adb server"]["status"] == "ok"
    assert f"{vphone.serial} (device)" in lines["devices"]["detail"]
    assert lines[f"{vphone.serial} IME"]["status"] == "ok"
    assert ADB_IME in lines[f"{vphone.serial} IME"]["detail"]
    assert lines[f"{vphone.serial} input"]["status"] == "ok"
    assert lines["vphone fonts"]["status"] == ("warn" if missing_fonts() else "ok")


def test_a_disabled_adb_keyboard_is_red_and_its_fix_works(vphone, tmp_path: Path) -> None:
    vphone.device.shell(["ime", "disable", ADB_IME])
    result = doctor("--device", vphone.serial, "--only", "devices", "--json", cwd=tmp_path)
    line = checks(result)[f"{vphone.serial} IME"]
    assert result.returncode == 1
    assert line["status"] == "fail" and "disabled" in line["detail"]
    assert line["fix"] == f"adb -s {vphone.serial} shell ime enable {ADB_IME}"
    adb(*line["fix"].split()[1:], check=True)  # apply the fix as printed
    again = doctor("--device", vphone.serial, "--only", "devices", "--json", cwd=tmp_path)
    assert again.returncode == 0 and checks(again)[f"{vphone.serial} IME"]["status"] == "ok"


def test_a_device_that_is_not_attached_is_red(tmp_path: Path) -> None:
    result = doctor("--device", "127.0.0.1:1", "--only", "devices", cwd=tmp_path)
    assert result.returncode == 1
    assert "✘ devices: 127.0.0.1:1 is not attached" in result.stdout
    assert "fix: " in result.stdout


def _server_pids(port: int) -> list[int]:
    """The adb servers listening on ``port`` (``adb -L tcp:PORT fork-server …``)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"fork-server" in argv and f"tcp:{port}".encode() in argv:
            pids.append(int(proc.name))
    return pids


def test_an_adb_server_that_is_not_running_is_started_and_said_so(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"ANDROID_ADB_SERVER_PORT": str(port)}
    try:
        first = doctor("--only", "adb", "--json", cwd=tmp_path, env=env)
        line = checks(first)["adb server"]
        assert first.returncode == 0 and line["status"] == "ok", first.stdout
        assert "was not running: started it" in line["detail"] and f":{port}" in line["detail"]
        second = checks(doctor("--only", "adb", "--json", cwd=tmp_path, env=env))
        assert second["adb server"]["detail"].startswith("running on")
    finally:  # stop the private server this test started (never the shared one)
        for pid in _server_pids(port):
            os.kill(pid, signal.SIGTERM)
        assert poll(lambda: not _server_pids(port), deadline_s=10)
