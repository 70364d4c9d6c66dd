"""The vphone's adbd: a TCP server speaking the device side of the ADB transport protocol.

``adb connect 127.0.0.1:<port>`` makes the adb server open a TCP connection here; each
connection is a transport (CNXN handshake, then streams opened by OPEN). Services behind the
streams live in ``adbservices.py`` and ``sync_service.py``; framing in ``adbwire.py``.

Threads: one accept thread per server, one reader thread per transport, one (tcp: two)
per open stream. All of them end when their connection or stream ends; ``stop()`` closes
everything and joins them. Writes to a transport's socket go through one lock.
"""

from __future__ import annotations

import logging
import re
import selectors
import socket
import threading
import time
from collections.abc import Callable
from types import TracebackType
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


class AdbdServer:
    """Listens for adb host connections and serves each as an ADB transport."""

    def __init__(self, backend: AdbdBackend, host: str = "127.0.0.1", port: int = 0) -> None:
        self.backend = backend
        self.host = host
        self._requested_port = port
        self._listener: socket.socket | None = None
        self._accept_thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._transports: set[AdbTransport] = set()
        self._threads: set[threading.Thread] = set()

    @property
    def port(self) -> int:
        if self._listener is None:
            raise RuntimeError("server not started")
        return int(self._listener.getsockname()[1])

    def start(self) -> AdbdServer:
        """Bind and listen; returns once connections are accepted."""
        if self._listener is not None:
            raise RuntimeError("server already started")
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind((self.host, self._requested_port))
            listener.listen(64)
        except OSError:
            listener.close()
            raise
        listener.settimeout(POLL_INTERVAL)
        self._listener = listener
        self._accept_thread = threading.Thread(target=self._accept_loop,
                                               name=f"adbd-accept-{self.port}", daemon=True)
        self._accept_thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Close the listener and every transport, and join all threads."""
        self._stopping.set()
        listener = self._listener
        if listener is not None:
            try:
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                logger.debug("listener shutdown: not connected")
        self.drop_transports()
        deadline = time.monotonic() + timeout
        if self._accept_thread is not None:
            self._accept_thread.join(max(0.0, deadline - time.monotonic()))
        while True:
            with self._lock:
                threads = [t for t in self._threads if t is not threading.current_thread()]
            if not threads or time.monotonic() >= deadline:
                break
            if threads[0].ident is None:  # registered by _spawn, not started yet
                time.sleep(0.005)
                continue
            threads[0].join(max(0.0, deadline - time.monotonic()))
        if threads:
            logger.warning("adbd stop: %d thread(s) still running: %s", len(threads),
                           [t.name for t in threads])

    def drop_transports(self) -> None:
        """Fault injection: cut every live host connection now."""
        with self._lock:
            transports = list(self._transports)
        for transport in transports:
            transport.drop()

    def active_streams(self) -> int:
        with self._lock:
            transports = list(self._transports)
        return sum(t.stream_count() for t in transports)

    def transport_count(self) -> int:
        with self._lock:
            return len(self._transports)

    def __enter__(self) -> AdbdServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    # -- internals ---------------------------------------------------------------------------
    def _spawn(self, target: Callable[[], None], name: str) -> threading.Thread:
        def run() -> None:
            try:
                target()
            finally:
                with self._lock:
                    self._threads.discard(thread)

        thread = threading.Thread(target=run, name=name, daemon=True)
        with self._lock:
            self._threads.add(thread)
        thread.start()
        return thread

    def _accept_loop(self) -> None:
        listener = self._listener
        assert listener is not None
        try:
            while not self._stopping.is_set():
                try:
                    conn, peer = listener.accept()
                except TimeoutError:
                    continue
                except OSError as exc:
                    if not self._stopping.is_set():
                        logger.warning("accept failed: %s", exc)
                    break
                self._admit(conn, peer)
        finally:
            listener.close()

    def _admit(self, conn: socket.socket, peer: tuple[str, int]) -> None:
        if self._stopping.is_set() or not self.backend.online:
            logger.info("refusing connection from %s: %s", peer,
                        "stopping" if self._stopping.is_set() else "device offline")
            conn.close()
            return
        conn.setblocking(True)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        transport = AdbTransport(conn, self.backend, self._spawn, self._transport_may_run)
        with self._lock:
            self._transports.add(transport)

        def serve() -> None:
            try:
                transport.serve()
            finally:
                with self._lock:
                    self._transports.discard(transport)

        self._spawn(serve, f"adbd-transport-{peer[1]}")
        logger.debug("transport from %s", peer)

    def _transport_may_run(self) -> bool:
        return not self._stopping.is_set() and self.backend.online


_TYPED = re.compile(r"(input text |--es msg )('(?:[^']|'\\'')*'|\S+)")


def _without_typed_text(service: str) -> str:
    """``service`` with what it types left out: a phone does not log its user's keystrokes
    (a password among them)."""
    return _TYPED.sub(lambda m: f"{m.group(1)}<{len(m.group(2))} chars>", service)
