"""Shared plumbing for tests that drive a vphone through the real adb server.

``connect_adb(port)`` / ``disconnect_adb(serial)`` attach and detach an adbd listening on
127.0.0.1:<port> to the shared adb server (default port 5037, never killed here).
"""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from omg_agent.errors import AdbConnectError
from omg_agent.vphone import adbhost

ADB = shutil.which("adb")
CONNECT_DEADLINE = 20.0


def adb(*args: str, timeout: float = 30.0,
        check: bool = False) -> subprocess.CompletedProcess[str]:
    """Run the adb client with text output; stdin is closed so it never waits on it."""
    if ADB is None:
        pytest.skip("adb is not installed")
    return subprocess.run([ADB, *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, check=check)


def wait_for_state(serial: str, state: str = "device",
                   deadline_s: float = CONNECT_DEADLINE) -> bool:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if adb("-s", serial, "get-state", timeout=10).stdout.strip() == state:
            return True
        time.sleep(0.05)
    return False


def connect_adb(port: int, deadline_s: float = CONNECT_DEADLINE) -> str:
    """``adb connect 127.0.0.1:<port>`` and wait until the adb server calls it a device."""
    if ADB is None:
        pytest.skip("adb is not installed")
    try:
        return adbhost.connect("127.0.0.1", port, timeout=deadline_s)
    except AdbConnectError as exc:
        disconnect_adb(f"127.0.0.1:{port}")
        raise AssertionError(f"adb never saw 127.0.0.1:{port} as a device: {exc}") from exc


def disconnect_adb(serial: str) -> None:
    adb("disconnect", serial, timeout=15)


def poll(condition, deadline_s: float = 10.0, interval: float = 0.02) -> bool:
    """True as soon as ``condition()`` is, False if the deadline passes first."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return bool(condition())
