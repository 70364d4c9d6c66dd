"""``omg-agent vphone start/state/fault/stop`` as a user runs them (``omg-agent demo``: see
test_demo_cli.py)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def omg(*args: str, env: dict, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "omg_agent.cli", *args], capture_output=True,
                          text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)


def test_vphone_lifecycle_through_the_cli(tmp_path):
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path), "COLUMNS": "200"}
    port = free_port()
    started = omg("vphone", "start", "--port", str(port), "--seed", "7", "--connect", env=env)
    assert started.returncode == 0, started.stdout + started.stderr
    serial = f"127.0.0.1:{port}"
    try:
        assert serial in started.stdout
        size = subprocess.run(["adb", "-s", serial, "shell", "wm", "size"], capture_output=True,
                              text=True, timeout=30, check=True).stdout
        assert "Physical size: 1080x2400" in size
        again = omg("vphone", "start", "--port", str(port), env=env)
        assert again.returncode == 1 and "already runs" in again.stderr

        state = json.loads(omg("vphone", "state", "--port", str(port), env=env).stdout)
        assert state["foreground"] == "com.android.launcher3"

        fault = omg("vphone", "fault", "anr", "--port", str(port), env=env)
        assert fault.returncode == 0 and "ANR" in fault.stdout
        state = json.loads(omg("vphone", "state", env=env).stdout)
        assert state["overlay"].endswith("isn't responding")
        dumpsys = subprocess.run(["adb", "-s", serial, "shell", "dumpsys", "window"],
                                 capture_output=True, text=True, timeout=30).stdout
        assert "mCurrentFocus=Window{" in dumpsys

        bad = omg("vphone", "fault", "meteor", env=env)
        assert bad.returncode == 1 and "unknown fault 'meteor'" in bad.stderr
    finally:
        stopped = omg("vphone", "stop", "--port", str(port), env=env)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    gone = omg("vphone", "state", "--port", str(port), env=env)
    assert gone.returncode == 1 and "no vphone is running" in gone.stderr


def test_unknown_profile_is_named_in_the_error(tmp_path):
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)}
    result = omg("vphone", "start", "--profile", "brick", env=env)
    assert result.returncode == 1 and "unknown profile 'brick'" in result.stderr

