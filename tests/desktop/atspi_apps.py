"""Real desktop apps on the accessibility bus, as the AT-SPI tests start them.

:func:`start_session` starts a private D-Bus session bus for the test session (the
accessibility bus is then started by the bus itself, ``org.a11y.Bus`` activation, the
first time the driver asks for its address). :func:`start_app` starts a distribution app
(mousepad, galculator) on the Xvfb display with that bus and waits until its window is on
the accessibility bus — a condition, read from the bus, not a sleep.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest

from omg_agent.drivers.desktop.atspi import AtspiTree

READY_DEADLINE_S = 20.0
T = TypeVar("T")


def wait_for(get: Callable[[], T], deadline_s: float = 5.0, step: float = 0.05) -> T:
    """``get()`` once it is truthy; its last value when the deadline passes."""
    end = time.monotonic() + deadline_s
    value = get()
    while not value and time.monotonic() < end:
        time.sleep(step)
        value = get()
    return value


@dataclass
class Session:
    """A private session bus and the environment apps and the driver run in."""

    proc: subprocess.Popen[bytes]
    env: dict[str, str]


def start_session(display: str, home: Path) -> Session:
    daemon = shutil.which("dbus-daemon")
    launcher = next((p for p in ("/usr/libexec/at-spi-bus-launcher",
                                 "/usr/lib/at-spi2-core/at-spi-bus-launcher")
                     if os.path.exists(p)), None)
    if daemon is None or launcher is None:
        pytest.skip("no D-Bus or AT-SPI: apt-get install dbus-x11 at-spi2-core "
                    "(scripts/setup.sh does)")
    runtime = home / "run"
    runtime.mkdir(mode=0o700, exist_ok=True)
    proc = subprocess.Popen([daemon, "--session", "--nofork", "--print-address=1"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)})
    assert proc.stdout is not None
    address = proc.stdout.readline().decode().strip()
    if not address:
        proc.kill()
        pytest.fail("dbus-daemon printed no address")
    env = {"DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": address,
           "XDG_RUNTIME_DIR": str(runtime), "XDG_CONFIG_HOME": str(home / "config"),
           "XDG_DATA_HOME": str(home / "data"), "XDG_CACHE_HOME": str(home / "cache"),
           "GSETTINGS_BACKEND": "memory", "QT_ACCESSIBILITY": "1", "NO_AT_BRIDGE": "0"}
    return Session(proc, env)


@dataclass
class App:
    name: str
    proc: subprocess.Popen[bytes]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def start_app(argv: list[str], session: Session, tree: AtspiTree, cwd: Path) -> App:
    """``argv`` started on the session's display; returned once its tree shows a window."""
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed: scripts/setup.sh installs it")
    proc = subprocess.Popen(argv, env={**os.environ, **session.env}, cwd=cwd,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    app = App(argv[0], proc)

    def shown() -> bool:
        root = tree.app_for_pid(proc.pid)
        return root is not None and bool(tree.elements(proc.pid, argv[0]))

    if not wait_for(shown, READY_DEADLINE_S, 0.1):
        app.stop()
        pytest.fail(f"{argv[0]} did not show its window on the accessibility bus")
    return app
