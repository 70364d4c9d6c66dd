"""Host-side glue between a vphone and the user's adb server.

Starting the adb server, ``adb connect``-ing a vphone and waiting until it is a ``device``
are needed by the CLI (``vphone start --connect``), the pytest fixture and the benchmarks;
they live here once. Uses the real ``adb`` binary, as a user would. ``server_port`` picks
an adb server other than the default one (``adb -P PORT``), so a test may kill its own
server without touching anyone else's.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import time
from pathlib import Path

from omg_agent.errors import AdbConnectError, AdbNotFound, OmgError


def bundled_adb() -> str | None:
    """The adb binary inside adbutils' wheel (it ships one for Linux x86-64, macOS and
    Windows), or None where that wheel has none."""
    name = "adb.exe" if os.name == "nt" else "adb"
    spec = importlib.util.find_spec("adbutils")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "binaries" / name
    return str(path) if path.is_file() and os.access(path, os.X_OK) else None


def is_bundled(path: str) -> bool:
    return path == bundled_adb()


def adb_path() -> str:
    """``adb`` on PATH (the user's own comes first), else the one bundled with adbutils."""
    path = shutil.which("adb") or bundled_adb()
    if path is None:
        raise AdbNotFound("adb is not installed: `omg-agent doctor` says how to get it on "
                          "this OS")
    return path


def _adb(*args: str, timeout: float = 20,
         server_port: int | None = None) -> subprocess.CompletedProcess[str]:
    server = ["-P", str(server_port)] if server_port else []
    return subprocess.run([adb_path(), *server, *args], capture_output=True, text=True,
                          timeout=timeout, check=False, stdin=subprocess.DEVNULL)


def ensure_server(server_port: int | None = None, *, attempts: int = 4) -> None:
    """``adb start-server``, again when it loses a race.

    Two clients starting the server at once (two test workers, two commands in two shells)
    each spawn one; the loser cannot bind the port and its client fails with "cannot connect
    to daemon" while the winner's server is up. Asking again finds that server.
    """
    result = _adb("start-server", timeout=30, server_port=server_port)
    for attempt in range(1, attempts):
        if result.returncode == 0:
            return
        time.sleep(0.2 * attempt)
        result = _adb("start-server", timeout=30, server_port=server_port)
    if result.returncode != 0:
        raise OmgError(f"adb start-server failed: {result.stderr.strip()}")


def kill_server(server_port: int | None = None) -> None:
    _adb("kill-server", timeout=20, server_port=server_port)


def get_state(serial: str, server_port: int | None = None) -> str:
    result = _adb("-s", serial, "get-state", timeout=10, server_port=server_port)
    return result.stdout.strip() if result.returncode == 0 else "offline"


def connect(host: str, port: int, *, timeout: float = 20,
            server_port: int | None = None) -> str:
    """``adb connect`` host:port and wait until it is listed as ``device``; returns serial."""
    ensure_server(server_port)
    serial = f"{host}:{port}"
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        result = _adb("connect", serial, timeout=10, server_port=server_port)
        last = (result.stdout + result.stderr).strip()
        if get_state(serial, server_port) == "device":
            return serial
        time.sleep(0.1)
    raise AdbConnectError(serial, last or "timed out waiting for state 'device'")


def disconnect(serial: str, server_port: int | None = None) -> None:
    _adb("disconnect", serial, timeout=10, server_port=server_port)


def devices_listing() -> str:
    return _adb("devices", "-l").stdout
