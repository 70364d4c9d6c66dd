"""A private desktop session for tests and benchmarks: Xvfb, a D-Bus session bus, apps.

What a Linux desktop session gives an app — an X display, a session bus, and through it the
accessibility bus (``org.a11y.Bus`` is activated by the session bus the first time someone
asks for its address) — started here from nothing, so the AT-SPI tests and ``omg-agent
bench desktop`` run on a bare CI machine. A user's own session needs none of this: the
driver finds its accessibility bus from ``$DBUS_SESSION_BUS_ADDRESS`` or the display.

:func:`start_xvfb` and :func:`start_session_bus` start the processes; :func:`start_app`
starts an app on them and returns once its window is on the accessibility bus (a condition
read from the bus) — or, for an app with no tree (``tree=False``), once its window is
mapped. Everything started is a :class:`subprocess.Popen` the caller stops.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from omg_agent.errors import DeviceError

READY_DEADLINE_S = 20.0
T = TypeVar("T")
BUS_LAUNCHERS = ("/usr/libexec/at-spi-bus-launcher", "/usr/lib/at-spi2-core/at-spi-bus-launcher")


def wait_for(get: Callable[[], T], deadline_s: float = 5.0, step: float = 0.05) -> T:
    """``get()`` once it is truthy; its last value when the deadline passes."""
    end = time.monotonic() + deadline_s
    value = get()
    while not value and time.monotonic() < end:
        time.sleep(step)
        value = get()
    return value


def missing() -> str | None:
    """What this machine lacks for a private accessible session, or None."""
    if shutil.which("Xvfb") is None:
        return "Xvfb (apt-get install xvfb)"
    if shutil.which("dbus-daemon") is None:
        return "dbus-daemon (apt-get install dbus-x11)"
    if not any(os.path.exists(p) for p in BUS_LAUNCHERS):
        return "the AT-SPI bus launcher (apt-get install at-spi2-core)"
    return None


def start_xvfb(size: str = "1280x1024x24") -> tuple[subprocess.Popen[bytes], str]:
    """An Xvfb on a display number it picks itself; (process, ":N")."""
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", size,
                             "-nolisten", "tcp", "-noreset"], pass_fds=(write_fd,),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        number = pipe.readline().strip()  # Xvfb writes it once it accepts connections
    if not number:
        proc.kill()
        raise DeviceError("Xvfb did not start", serial="desktop", command="Xvfb")
    return proc, f":{number}"


def start_session_bus(display: str, home: Path
                      ) -> tuple[subprocess.Popen[bytes], dict[str, str]]:
    """A session bus for ``display``; (process, the environment apps and the driver need:
    the bus address, private XDG folders under ``home``, accessibility switched on)."""
    runtime = home / "run"
    runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
    proc = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)})
    assert proc.stdout is not None
    address = proc.stdout.readline().decode().strip()
    proc.stdout.close()
    if not address:
        proc.kill()
        raise DeviceError("dbus-daemon printed no address", serial="desktop",
                          command="dbus-daemon")
    env = {"DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": address,
           "XDG_RUNTIME_DIR": str(runtime), "XDG_CONFIG_HOME": str(home / "config"),
           "XDG_DATA_HOME": str(home / "data"), "XDG_CACHE_HOME": str(home / "cache"),
           "GSETTINGS_BACKEND": "memory", "QT_ACCESSIBILITY": "1", "NO_AT_BRIDGE": "0"}
    return proc, env


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def start_app(argv: list[str], env: dict[str, str], shown: Callable[[int], object],
              cwd: Path | None = None) -> subprocess.Popen[bytes]:
    """``argv`` started with ``env``; returned once ``shown(pid)`` is truthy."""
    if shutil.which(argv[0]) is None:
        raise DeviceError(f"{argv[0]} is not installed (scripts/setup.sh installs it)",
                          serial="desktop", command="launch")
    proc = subprocess.Popen(argv, env={**os.environ, **env}, cwd=cwd,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    if not wait_for(lambda: proc.poll() is None and shown(proc.pid), READY_DEADLINE_S, 0.1):
        stop(proc)
        raise DeviceError(f"{argv[0]} did not show its window", serial="desktop",
                          command="launch")
    return proc
