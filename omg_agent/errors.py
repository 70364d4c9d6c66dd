"""The one error tree of OMG-Agent.

::

    OmgError
    ├── ConfigError            bad settings or input files (names what was wrong)
    ├── UITreeError            an accessibility dump that cannot be read
    ├── AnchorNotFound         a target that matches nothing on screen (says what was tried)
    └── DeviceError            a device command failed (knows serial and command)
        ├── DeviceOffline      the device dropped off adb
        └── ActionRejected     an action the driver refuses (bad target, unsafe point, …)

Errors are caught at a step boundary and recorded there; nowhere else.
"""

from __future__ import annotations


class OmgError(Exception):
    """Root of every error OMG-Agent raises on purpose."""


class ConfigError(OmgError):
    """Settings, a task file or a command-line value is invalid."""


class DeviceError(OmgError):
    def __init__(self, message: str, *, serial: str = "", command: str = "") -> None:
        super().__init__(f"{serial or 'device'}: {message}" + (f" (command: {command})"
                                                               if command else ""))
        self.serial = serial
        self.command = command


class DeviceOffline(DeviceError):
    """The device is no longer reachable through adb."""


class ActionRejected(DeviceError):
    """The driver will not run this action as given (the message says why)."""


class AnchorNotFound(OmgError):
    def __init__(self, target: str, tried: str) -> None:
        super().__init__(f"nothing on screen matches {target} (tried: {tried})")
        self.target = target
        self.tried = tried
