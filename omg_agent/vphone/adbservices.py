"""The services an ADB host can open on the vphone, and how a service name picks one.

``shell:``/``shell,v2,...:``/``exec:`` run a command through the backend's shell,
``sync:`` is the file-transfer protocol (``sync_service.py``), ``tcp:<port>`` bridges to a
socket the phone "listens" on (uiautomator2's HTTP server at 9008), ``framebuffer:`` sends
one screen frame with adbd's version-2 header. ``reverse:`` keeps the transport's reverse
forwards as adbd does (add, norebind, list, remove); no app on the vphone ever connects to
one, so no stream is opened back to the host. Everything else (``reboot:``, ``remount:``...)
is refused, which the host sees as a closed stream; the transport itself stays up.
"""

from __future__ import annotations

import logging
import shlex
import socket
import struct
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from omg_agent.vphone.adbstream import AdbStream
from omg_agent.vphone.adbwire import (
    SHELL_CLOSE_STDIN,
    SHELL_EXIT,
    SHELL_PACKET_HEADER,
    SHELL_STDERR,
    SHELL_STDIN,
    SHELL_STDOUT,
    ShellPacketParser,
    ShellRequest,
    parse_shell_service,
    parse_tcp_service,
    shell_packet,
)
from omg_agent.vphone.shellio import ShellIO
from omg_agent.vphone.sync_service import SyncSession

if TYPE_CHECKING:
    from omg_agent.vphone.adbtransport import AdbdBackend, Spawn

logger = logging.getLogger(__name__)

Service = Callable[[], None]
STDIN_LIMIT = 1024 * 1024  # stdin kept for a command that may never read it
# What a user build's adbd answers (and then closes) instead of restarting itself.
PRODUCTION_BUILD_REPLIES = {
    "root:": b"adbd cannot run as root in production builds\n",
    "unroot:": b"adbd not running as root\n",
}


def open_service(name: str, stream: AdbStream, backend: AdbdBackend,
                 spawn: Spawn) -> Service | None:
    """The runnable serving ``name`` on ``stream``, or None to refuse the OPEN."""
    try:
        shell = parse_shell_service(name)
        if shell is not None:
            return ShellSession(stream, shell, backend).run
        if name == "sync:":
            return SyncSession(stream, backend.fs).run
        port = parse_tcp_service(name)
        if port is not None:
            return _open_tcp(stream, port, backend, spawn)
        if name in PRODUCTION_BUILD_REPLIES:
            return lambda: stream.write(PRODUCTION_BUILD_REPLIES[name])
        if name == "framebuffer:" and hasattr(backend, "screencap_raw"):
            return lambda: stream.write(framebuffer(backend.screencap_raw()))
        if name.startswith("reverse:"):
            table = getattr(stream.link, "reverse_forwards", None)
            if isinstance(table, dict):
                return lambda: stream.write(reverse_reply(name[len("reverse:"):], table))
    except Exception:
        logger.exception("opening service %r failed", name)
    return None


def framebuffer(raw: bytes) -> bytes:
    """The ``framebuffer:`` reply for a raw screencap (16-byte header, then RGBA pixels):
    version 2, 32 bpp, sRGB, size, width, height, then offset/length of R, B, G, A."""
    width, height, _fmt, _space = struct.unpack_from("<4I", raw)
    pixels = raw[16:]
    header = struct.pack("<14I", 2, 32, 1, len(pixels), width, height, 0, 8, 16, 8, 8, 8,
                         24, 8)
    return header + pixels


def _status(error: str | None = None, body: str | None = None) -> bytes:
    if error is not None:
        return b"FAIL" + f"{len(error.encode()):04x}".encode() + error.encode()
    if body is not None:
        return f"{len(body.encode()):04x}".encode() + body.encode()
    return b"OKAY"


def reverse_reply(request: str, table: dict[str, str]) -> bytes:
    """What adbd writes for ``reverse:<request>``, updating ``table`` (device spec → host)."""
    if request == "list-forward":
        return _status(body="".join(f"host {r} {h}\n" for r, h in table.items()))
    if request == "killforward-all":
        table.clear()
        return _status()
    if request.startswith("killforward:"):
        remote = request[len("killforward:"):]
        if table.pop(remote, None) is None:
            return _status(f"listener '{remote}' not found")
        return _status()
    if request.startswith("forward:"):
        spec = request[len("forward:"):]
        norebind = spec.startswith("norebind:")
        remote, sep, local = spec.removeprefix("norebind:").partition(";")
        if not sep or ":" not in remote or ":" not in local:
            return _status(f"malformed forward spec '{spec}'")
        if norebind and remote in table:
            return _status("cannot rebind existing socket")
        table[remote] = local
        return _status()
    return _status(f"unknown reverse request '{request}'")


def _open_tcp(stream: AdbStream, port: int, backend: AdbdBackend,
              spawn: Spawn) -> Service | None:
    try:
        sock = backend.open_tcp(port)
    except OSError as exc:
        logger.info("tcp:%d refused: %s", port, exc)
        return None
    return TcpBridge(stream, sock, spawn).run


def streamed_install_size(command: str) -> int:
    """N for ``cmd package install -S N`` (and ``pm install -S N``), which read N stdin bytes.

    ``adb install`` streams the APK that way over an ``exec:``/``abb_exec:`` stream, which has
    no end-of-input signal, so the bytes are gathered before the command runs.
    """
    try:
        words = shlex.split(command)
    except ValueError:
        return 0
    if "install" not in words or "-S" not in words:
        return 0
    at = words.index("-S") + 1
    return int(words[at]) if at < len(words) and words[at].isdigit() else 0


class ShellSession:
    """A ``shell``/``exec`` stream: runs the command, forwards its output, reports its exit."""

    def __init__(self, stream: AdbStream, request: ShellRequest, backend: AdbdBackend) -> None:
        self.stream = stream
        self.request = request
        self.backend = backend
        self._parser = ShellPacketParser()
        self._stdin = bytearray()
        self._stdin_closed = False
        self._stdin_cond = threading.Condition()
        self._stdin_size = streamed_install_size(request.command)
        stream.data_handler = self._on_host_data

    def run(self) -> None:
        io = ShellIO(self._write_out, self._write_err, self.stream.cancelled)
        if self._stdin_size:
            io.stdin = self._take_stdin(self._stdin_size)
        else:
            io.read_line = self._next_stdin_line
        if self.request.command.strip():
            code = self._run_one(self.request.command, io)
        else:
            code = self._run_interactive(io)
        if self.request.protocol_v2 and not self.stream.closed:
            self.stream.write(shell_packet(SHELL_EXIT, bytes([code & 0xFF])))

    def _run_one(self, command: str, io: ShellIO) -> int:
        try:
            return int(self.backend.run_shell(command, io))
        except BrokenPipeError:
            logger.debug("shell %r: client went away", command)
            return 141  # what a shell reports for SIGPIPE
        except Exception as exc:
            logger.exception("shell command %r crashed", command)
            try:
                io.write_err(f"vphone: {command}: internal error: {exc!r}\n".encode())
            except BrokenPipeError:
                logger.debug("shell %r: client went away", command)
            return 255

    def _run_interactive(self, io: ShellIO) -> int:
        """``adb shell`` without a command: run each stdin line until EOF or ``exit``."""
        code = 0
        while True:
            line = self._next_stdin_line()
            if line is None:
                return code
            command = line.strip()
            if command == "exit" or command.startswith("exit "):
                tail = command[len("exit"):].strip()
                return int(tail) if tail.isdigit() else code
            if command:
                code = self._run_one(command, io)

    def _take_stdin(self, size: int) -> bytes:
        """Wait for ``size`` stdin bytes (or its end), for commands that read exactly that."""
        with self._stdin_cond:
            while len(self._stdin) < size and not self._stdin_closed and not self.stream.closed:
                self._stdin_cond.wait(0.5)
            data = bytes(self._stdin[:size])
            del self._stdin[:size]
        return data

    def _next_stdin_line(self) -> str | None:
        with self._stdin_cond:
            while b"\n" not in self._stdin:
                if self._stdin_closed or self.stream.closed:
                    if not self._stdin:
                        return None
                    break
                self._stdin_cond.wait(0.5)
            raw, sep, rest = bytes(self._stdin).partition(b"\n")
            self._stdin[:] = rest
        return raw.decode("utf-8", "replace")

    def _on_host_data(self, data: bytes) -> None:
        if not self.request.protocol_v2:
            self._add_stdin(data, eof=False)
            return
        for kind, payload in self._parser.feed(data):
            if kind == SHELL_STDIN:
                self._add_stdin(payload, eof=False)
            elif kind == SHELL_CLOSE_STDIN:
                self._add_stdin(b"", eof=True)

    def _add_stdin(self, data: bytes, *, eof: bool) -> None:
        with self._stdin_cond:
            if len(self._stdin) < max(STDIN_LIMIT, self._stdin_size):  # may go unread
                self._stdin.extend(data)
            self._stdin_closed = self._stdin_closed or eof
            self._stdin_cond.notify_all()

    def _write_out(self, data: bytes) -> None:
        self._emit(SHELL_STDOUT, data)

    def _write_err(self, data: bytes) -> None:
        self._emit(SHELL_STDERR, data)

    def _emit(self, kind: int, data: bytes) -> None:
        if not data:
            return
        if self.stream.closed:
            raise BrokenPipeError("shell stream closed")
        if not self.request.protocol_v2:
            self.stream.write(bytes(data))
            return
        step = max(1, self.stream.max_payload - SHELL_PACKET_HEADER.size)
        view = memoryview(data)
        for start in range(0, len(view), step):
            self.stream.write(shell_packet(kind, bytes(view[start:start + step])))


class TcpBridge:
    """Pumps bytes between an ADB stream and a socket on the phone until either side closes."""

    def __init__(self, stream: AdbStream, sock: socket.socket, spawn: Spawn) -> None:
        self.stream = stream
        self.sock = sock
        self._spawn = spawn

    def run(self) -> None:
        pump = self._spawn(self._device_to_host, f"adbd-tcp-pump-{self.stream.local_id}")
        try:
            while True:
                data = self.stream.read()
                if not data:
                    break
                self.sock.sendall(data)
        except OSError as exc:
            logger.debug("tcp bridge: device socket failed: %s", exc)
        finally:
            self.stream.close()
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                logger.debug("tcp bridge: device socket already closed")
            pump.join()
            self.sock.close()

    def _device_to_host(self) -> None:
        try:
            while True:
                data = self.sock.recv(self.stream.max_payload)
                if not data:
                    break
                self.stream.write(data)
        except OSError as exc:  # BrokenPipeError included: the host closed the stream
            logger.debug("tcp bridge: %s", exc)
        finally:
            self.stream.close()
