"""The vphone's adbd: a TCP server speaking the device side of the ADB transport protocol.

``adb connect 127.0.0.1:<port>`` makes the adb server open a TCP connection here; each
connection is a transport (CNXN handshake, then streams opened by OPEN): ``adbtransport.py``.
Services behind the streams live in ``adbservices.py`` and ``sync_service.py``; framing in
``adbwire.py``.

Threads: one accept thread per server, one reader thread per transport, one (tcp: two)
per open stream. All of them end when their connection or stream ends; ``stop()`` closes
everything and joins them. Writes to a transport's socket go through one lock.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable
from types import TracebackType

from omg_agent.vphone.adbtransport import POLL_INTERVAL, AdbTransport
from omg_agent.vphone.adbtransport import AdbdBackend as AdbdBackend  # re-exported
from omg_agent.vphone.adbtransport import Spawn as Spawn

logger = logging.getLogger(__name__)

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
