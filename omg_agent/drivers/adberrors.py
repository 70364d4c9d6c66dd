"""adb failures turned into the :class:`~omg_agent.errors.DeviceError` family — the one place.

Every request a driver sends (the ADB driver's shell streams, the u2 driver's JSON-RPC
streams and its uiautomator2 client calls) fails with one of a few exception types; the
driver code catches them with :func:`adb_errors` (or :func:`adb_error`) and nowhere else
decides what a failure means, as httpx maps its transports' errors in one table:

- ``TimeoutError`` / ``AdbTimeout``: :class:`DeviceError` (the device took too long);
- an ``AdbError`` the adb server sent (``FAIL <reason>``), or a client's error carrying
  it: :class:`DeviceOffline` when the reason says the device is gone
  (:data:`OFFLINE_REASONS`), the stream's kind when the other end hung up (``closed``, an
  empty answer), else :class:`DeviceError`;
- any other ``OSError`` (the socket broke): the stream's kind.

The *stream's kind* is :class:`DeviceOffline` for streams to adbd (a shell) — the device
dropped, :mod:`.grace` waits for it — and :class:`~omg_agent.errors.U2ServerGone` for a
stream to the u2 server's port, whose closing means the server is not listening (restart
it). The adb server's ``FAIL`` reasons are the only words read: adb has no codes for them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from adbutils.errors import AdbError, AdbTimeout

from omg_agent.errors import DeviceError, DeviceOffline

# what the adb server answers (FAIL) for a device it cannot reach
OFFLINE_REASONS = ("offline", "not found", "no devices", "unauthorized")
_HUNG_UP = ("closed",)  # the other end closed the stream before answering
FAILURES: tuple[type[Exception], ...] = (AdbError, OSError)


def adb_error(exc: BaseException, *, serial: str, command: str, prefix: str = "",
              stream: type[DeviceError] = DeviceOffline) -> DeviceError:
    """The error ``exc`` (one of :data:`FAILURES`, or a client's error carrying the adb
    server's reason) is, for ``command`` on ``serial``; ``stream`` is what a broken or
    closed stream means here (see the module doc)."""
    text = str(exc) or type(exc).__name__
    kind: type[DeviceError]
    if isinstance(exc, (TimeoutError, AdbTimeout)):
        kind, text = DeviceError, f"no answer in time ({text})"
    elif not isinstance(exc, OSError):  # the adb server's reason, in words
        lowered = text.lower()
        if any(w in lowered for w in OFFLINE_REASONS):
            kind = DeviceOffline
        elif lowered.endswith("b''") or any(w in lowered for w in _HUNG_UP):
            kind = stream  # adbutils' "Unknown data: b''": the other end hung up
        else:
            kind = DeviceError
    else:
        kind, text = stream, f"stream broke: {text}"
    return kind(prefix + text, serial=serial, command=command)


@contextmanager
def adb_errors(serial: str, command: str, *, prefix: str = "",
               stream: type[DeviceError] = DeviceOffline,
               catch: tuple[type[Exception], ...] = FAILURES) -> Iterator[None]:
    """Run the block with its adb failures (``catch``: a client's own errors too) mapped
    by :func:`adb_error`."""
    try:
        yield
    except catch as exc:
        raise adb_error(exc, serial=serial, command=command, prefix=prefix,
                        stream=stream) from exc


__all__ = ["FAILURES", "OFFLINE_REASONS", "adb_error", "adb_errors"]
