"""The one error tree of OMG-Agent.

::

    OmgError
    ├── ConfigError            bad settings or input files (names what was wrong)
    └── DeviceError            a device command failed (knows serial and command)
        └── DeviceOffline      the device dropped off adb

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
