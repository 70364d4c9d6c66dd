"""``--json`` (and the human forms) of commands whose output is data, through the real CLI:
``vphone start`` / ``vphone state --summary`` on a daemon vphone, and ``report --json``."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from omg_agent.trace.recorder import TraceRecorder


def omg(*args: str, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "omg_agent.cli", *args], capture_output=True,
                          text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_vphone_start_json_and_state_summary(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path), "COLUMNS": "200"}
    port = free_port()
    started = omg("vphone", "start", "--port", str(port), "--seed", "4", "--connect", "--json",
                  env=env)
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        record = json.loads(started.stdout)
        assert record["port"] == port and record["seed"] == 4
        assert record["serial"] == f"127.0.0.1:{port}" and record["pid"] > 0
        state = json.loads(omg("vphone", "state", "--port", str(port), "--json", env=env).stdout)
        summary = omg("vphone", "state", "--port", str(port), "--summary", env=env).stdout
        lines = summary.splitlines()
        assert f"foreground: {state['foreground']}" in lines
        notes = next(line for line in lines if line.startswith("com.omg.notes: "))
        assert f"notes={len(state['apps']['com.omg.notes']['notes'])} items" in notes
        assert len(lines) == len(state) - 1 + len(state["apps"])
    finally:
        stopped = omg("vphone", "stop", "--port", str(port), env=env)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr


def test_report_json_names_the_page_and_the_run(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with TraceRecorder(run, task="save the price in Notes") as rec:
        rec.record_step(1, observation=None, model_reply="r1", actions=[{"type": "home"}],
                        results=[{"index": 0, "ok": True}], timings={"model": 1.0})
        rec.finish("done", "¥5.00", {})
    out = tmp_path / "page.html"
    result = omg("report", str(run), "--out", str(out), "--json", env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["report"] == str(out) and out.is_file()
    assert data["task"] == "save the price in Notes" and data["status"] == "done"
    assert data["steps"] == data["turns"] == 1 and data["run_dir"] == str(run)
