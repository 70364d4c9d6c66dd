"""Real desktop apps on the accessibility bus, as the AT-SPI tests start them (through
:mod:`omg_agent.drivers.desktop.atspi_session`, which ``bench desktop`` uses too).

:func:`start_session` starts a private D-Bus session bus for the test session (the
accessibility bus is then started by the bus itself, ``org.a11y.Bus`` activation, the
first time the driver asks for its address). :func:`start_app` starts a distribution app
(mousepad, galculator) on the Xvfb display with that bus and waits until its window is on
the accessibility bus — a condition, read from the bus, not a sleep.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from omg_agent.drivers.desktop import atspi_session
from omg_agent.drivers.desktop.atspi import AtspiTree
from omg_agent.drivers.desktop.atspi_session import wait_for
from omg_agent.errors import DeviceError

__all__ = ["App", "Session", "start_app", "start_session", "wait_for"]


@dataclass
class Session:
    """A private session bus and the environment apps and the driver run in."""

    proc: subprocess.Popen[bytes]
    env: dict[str, str]


def start_session(display: str, home: Path) -> Session:
    lacking = atspi_session.missing()
    if lacking:
        pytest.skip(f"no accessible session here: needs {lacking}; scripts/setup.sh "
                    "installs it")
    return Session(*atspi_session.start_session_bus(display, home))


@dataclass
class App:
    name: str
    proc: subprocess.Popen[bytes]

    def stop(self) -> None:
        atspi_session.stop(self.proc)


def start_app(argv: list[str], session: Session, tree: AtspiTree, cwd: Path) -> App:
    """``argv`` started on the session's display; returned once its tree shows a window."""
    try:
        proc = atspi_session.start_app(argv, session.env,
                                       lambda pid: tree.elements(pid, argv[0]), cwd)
    except DeviceError as e:
        if "not installed" in str(e):
            pytest.skip(str(e))
        raise
    return App(argv[0], proc)
