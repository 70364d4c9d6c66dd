"""The one error tree of OMG-Agent.

::

    OmgError
    ├── ConfigError            bad settings or input files (names what was wrong)
    │   └── ModelNotConfigured no model / endpoint / key set (message says what to set)
    ├── UITreeError            an accessibility dump that cannot be read
    ├── AnchorNotFound         a target that matches nothing on screen (says what was tried)
    ├── DeviceError            a device command failed (knows serial and command)
    │   ├── DeviceOffline      the device dropped off adb
    │   └── ActionRejected     an action the driver refuses (bad target, unsafe point, …)
    ├── LLMError               a model call that failed for good (knows role and model)
    │   ├── LLMUnavailable     429 / 5xx / connection errors outlasted the retries
    │   ├── LLMRequestError    the endpoint refused the request (4xx; knows the status)
    │   └── LLMReplyError      no reply parsed and validated in N attempts (knows the last)
    └── MemoryBankError        the memory store cannot be opened or written, or bad scope

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


class ModelNotConfigured(ConfigError):
    """No usable model settings; the message lists the variables to set."""


class LLMError(OmgError):
    def __init__(self, message: str, *, role: str = "", model: str = "") -> None:
        super().__init__(f"{role or 'model'} ({model or '?'}): {message}")
        self.role = role
        self.model = model


class LLMUnavailable(LLMError):
    """The endpoint kept failing (rate limit, server error, no connection) past the retries."""


class LLMRequestError(LLMError):
    def __init__(self, message: str, *, status: int, role: str = "", model: str = "") -> None:
        super().__init__(f"HTTP {status}: {message}", role=role, model=model)
        self.status = status


class LLMReplyError(LLMError):
    def __init__(self, message: str, *, attempts: int, last_reply: str, role: str = "",
                 model: str = "") -> None:
        super().__init__(f"no valid reply in {attempts} attempt(s): {message}", role=role,
                         model=model)
        self.attempts = attempts
        self.last_reply = last_reply


class MemoryBankError(OmgError):
    """The memory store cannot be opened or written, or a request names a bad scope/key."""
