"""JSON-RPC to the uiautomator2 device server, one short adb stream per call.

The u2 server listens on the phone's ``tcp:9008``; the uiautomator2 client reaches it with
``http.client`` over an adb stream. Measured on vphone, that costs ~56 ms per call whatever
the method (``deviceInfo`` included): ``http.client`` sends the headers and the body in two
writes, Nagle holds the second until the first is acknowledged, and the adb server delays
that ACK (~40 ms). Here a call is one request, composed by hand and sent in one write on a
``TCP_NODELAY`` socket: ``host:transport:<serial>``, ``tcp:9008``, ``POST /jsonrpc/0`` with
``Connection: close``, then the response read to EOF in big chunks — ~2 ms per call on
vphone. A fresh stream per call (instead of keep-alive) also keeps concurrent calls
independent (``observe`` dumps and screenshots at once) and dodges delayed ACKs on reused
connections, which measured ~43 ms again.

The uiautomator2 client still starts and restarts the server; this module only talks to it.
"""

from __future__ import annotations

import itertools
import json
import logging
import socket
from typing import Any

import adbutils
from adbutils.errors import AdbError

from omg_agent.drivers.adberrors import adb_error
from omg_agent.errors import DeviceError, U2RpcError, U2ServerGone

log = logging.getLogger(__name__)

DEVICE_PORT = 9008
CHUNK = 1 << 20


class U2Wire:
    """Calls to one device's u2 server; thread-safe (each call has its own stream)."""

    def __init__(self, client: adbutils.AdbClient, serial: str, *,
                 port: int = DEVICE_PORT, timeout: float = 30.0) -> None:
        self.client = client
        self.serial = serial
        self.port = port
        self.timeout = timeout
        self._ids = itertools.count(1)

    def call(self, method: str, *params: Any, timeout: float | None = None) -> Any:
        body = json.dumps({"jsonrpc": "2.0", "id": next(self._ids), "method": method,
                           "params": list(params)}, ensure_ascii=False).encode("utf-8")
        head = (f"POST /jsonrpc/0 HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                "User-Agent: omg-agent\r\nAccept-Encoding: identity\r\n"
                "Content-Type: application/json\r\nConnection: close\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode("ascii")
        reply = self._exchange(head + body, method, timeout or self.timeout)
        return self._result(reply, method)

    def _exchange(self, request: bytes, method: str, timeout: float) -> bytes:
        try:
            conn = self.client.make_connection(timeout=timeout)
        except AdbError as e:
            raise DeviceError(f"adb server unreachable: {e}", serial=self.serial,
                              command=method) from None
        sock = conn.conn
        try:
            for service in (f"host:transport:{self.serial}", f"tcp:{self.port}"):
                conn.send_command(service)
                conn.check_okay()
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.settimeout(timeout)
            sock.sendall(request)
            chunks = []
            while chunk := sock.recv(CHUNK):
                chunks.append(chunk)
            return b"".join(chunks)
        except (AdbError, OSError) as e:  # a closed stream: the server is not listening
            raise adb_error(e, serial=self.serial, command=method, prefix="u2 server: ",
                            stream=U2ServerGone) from None
        finally:
            sock.close()  # before conn.close(): it then skips its 10 ms shutdown sleep
            conn.close()

    def _result(self, reply: bytes, method: str) -> Any:
        head, sep, body = reply.partition(b"\r\n\r\n")
        status_line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = status_line.split()
        if not sep or len(parts) < 2 or not parts[0].startswith("HTTP/"):
            raise U2ServerGone(f"u2 server sent no HTTP answer ({len(reply)} bytes)",
                               serial=self.serial, command=method)
        if parts[1] != "200":
            raise U2ServerGone(f"u2 server answered {status_line!r}", serial=self.serial,
                               command=method)
        if b"transfer-encoding: chunked" in head.lower():
            body = _dechunk(body)
        try:
            payload = json.loads(body)
        except ValueError:
            raise DeviceError(f"u2 server sent invalid JSON ({len(body)} bytes)",
                              serial=self.serial, command=method) from None
        error = payload.get("error") if isinstance(payload, dict) else None
        if error:
            message = str(error.get("message") or error)
            raise U2RpcError(f"u2 {method}: {message[:300]}", code=int(error.get("code", 0)),
                             serial=self.serial, command=method)
        return payload.get("result") if isinstance(payload, dict) else None


def _dechunk(data: bytes) -> bytes:
    """The body of an HTTP/1.1 chunked transfer."""
    out, pos = bytearray(), 0
    while True:
        end = data.find(b"\r\n", pos)
        if end < 0:
            return bytes(out)
        size = int(data[pos:end].split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:
            return bytes(out)
        out += data[end + 2:end + 2 + size]
        pos = end + 2 + size + 2
