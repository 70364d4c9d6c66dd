"""One adb host connection to the vphone's adbd (:class:`AdbTransport`): the CNXN
handshake, the table of streams opened by OPEN, messages read and dispatched to them, and
writes serialised through one lock; plus what the adbd needs from the phone behind it
(:class:`AdbdBackend`). The listening server that makes transports is ``adbd.py``.
"""

from __future__ import annotations

import logging
import re
import selectors
import socket
import threading
from collections.abc import Callable
from typing import Protocol

from omg_agent.vphone import adbservices
from omg_agent.vphone.adbstream import AdbStream
from omg_agent.vphone.adbwire import (
    A_CLSE,
    A_CNXN,
    A_OKAY,
    A_OPEN,
    A_WRTE,
    COMMAND_NAMES,
    DEVICE_MAX_PAYLOAD,
    DEVICE_VERSION,
    HEADER_SIZE,
    MAX_ACCEPTED_PAYLOAD,
    VERSION_MIN,
    VERSION_SKIP_CHECKSUM,
    Message,
    ProtocolError,
    pack_header,
    service_name,
    unpack_header,
    verify_payload,
)
from omg_agent.vphone.memfs import MemFS
from omg_agent.vphone.shellio import ShellIO

logger = logging.getLogger(__name__)

POLL_INTERVAL = 0.25  # how often idle loops look at stop/online flags
RECV_SIZE = 256 * 1024


class AdbdBackend(Protocol):
    """What the adbd needs from the phone behind it (VirtualPhone provides it).

    ``run_shell`` blocks until the command ends and returns its exit code. Once the client
    closes the stream (or the transport drops) ``io.cancelled`` is set and ``io.write_out`` /
    ``io.write_err`` raise BrokenPipeError, so long-running commands should watch the event.
    For ``install -S N`` commands ``io.stdin`` already holds the N streamed bytes.
    ``open_tcp`` raises ConnectionRefusedError (any OSError) when nothing listens there.
    While ``online`` is False every connection is dropped and new ones are refused.
    """

    fs: MemFS

    @property
    def online(self) -> bool: ...

    def banner(self) -> bytes: ...

    def run_shell(self, cmd: str, io: ShellIO) -> int: ...

    def open_tcp(self, port: int) -> socket.socket: ...


Spawn = Callable[[Callable[[], None], str], threading.Thread]


class TransportClosed(Exception):
    """The connection ended (peer gone, dropped, or server stopping)."""


class AdbTransport:
    """One host connection: reads messages, keeps the stream table, serialises writes."""

    def __init__(self, sock: socket.socket, backend: AdbdBackend, spawn: Spawn,
                 should_run: Callable[[], bool]) -> None:
        self.sock = sock
        self.backend = backend
        self._spawn = spawn
        self._should_run = should_run
        self._send_lock = threading.Lock()
        self._table_lock = threading.Lock()
        self._streams: dict[int, AdbStream] = {}
        self._next_id = 1
        # `adb reverse` listeners (device socket → host socket); they die with the transport.
        self.reverse_forwards: dict[str, str] = {}
        self._buf = bytearray()
        self._version = VERSION_MIN
        self._max_payload = DEVICE_MAX_PAYLOAD
        self._connected = False
        self._dropped = False

    # -- StreamLink --------------------------------------------------------------------------
    @property
    def max_payload(self) -> int:
        return self._max_payload

    def send_message(self, command: int, arg0: int, arg1: int, data: bytes = b"") -> None:
        header = pack_header(command, arg0, arg1, data,
                             with_checksum=command == A_CNXN
                             or self._version < VERSION_SKIP_CHECKSUM)
        with self._send_lock:
            if len(data) <= 4096:
                self.sock.sendall(header + data)
            else:
                self.sock.sendall(header)
                self.sock.sendall(data)

    def release(self, stream: AdbStream) -> None:
        with self._table_lock:
            if self._streams.get(stream.local_id) is stream:
                del self._streams[stream.local_id]

    # -- lifecycle ---------------------------------------------------------------------------
    def stream_count(self) -> int:
        with self._table_lock:
            return len(self._streams)

    def drop(self) -> None:
        """Cut the connection now; the reader thread notices and cleans up."""
        self._dropped = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError as exc:
            logger.debug("shutdown of a dead transport socket: %s", exc)

    def serve(self) -> None:
        """Reader loop; returns when the connection ends. Closes the socket."""
        selector = selectors.DefaultSelector()
        try:
            selector.register(self.sock, selectors.EVENT_READ)
            while True:
                self._dispatch(self._read_message(selector))
        except (TransportClosed, ConnectionError) as exc:
            logger.debug("transport closed: %s", exc)
        except (ProtocolError, OSError) as exc:
            logger.warning("dropping transport: %s", exc)
        finally:
            selector.close()
            self._teardown()

    def _teardown(self) -> None:
        with self._table_lock:
            streams = list(self._streams.values())
        for stream in streams:
            stream.abort()
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            logger.debug("socket already shut down")
        with self._send_lock:
            self.sock.close()

    # -- reading -----------------------------------------------------------------------------
    def _fill(self, selector: selectors.BaseSelector, size: int) -> bytes:
        while len(self._buf) < size:
            if self._dropped or not self._should_run():
                raise TransportClosed("dropped")
            if not selector.select(POLL_INTERVAL):
                continue
            chunk = self.sock.recv(RECV_SIZE)
            if not chunk:
                raise TransportClosed("peer closed the connection")
            self._buf.extend(chunk)
        out = bytes(self._buf[:size])
        del self._buf[:size]
        return out

    def _read_message(self, selector: selectors.BaseSelector) -> Message:
        header = unpack_header(self._fill(selector, HEADER_SIZE),
                               max_payload=MAX_ACCEPTED_PAYLOAD)
        data = self._fill(selector, header.data_length) if header.data_length else b""
        verify_payload(header, data, self._version)
        return Message(header.command, header.arg0, header.arg1, data)

    # -- dispatch ----------------------------------------------------------------------------
    def _dispatch(self, msg: Message) -> None:
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("<- %s(%d, %d) %d bytes", COMMAND_NAMES.get(msg.command, "?"),
                         msg.arg0, msg.arg1, len(msg.data))
        if msg.command == A_CNXN:
            self._on_connect(msg)
        elif not self._connected:
            logger.debug("ignoring %s before CNXN", msg.name)
        elif msg.command == A_OPEN:
            self._on_open(msg)
        elif msg.command in (A_OKAY, A_WRTE, A_CLSE):
            self._on_stream_message(msg)
        else:
            logger.debug("ignoring %s", msg.name)

    def _on_connect(self, msg: Message) -> None:
        if self._connected:  # a new session on the same connection resets the old one
            with self._table_lock:
                streams = list(self._streams.values())
            for stream in streams:
                stream.abort()
        self._version = max(VERSION_MIN, min(msg.arg0, DEVICE_VERSION))
        self._max_payload = max(4096, min(msg.arg1 or DEVICE_MAX_PAYLOAD, DEVICE_MAX_PAYLOAD))
        self._connected = True
        logger.debug("CNXN host version 0x%08x max payload %d: %r", msg.arg0, msg.arg1,
                     msg.data[:200])
        self.send_message(A_CNXN, DEVICE_VERSION, DEVICE_MAX_PAYLOAD, self.backend.banner())

    def _on_open(self, msg: Message) -> None:
        remote_id = msg.arg0
        if remote_id == 0:
            return
        name = service_name(msg.data)
        logger.debug("OPEN %r from host stream %d", _without_typed_text(name), remote_id)
        with self._table_lock:
            local_id = self._next_id
            self._next_id += 1
            stream = AdbStream(self, local_id, remote_id, name)
            self._streams[local_id] = stream
        service = adbservices.open_service(name, stream, self.backend, self._spawn)
        if service is None:
            logger.info("refusing service %r", name)
            self.release(stream)
            self.send_message(A_CLSE, 0, remote_id)
            return
        self.send_message(A_OKAY, local_id, remote_id)
        self._spawn(lambda: _run_service(service, stream), f"adbd-{name[:24]!r}")

    def _on_stream_message(self, msg: Message) -> None:
        with self._table_lock:
            stream = self._streams.get(msg.arg1)
        if stream is None or stream.remote_id != msg.arg0:
            logger.debug("%s for unknown stream %d/%d", msg.name, msg.arg0, msg.arg1)
            return
        if msg.command == A_OKAY:
            stream.on_okay()
        elif msg.command == A_WRTE:
            stream.on_data(msg.data)
        else:
            stream.on_peer_close()


def _run_service(service: Callable[[], None], stream: AdbStream) -> None:
    try:
        service()
    except BrokenPipeError as exc:
        logger.debug("%r ended: %s", stream, exc)
    except Exception:
        logger.exception("service %r failed", stream.service)
    finally:
        stream.close()


_TYPED = re.compile(r"(input text |--es msg )('(?:[^']|'\\'')*'|\S+)")


def _without_typed_text(service: str) -> str:
    """``service`` with what it types left out: a phone does not log its user's keystrokes
    (a password among them)."""
    return _TYPED.sub(lambda m: f"{m.group(1)}<{len(m.group(2))} chars>", service)
