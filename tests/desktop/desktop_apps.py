"""The Tk test app as tests start and read it: :class:`AppState` is the app's own account
of itself (the JSON file it rewrites on every change)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

READY_DEADLINE_S = 20.0


@dataclass
class AppState:
    path: Path
    proc: subprocess.Popen[bytes]

    def read(self) -> dict[str, Any]:
        """The app's state; ``{}`` before its window first showed."""
        if not self.path.exists():
            return {}
        return json.loads(self.path.read_text(encoding="utf-8"))

    def wait_for(self, check: Callable[[dict[str, Any]], bool],
                 deadline_s: float = 5.0) -> dict[str, Any]:
        """The state once ``check`` holds (the app writes it within ~30 ms of a change);
        the last state read when the deadline passes, for the assertion to show."""
        end = time.monotonic() + deadline_s
        state = self.read()
        while not check(state) and time.monotonic() < end:
            time.sleep(0.02)
            state = self.read()
        return state


def start_app(display: str, state_path: Path) -> AppState:
    env = {**os.environ, "DISPLAY": display}
    proc = subprocess.Popen([sys.executable, "-m", "omg_agent.drivers.desktop.testapp",
                             "--state", str(state_path)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    end = time.monotonic() + READY_DEADLINE_S
    while not state_path.exists():
        if proc.poll() is not None or time.monotonic() > end:
            proc.kill()
            err = proc.stderr.read().decode() if proc.stderr else ""
            pytest.fail(f"the Tk test app did not start: {err[-400:]}")
        time.sleep(0.02)
    return AppState(state_path, proc)
