"""A background vphone's log: begun anew on each start, removed on a clean stop; and
``vphone state --summary`` shows values as JSON writes them, never Python's ``None``."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from adbtools import poll


def omg(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "omg_agent.cli", *args], capture_output=True,
                          text=True, timeout=60, env=env, stdin=subprocess.DEVNULL)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_log_starts_anew_and_goes_with_a_clean_stop_and_the_summary_has_no_none(
        tmp_path: Path) -> None:
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path), "COLUMNS": "200"}
    port = free_port()
    log = tmp_path / "omg-agent" / "vphones" / f"{port}.log"
    log.parent.mkdir(parents=True)
    log.write_text("OLD RUN THAT CRASHED\n")
    started = omg("vphone", "start", "--port", str(port), "--json", env=env)
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        assert log.is_file() and "OLD RUN THAT CRASHED" not in log.read_text()
        state = json.loads(omg("vphone", "state", "--port", str(port), env=env).stdout)
        assert state["overlay"] is None  # the case the summary must not print as None
        summary = omg("vphone", "state", "--port", str(port), "--summary", env=env).stdout
        assert "overlay: null" in summary.splitlines()
        assert "None" not in summary and "'" not in summary and "False" not in summary
        assert 'screen="main"' in summary and "wifi=true" in summary
    finally:
        stopped = omg("vphone", "stop", "--port", str(port), env=env)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert poll(lambda: not log.exists(), deadline_s=20)
