"""Fast shell round trips to one device through the adb server.

The ADB driver's only way to talk to a phone. Requests go through an ``adbutils.AdbClient``'s
server connection, but this module composes and reads them itself, because adbutils'
convenience methods cost more than the device does (measured on vphone, README): ``shell()``
reads 4 KiB at a time into a growing ``bytes`` (a 10 MB raw frame took ~1 s), every request
ends with a 10 ms sleep in ``AdbConnection.close()``, and ``open_transport()`` asks the
server for its version on every call. Here a request is one server connection:
``host:transport:<serial>`` then the service, output read in 1 MiB chunks, socket closed
directly.

Two services are used:

* ``exec:<cmd>`` — raw stdout, binary safe, no exit status (screenshots, XML dumps);
* ``shell,v2:<cmd>`` — framed stdout/stderr plus the exit status (input commands), with a
  fallback for devices without the ``shell_v2`` feature that appends ``echo`` of ``$?``.

Errors become :class:`~omg_agent.errors.DeviceError` / ``DeviceOffline`` with serial and
command. Every call goes through a :class:`~omg_agent.drivers.grace.DeviceGrace`: reads are
repeated through device drops and adb server restarts for up to ``grace_s`` seconds; an
input command only while it has not reached the device (see :mod:`.grace`).
The text of a command may be a secret (a typed password): callers pass ``label``,
which is what errors show instead of the command when given.
"""

from __future__ import annotations

import logging
import re
import shlex
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import adbutils
from adbutils.errors import AdbError

from omg_agent.drivers.adberrors import adb_error
from omg_agent.drivers.grace import AdbLink, DeviceGrace, Undelivered
from omg_agent.errors import DeviceError, DeviceOffline

log = logging.getLogger(__name__)
T = TypeVar("T")

CHUNK = 1 << 20
_V2_STDOUT, _V2_STDERR, _V2_EXIT = 1, 2, 3
_V2_HEADER = struct.Struct("<BI")
_RC_TAIL = re.compile(rb"\nOMG_RC:(\d+)\r?\n?$")


@dataclass(frozen=True)
class ShellResult:
    """What a command printed and its exit status."""

    stdout: bytes
    stderr: bytes
    status: int

    @property
    def ok(self) -> bool:
        return self.status == 0

    def text(self) -> str:
        return (self.stdout + self.stderr).decode("utf-8", "replace")


class ServerConnection(adbutils.AdbConnection):
    """A connection to the adb server that neither starts a server when there is none
    (adbutils would run ``adb start-server`` for the default port, whatever port the client
    uses) nor leaks the socket of a refused connect; :mod:`.grace` restarts the right one."""

    def _safe_connect(self) -> socket.socket:
        host, port = self._server
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        sock.settimeout(3)
        try:
            sock.connect((host, port))
        except OSError as exc:
            sock.close()
            raise AdbError(f"connect to adb server {host}:{port} failed: {exc}") from None
        sock.settimeout(None)
        return sock

    def __init__(self, host: str, port: int) -> None:
        self._server = (host, port)
        super().__init__(host, port)


class AdbIO:
    """Shell streams to one device. Thread-safe: every call opens its own connection."""

    def __init__(self, client: adbutils.AdbClient, serial: str, *,
                 timeout: float = 30.0, shell_v2: bool | None = None,
                 grace_s: float = 30.0, grace: DeviceGrace | None = None) -> None:
        self.client = client
        self.serial = serial
        self.timeout = timeout
        self.grace = grace if grace is not None else DeviceGrace(
            AdbLink(client, serial, timeout=min(timeout, 10.0)), grace_s=grace_s)
        self.shell_v2 = shell_v2  # None: use it when the device lists the feature
        self._features: frozenset[str] | None = None
        self.calls = 0  # round trips made so far (the driver counts device_calls with it)

    # -- public ----------------------------------------------------------------------------
    def run(self, cmd: str, *, timeout: float | None = None, label: str = "") -> bytes:
        """Run ``cmd`` through ``exec:`` and return its raw stdout (a read: repeated
        through device drops)."""
        return self.grace.read(lambda: self._exec(cmd, timeout, label or cmd), label or cmd)

    def read(self, cmd: str, parse: Callable[[bytes], T], *, timeout: float | None = None,
             label: str = "") -> T:
        """Run ``cmd`` and ``parse`` its stdout as one unit through device drops: a parse
        that raises :class:`DeviceOffline` (an answer cut short) fetches it again."""
        return self.grace.read(lambda: parse(self._exec(cmd, timeout, label or cmd)),
                               label or cmd)

    def stream(self, cmd: str, *, label: str = "") -> socket.socket:
        """``cmd``'s stdout as an open socket, read as it is written (``screenrecord -``
        for the mirror); no timeout, no repetition: the caller reads and closes it."""
        sock = self._open(f"exec:{cmd}", None, label or cmd)
        sock.settimeout(None)
        return sock

    def _exec(self, cmd: str, timeout: float | None, label: str) -> bytes:
        sock = self._open(f"exec:{cmd}", timeout, label)
        try:
            return self._read_all(sock, label)
        finally:
            sock.close()

    def run_status(self, cmd: str, *, timeout: float | None = None,
                   label: str = "") -> ShellResult:
        """Run ``cmd`` and return stdout, stderr and its exit status. An input call: sent
        again only while it never reached the device (no phantom steps)."""
        label = label or cmd
        v2 = self.shell_v2 if self.shell_v2 is not None else "shell_v2" in self.features()
        if v2:
            return self.grace.send(lambda: self._run_v2(cmd, timeout, label), label)
        # No shell_v2 (Android < 7): the status travels as a last line of stdout. The command
        # runs in its own sh so an `exit` in it cannot skip that line.
        wrapped = f"sh -c {shlex.quote(cmd)}; _omg_rc=$?; echo; echo OMG_RC:$_omg_rc"
        out = self.grace.send(lambda: self._exec(wrapped, timeout, label), label)
        m = _RC_TAIL.search(out)
        if m is None:
            return ShellResult(out, b"", 255)
        return ShellResult(out[:m.start()], b"", int(m.group(1)))

    def features(self) -> frozenset[str]:
        """The device's adb features (cached; read once per driver)."""
        if self._features is None:
            reply = self.grace.read(self._read_features, "features")
            self._features = frozenset(f for f in reply.split(",") if f)
        return self._features

    def _read_features(self) -> str:
        conn = self._connect(None)
        try:
            self._request(conn, f"host-serial:{self.serial}:features", "features")
            return conn.read_string_block()
        except AdbError as exc:
            raise adb_error(exc, serial=self.serial, command="features") from None
        finally:
            self._close(conn)

    # -- internals -------------------------------------------------------------------------
    def _connect(self, timeout: float | None) -> adbutils.AdbConnection:
        try:
            conn = ServerConnection(self.client.host, self.client.port)
        except (AdbError, OSError) as exc:  # no server to take it: nothing was sent
            raise Undelivered(DeviceOffline(f"adb server unreachable: {exc}",
                                            serial=self.serial)) from None
        conn.conn.settimeout(timeout or self.timeout)
        return conn

    def _request(self, conn: adbutils.AdbConnection, service: str, label: str) -> None:
        try:
            conn.send_command(service)
            conn.check_okay()
        except (AdbError, OSError) as exc:
            raise adb_error(exc, serial=self.serial, command=label) from None

    def _open(self, service: str, timeout: float | None, label: str) -> socket.socket:
        """A socket positioned at the start of ``service``'s output."""
        conn = self._connect(timeout)
        try:
            try:
                self._request(conn, f"host:transport:{self.serial}", label)
            except DeviceOffline as exc:  # the command has not left the host yet
                raise Undelivered(exc) from None
            self._request(conn, service, label)
        except BaseException:
            self._close(conn)
            raise
        self.calls += 1
        sock = conn.conn
        sock.settimeout(timeout or self.timeout)
        return sock

    @staticmethod
    def _close(conn: adbutils.AdbConnection) -> None:
        # Closing the raw socket first makes AdbConnection.close() skip its 10 ms sleep
        # (its shutdown() fails on a closed socket) while still dropping its reference.
        try:
            conn.conn.close()
        except AdbError:
            return
        conn.close()

    def _read_all(self, sock: socket.socket, label: str) -> bytes:
        chunks: list[bytes] = []
        try:
            while chunk := sock.recv(CHUNK):
                chunks.append(chunk)
        except OSError as exc:  # no answer in time, or a broken stream
            raise adb_error(exc, serial=self.serial, command=label) from None
        return b"".join(chunks)

    def _run_v2(self, cmd: str, timeout: float | None, label: str) -> ShellResult:
        start = time.perf_counter()
        sock = self._open(f"shell,v2:{cmd}", timeout, label)
        try:
            data = self._read_all(sock, label)
        finally:
            sock.close()
        out, err, status = bytearray(), bytearray(), None
        pos = 0
        while pos + _V2_HEADER.size <= len(data):
            kind, size = _V2_HEADER.unpack_from(data, pos)
            payload = data[pos + _V2_HEADER.size:pos + _V2_HEADER.size + size]
            pos += _V2_HEADER.size + size
            if kind == _V2_STDOUT:
                out += payload
            elif kind == _V2_STDERR:
                err += payload
            elif kind == _V2_EXIT and payload:
                status = payload[0]
        if status is None:
            raise DeviceOffline("shell ended without an exit status", serial=self.serial,
                                command=label)
        log.debug("shell,v2 %s -> %s in %.1f ms", label[:80], status,
                  (time.perf_counter() - start) * 1000)
        return ShellResult(bytes(out), bytes(err), status)


def only_serial(client: adbutils.AdbClient) -> str:
    """The serial of the one attached device; DeviceError naming them when there isn't one."""
    serials = [d.serial for d in client.device_list()]
    if len(serials) != 1:
        raise DeviceError(f"pass a serial: {len(serials)} devices attached "
                          f"({', '.join(serials) or 'none'})")
    return serials[0]


INJECT_HINT = ("the phone refuses injected input; on Xiaomi/MIUI enable "
               "'USB debugging (Security settings)' in developer options")


def failure_text(output: str, status: int) -> str:
    """An input command's refusal as one line (with the fix when the phone blocks input)."""
    text = " ".join(output.split())[:300] or f"exit status {status}"
    if "INJECT_EVENTS" in output:
        text += f" ({INJECT_HINT})"
    return f"device command failed: {text}"
