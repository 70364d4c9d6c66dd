"""The one error tree of OMG-Agent: every error it raises on purpose is defined here.

::

    OmgError
    ├── ConfigError            bad settings or input files (names what was wrong)
    │   ├── ModelNotConfigured no model / endpoint / key set (message says what to set)
    │   ├── RunAlreadyEnded    --resume of a run that has ended (knows its folder, phase)
    │   ├── UnsafeSetting      a file outside the user's config dir (or a fleet file) would
    │   │                      lower safety: gate off, allow, another endpoint for the key
    │   ├── FlowError          a flow file that cannot be read (names the command or field)
    │   └── ExtraMissing       a feature whose optional extra is not installed (one line:
    │                          "<feature> needs omg-agent[x]: pip install 'omg-agent[x]'")
    ├── AdbNotFound            the ``adb`` binary is not on PATH
    ├── AdbConnectError        ``adb connect`` did not bring a device up (knows serial, detail)
    ├── DeviceBusy             another agent holds the device's lease (knows its holder)
    ├── DeviceError            a device command failed (knows serial and command)
    │   ├── DeviceOffline      the device dropped off adb
    │   │   └── InputUnconfirmed  an input cut off after it was sent (effect unknown; the
    │   │                         device is back; it was not sent again)
    │   ├── ActionRejected     an action the driver refuses (bad target, unsafe point, …)
    │   ├── U2ServerGone       the uiautomator2 server does not answer (restart it)
    │   └── U2RpcError         the uiautomator2 server answered a JSON-RPC error (knows code)
    ├── FrameError             a screenshot that cannot be decoded
    │   └── TruncatedFrame     a raw frame whose pixels stop short (the stream broke)
    ├── UITreeError            an accessibility dump that cannot be read
    ├── AnchorNotFound         a target that matches nothing on screen (says what was tried)
    ├── LLMError               a model call that failed for good (knows role and model)
    │   ├── LLMUnavailable     429 / 5xx / connection errors outlasted the retries
    │   ├── LLMRequestError    the endpoint refused the request (4xx; knows the status)
    │   └── LLMReplyError      no reply parsed and validated in N attempts (knows the last)
    ├── MemoryBankError        the memory store cannot be opened or written, or bad scope
    ├── TurnFailed             a bundle the operator refuses to run (knows its FailureKind)
    ├── BudgetExhausted        the step budget is spent (knows used, limit, counts by kind)
    ├── DeadlinePassed         the run's wall-clock deadline passed (knows the limit)
    ├── DiskTrouble            the run's folder cannot be written (full, read-only, I/O
    │                          error, deleted): the run stops interrupted (knows the path)
    ├── FlowFailed             a flow step that could not run on this screen (knows its kind)
    ├── MirrorError            the mirror cannot start as asked (an address, a port in use)
    └── BodyRefused            a request body the mirror does not read (knows the status)

Errors are caught at a step boundary and recorded there; nowhere else.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # not imported at run time: this module stays free of pydantic
    from omg_agent.core.results import FailureKind


class OmgError(Exception):
    """Root of every error OMG-Agent raises on purpose."""


class ConfigError(OmgError):
    """Settings, a task file or a command-line value is invalid."""


class ExtraMissing(ConfigError):
    """``feature`` needs the optional extra ``extra``, which is not installed here; the
    message is the one line that says so and how to install it (:mod:`omg_agent.extras`)."""

    def __init__(self, feature: str, extra: str) -> None:
        super().__init__(f"{feature} needs omg-agent[{extra}]: pip install 'omg-agent[{extra}]'")
        self.feature = feature
        self.extra = extra

    def __reduce__(self) -> tuple[type[ExtraMissing], tuple[str, str]]:
        return (type(self), (self.feature, self.extra))


class RunAlreadyEnded(ConfigError):
    """The run in ``run_dir`` has ended (``phase``): resuming it does nothing again — the
    caller reports its result (a supervisor that lost the exit code asks again; repeating
    the task would repeat what it did)."""

    def __init__(self, run_dir: str | os.PathLike[str], phase: str) -> None:
        super().__init__(f"the run in {run_dir} already ended ({phase.lower()}): nothing was "
                         "done again")
        self.run_dir = os.fspath(run_dir)
        self.phase = phase


class UnsafeSetting(ConfigError):
    """A file the user did not make their own (an ``omg.toml`` outside their config dir, a
    fleet file) sets what would lower safety; the message names the keys, never values."""


class DeviceError(OmgError):
    def __init__(self, message: str, *, serial: str = "", command: str = "") -> None:
        super().__init__(f"{serial or 'device'}: {message}" + (f" (command: {command})"
                                                               if command else ""))
        self.serial = serial
        self.command = command


class DeviceOffline(DeviceError):
    """The device is no longer reachable through adb."""


class InputUnconfirmed(DeviceOffline):
    """The device dropped while an input ran: whether it took effect is unknown, so it was
    not sent again. The device answered again before this was raised: re-observe."""


class ActionRejected(DeviceError):
    """The driver will not run this action as given (the message says why)."""


class U2ServerGone(DeviceError):
    """The u2 server did not answer (not running, or the stream broke): restart it."""


class U2RpcError(DeviceError):
    """The u2 server answered with a JSON-RPC error."""

    def __init__(self, message: str, *, code: int, serial: str, command: str) -> None:
        super().__init__(message, serial=serial, command=command)
        self.code = code


class FrameError(OmgError):
    """A screenshot that cannot be decoded."""


class TruncatedFrame(FrameError):
    """A raw frame whose header is sound but whose pixels stop short: the stream broke."""


class AdbNotFound(OmgError):
    """The ``adb`` binary is not on PATH."""


class AdbConnectError(OmgError):
    def __init__(self, serial: str, detail: str) -> None:
        super().__init__(f"could not connect adb to {serial}: {detail}")
        self.serial = serial
        self.detail = detail


class DeviceBusy(OmgError):
    """Another process holds the device's lease (:mod:`omg_agent.drivers.lease`): it is
    driving that phone. Knows the holder's command, pid and run folder."""

    def __init__(self, serial: str, what: str, pid: int, run_dir: str = "", *,
                 waited_s: float = 0.0) -> None:
        holder = f"{what or 'another agent'} (pid {pid or '?'}"
        holder += f", run folder {run_dir})" if run_dir else ")"
        waited = f" (waited {waited_s:g} s)" if waited_s else ""
        super().__init__(f"device {serial} is busy: {holder} is driving it{waited}")
        self.serial = serial
        self.what = what
        self.pid = pid
        self.run_dir = run_dir


class UITreeError(OmgError):
    """The text given is not a uiautomator hierarchy dump."""


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


class TurnFailed(OmgError):
    """A bundle the operator refuses to run as given (unknown $var, unreadable screen);
    ``kind`` is its :class:`~omg_agent.core.results.FailureKind`."""

    def __init__(self, message: str, kind: FailureKind | None = None) -> None:
        from omg_agent.core.results import FailureKind

        super().__init__(message)
        self.kind = kind if kind is not None else FailureKind.MISSING_VALUE


class BudgetExhausted(OmgError):
    """The step budget is spent; ``used`` of ``limit`` steps, by kind in ``counts``."""

    def __init__(self, used: int, limit: int, counts: dict[str, int]) -> None:
        detail = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "nothing"
        super().__init__(f"the step budget of {limit} is spent ({used} used: {detail})")
        self.used = used
        self.limit = limit
        self.counts = counts


class DeadlinePassed(OmgError):
    """The run's deadline (``--timeout``) passed; ``limit_s`` is the deadline in seconds."""

    def __init__(self, limit_s: float) -> None:
        super().__init__(f"run deadline of {limit_s:g} s passed; run again with a longer "
                         "--timeout, or split the task into smaller tasks")
        self.limit_s = limit_s


class DiskTrouble(OmgError):
    """The run's folder cannot be written: ``cause`` is the ``OSError`` (ENOSPC, EDQUOT,
    EROFS, EIO, or the folder deleted). Raised at a safe point (the top of a turn), never in
    the middle of one; the run ends ``interrupted`` and can be resumed once there is room."""

    def __init__(self, cause: OSError) -> None:
        reason = cause.strerror or type(cause).__name__
        where = cause.filename or ""
        super().__init__(f"cannot write the run's files: {reason}" + (f" ({where})" if where
                                                                      else ""))
        self.cause = cause
        self.path = str(where)


class FlowError(ConfigError):
    """A flow file that cannot be read: names the command or field and what is accepted."""


class FlowFailed(OmgError):
    """A flow step that could not run on this screen (raised inside the runner only)."""

    def __init__(self, message: str, *, kind: str = "step") -> None:
        super().__init__(message)
        self.kind = kind  # "anchor" | "assert" | "gate" | "device" | "step"


class MirrorError(OmgError):
    """The mirror cannot start as asked (an address it may not bind, a port in use)."""


class BodyRefused(OmgError):
    """A request body the mirror does not read (knows the HTTP status to answer)."""

    def __init__(self, status: int, why: str) -> None:
        super().__init__(why)
        self.status = status
