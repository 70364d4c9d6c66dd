"""``omg-agent mirror --open`` opens its link in the browser the BROWSER variable names (a
script here that writes what it was given), and ``run --mirror-port`` serves the run's
mirror on that port (issue 37)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from adbtools import poll

OMG = [sys.executable, "-m", "omg_agent.cli"]


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMG_", "OPENAI_"))}
    here = str(Path(__file__).resolve().parents[2])  # this tree's omg_agent, from any cwd
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    return {**env, "OMG_RUNS_DIR": str(tmp_path / "runs"), **extra}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_mirror_open_hands_the_printed_link_to_the_browser(vphone, tmp_path: Path) -> None:
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\nprintf "%s" "$1" > {opened}\n', encoding="utf-8")
    browser.chmod(0o755)
    proc = subprocess.Popen([*OMG, "mirror", "--device", vphone.serial, "--driver", "adb",
                             "--open"], env=_env(tmp_path, BROWSER=str(browser)),
                            cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert "open http://127.0.0.1:" in line, line + (proc.stderr.read() if proc.stderr
                                                         else "")
        assert poll(lambda: opened.exists() and opened.read_text().startswith("http"), 30)
        assert opened.read_text() == line.split("open ", 1)[1].strip()
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_run_mirror_port_serves_the_mirror_there(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.run([*OMG, "run", "Turn off Wi-Fi", "--model", "sim", "--mirror-port",
                           str(port), "--json"], env=_env(tmp_path), cwd=tmp_path,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=240)
    assert proc.returncode == 0, proc.stderr
    assert f"mirror: open http://127.0.0.1:{port}/?token=" in proc.stderr
