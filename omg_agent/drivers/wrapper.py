"""Drivers that wrap a driver, and finding the adb shell under them.

:class:`DriverWrapper` is the base of every driver around another one (``--dry-run``'s
:class:`~omg_agent.drivers.dryrun.DryRunDriver`, the secret typer
:class:`~omg_agent.drivers.secret_typing.SecretTyping`): it keeps the wrapped driver as
``inner`` and passes the :class:`~omg_agent.drivers.base.Driver` protocol through, so a
wrapper writes only what it changes.

:func:`shell_of` digs through wrappers to the ADB driver's shell stream
(:class:`~omg_agent.drivers.adbio.AdbIO`): macros send their chunks on it, the replay
cache reads app versions with it. A driver without one (u2, desktop, a test double) gives
``None`` and the caller goes through ``execute``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from omg_agent.core.actions import Action
from omg_agent.core.observation import Observation
from omg_agent.drivers.base import DeviceInfo, Driver, ExecResult

if TYPE_CHECKING:  # the shell itself is not needed to wrap a driver
    from omg_agent.drivers.adbio import ShellResult
    from omg_agent.drivers.ports import Reviewer


class Shell(Protocol):
    """A device's shell stream (``AdbIO``): raw output of a read, status of an input."""

    def run(self, cmd: str, *, timeout: float | None = None, label: str = "") -> bytes: ...

    def run_status(self, cmd: str, *, timeout: float | None = None,
                   label: str = "") -> ShellResult: ...


class DriverWrapper:
    """A driver around ``inner``; every call not overridden goes to it."""

    def __init__(self, inner: Driver) -> None:
        self.inner = inner

    def info(self) -> DeviceInfo:
        return self.inner.info()

    def observe(self, *, ocr: bool = False) -> Observation:
        return self.inner.observe(ocr=ocr)

    def execute(self, actions: Sequence[Action],
                observation: Observation | None = None, *,
                review: Reviewer | None = None) -> ExecResult:
        return self.inner.execute(actions, observation, review=review)

    def launch(self, app: str) -> None:
        self.inner.launch(app)

    def current_app(self) -> tuple[str, str]:
        return self.inner.current_app()

    def close(self) -> None:
        self.inner.close()


def shell_of(driver: Any) -> Shell | None:
    """The shell stream (``io``) of the driver under any wrappers (``inner``), or None."""
    seen: set[int] = set()
    while driver is not None and id(driver) not in seen:
        seen.add(id(driver))
        io = getattr(driver, "io", None)
        if callable(getattr(io, "run", None)) and callable(getattr(io, "run_status", None)):
            return io
        driver = getattr(driver, "inner", None)
    return None


__all__ = ["DriverWrapper", "Shell", "shell_of"]
