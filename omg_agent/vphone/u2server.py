"""The uiautomator2 device-side server, served for a VirtualPhone.

On a real phone ``app_process ... com.wetest.uia2.Main -p 9008`` starts an HTTP server inside
the device; the uiautomator2 client reaches it through adb (``tcp:9008``), checks
``GET /ping`` and then speaks JSON-RPC 2.0 on ``POST /jsonrpc/0``. Here the vphone's shell
starts a :class:`U2Server` for that command: it listens on a 127.0.0.1 host port and registers
it with ``phone.register_tcp(9008, host_port)``, so the adbd's ``tcp:9008`` service lands
here. The method table lives in ``u2rpc.py``; selector matching in ``u2select.py``.

Protocol notes: HTTP/1.1 with keep-alive and exact ``Content-Length`` (the client uses
``http.client``); JSON-RPC errors are sent with HTTP 200, as the client only parses errors
from 200 responses (any other status makes it restart the server and retry).
"""

from __future__ import annotations

import contextlib
import inspect
import json
import logging
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from omg_agent.vphone.u2rpc import INVALID_PARAMS, RpcFault, U2Methods

logger = logging.getLogger(__name__)

DEFAULT_DEVICE_PORT = 9008
SERVER_VERSION = "2.0.0-vphone"
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INTERNAL_ERROR = -32700, -32600, -32601, -32603

RpcTable = dict[str, Callable[..., Any]]


def _error(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def _call(method: Callable[..., Any], params: Any) -> Any:
    args, kwargs = (list(params), {}) if isinstance(params, list) else ([], dict(params))
    try:
        inspect.signature(method).bind(*args, **kwargs)
    except TypeError as exc:
        raise RpcFault(INVALID_PARAMS, f"Invalid params: {exc}") from exc
    return method(*args, **kwargs)


def handle_jsonrpc(body: bytes, table: RpcTable) -> dict[str, Any]:
    """One JSON-RPC 2.0 request body in, one response object out (never raises)."""
    try:
        request = json.loads(body)
    except (UnicodeDecodeError, ValueError):
        return _error(None, PARSE_ERROR, "Parse error")
    if not isinstance(request, dict):
        return _error(None, INVALID_REQUEST, "Invalid Request")
    request_id = request.get("id")
    name = request.get("method")
    params = request.get("params")
    if params is None:
        params = []
    if not isinstance(name, str) or not isinstance(params, list | dict):
        return _error(request_id, INVALID_REQUEST, "Invalid Request")
    method = table.get(name)
    if method is None:
        return _error(request_id, METHOD_NOT_FOUND, f"Method not found: {name}")
    try:
        result = _call(method, params)
    except RpcFault as fault:
        return _error(request_id, fault.code, fault.message, fault.data)
    except Exception as exc:  # the RPC boundary: every failure goes back to the client
        logger.exception("u2 rpc %s failed", name)
        return _error(request_id, INTERNAL_ERROR,
                      f"java.lang.RuntimeException: {type(exc).__name__}: {exc}")
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "u2-vphone"
    server: _HttpServer

    def do_GET(self) -> None:  # named by http.server
        path = self.path.split("?", 1)[0]
        if path == "/ping":
            self._reply(200, b"pong", "text/plain; charset=utf-8")
        elif path == "/info":
            self._reply_json(self.server.info())
        else:
            self._reply(404, b"Not Found", "text/plain; charset=utf-8")

    def do_POST(self) -> None:
        body = self._read_body()
        if body is None:
            return
        if self.path.split("?", 1)[0].rstrip("/") != "/jsonrpc/0":
            self._reply(404, b"Not Found", "text/plain; charset=utf-8")
            return
        self._reply_json(handle_jsonrpc(body, self.server.table))

    def _read_body(self) -> bytes | None:
        length = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            self.close_connection = True
            self._reply(411, b"Length Required", "text/plain; charset=utf-8")
            return None
        try:
            size = int(length) if length is not None else 0
        except ValueError:
            self.close_connection = True
            self._reply(400, b"Bad Content-Length", "text/plain; charset=utf-8")
            return None
        return self.rfile.read(size) if size > 0 else b""

    def _reply_json(self, payload: Any) -> None:
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self._reply(200, body, "application/json; charset=utf-8")

    def _reply(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # base class signature
        logger.debug("u2 http %s: " + format, self.address_string(), *args)


class _HttpServer(ThreadingHTTPServer):
    """A threaded HTTP server that can cut its open keep-alive connections on stop."""

    daemon_threads = True

    def __init__(self, table: RpcTable, info: Callable[[], dict[str, Any]]) -> None:
        self.table = table
        self.info = info
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def cut_connections(self) -> None:
        with self._open_lock:
            sockets = list(self._open)
        for sock in sockets:
            with contextlib.suppress(OSError):  # the peer may have closed it already
                sock.shutdown(socket.SHUT_RDWR)


class U2Server:
    """uiautomator2's on-device server for one VirtualPhone; start/stop as app_process does."""

    def __init__(self, phone: Any) -> None:
        self._phone = phone
        self._stopping = threading.Event()
        self._methods = U2Methods(phone, self._stopping)
        self._lock = threading.Lock()
        self._httpd: _HttpServer | None = None
        self._thread: threading.Thread | None = None
        self._device_port: int | None = None

    @property
    def running(self) -> bool:
        return self._httpd is not None

    @property
    def host_port(self) -> int | None:
        return self._httpd.server_address[1] if self._httpd is not None else None

    @property
    def device_port(self) -> int | None:
        return self._device_port

    def start(self, device_port: int = DEFAULT_DEVICE_PORT) -> int:
        """Serve on 127.0.0.1 as the phone's ``tcp:device_port``; return the host port."""
        with self._lock:
            if self._httpd is not None:
                raise RuntimeError(f"u2 server already running on device port {self._device_port}")
            self._stopping.clear()
            httpd = _HttpServer(self._table(), self._info)
            thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.1},
                                      name=f"u2server-{device_port}", daemon=True)
            thread.start()
            host_port = httpd.server_address[1]
            try:
                self._phone.register_tcp(device_port, host_port)
            except BaseException:
                self._close(httpd, thread)
                raise
            self._httpd, self._thread, self._device_port = httpd, thread, device_port
        logger.info("u2 server: device tcp:%d -> 127.0.0.1:%d", device_port, host_port)
        return host_port

    def stop(self) -> None:
        """Unregister, stop serving, cut open connections and join every thread (idempotent)."""
        with self._lock:
            httpd, thread, port = self._httpd, self._thread, self._device_port
            self._httpd = self._thread = self._device_port = None
        if httpd is None or thread is None:
            return
        self._phone.unregister_tcp(port)
        self._stopping.set()
        self._close(httpd, thread)
        logger.info("u2 server on device tcp:%s stopped", port)

    def __enter__(self) -> U2Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @staticmethod
    def _close(httpd: _HttpServer, thread: threading.Thread) -> None:
        httpd.shutdown()
        thread.join()
        httpd.cut_connections()
        httpd.server_close()  # joins the request threads

    def _table(self) -> RpcTable:
        table = self._methods.table()

        def latency_wrapped(method: Callable[..., Any]) -> Callable[..., Any]:
            def call(*args: Any, **kwargs: Any) -> Any:
                self._methods.pay_latency("shell")
                return method(*args, **kwargs)

            call.__signature__ = inspect.signature(method)  # type: ignore[attr-defined]
            return call

        return {name: latency_wrapped(method) for name, method in table.items()}

    def _info(self) -> dict[str, Any]:
        profile = self._phone.profile
        return {
            "version": SERVER_VERSION,
            "serial": profile.serialno,
            "brand": profile.brand,
            "model": profile.model,
            "sdkInt": profile.sdk,
            "release": profile.release,
            "display": {"width": profile.width, "height": profile.height,
                        "density": profile.density},
            "port": self._device_port,
        }
