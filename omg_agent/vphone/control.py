"""A vphone's host-side control API: state and fault injection over loopback HTTP.

``omg-agent vphone state|fault|stop`` talk to a running vphone through this small JSON
server (bound to 127.0.0.1 only). The same operations are available in-process on
:class:`~omg_agent.vphone.phone.VirtualPhone`; tests use those directly.
"""

from __future__ import annotations

import json
import logging
import random
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from omg_agent.vphone.faults import FAULTS, apply_fault, inject_later

if TYPE_CHECKING:
    from omg_agent.vphone.phone import VirtualPhone

log = logging.getLogger(__name__)

__all__ = ["FAULTS", "ControlServer", "apply_fault"]


def fault_request(phone: VirtualPhone, body: dict) -> str:
    """A ``POST /fault`` body: ``kind``, optional ``seconds`` (duration), ``at`` (delay, s)
    or ``within`` (a random moment in that many seconds, ``seed`` for the draw), ``pin``,
    ``adb_port``. Returns what was (or will be) done; ``ValueError`` names a bad field."""
    try:
        kind = str(body.get("kind", ""))
        seconds = float(body.get("seconds") or 0)
        at = None if body.get("at") is None else float(body["at"])
        within = None if body.get("within") is None else float(body["within"])
        seed = body.get("seed")
        port = None if body.get("adb_port") is None else int(body["adb_port"])
    except (TypeError, ValueError) as exc:
        raise ValueError(f"bad fault request ({exc}); fields: kind, seconds, at, within, "
                         "seed, pin, adb_port") from None
    pin = body.get("pin")
    rng = random.Random(seed) if seed is not None else random.Random()
    if at is None and within is None:
        return apply_fault(phone, kind, seconds, adb_port=port,
                           pin=None if pin is None else str(pin))
    injection = inject_later(phone, kind, seconds=seconds, at=at, within=within, rng=rng,
                             adb_port=port, pin=None if pin is None else str(pin))
    return injection.done or f"{kind} scheduled in {injection.at_s:.2f} s"


class ControlServer:
    def __init__(self, phone: VirtualPhone, on_stop: Callable[[], None]) -> None:
        self.phone = phone
        self.on_stop = on_stop
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, name="vphone-control",
                                        daemon=True)

    @property
    def port(self) -> int:
        return self._http.server_address[1]

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=5)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, fmt: str, *args: Any) -> None:
                log.debug("control: " + fmt, *args)

            def _reply(self, code: int, body: dict) -> None:
                data = json.dumps(body, ensure_ascii=False).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 - http.server naming
                if self.path == "/state":
                    self._reply(200, server.phone.state())
                else:
                    self._reply(404, {"error": f"no such path {self.path}"})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError as exc:
                    self._reply(400, {"error": f"body is not JSON: {exc}"})
                    return
                if self.path == "/fault":
                    try:
                        done = fault_request(server.phone, body)
                    except ValueError as exc:
                        self._reply(400, {"error": str(exc)})
                        return
                    self._reply(200, {"ok": True, "done": done})
                elif self.path == "/stop":
                    self._reply(200, {"ok": True})
                    threading.Thread(target=server.on_stop, daemon=True).start()
                else:
                    self._reply(404, {"error": f"no such path {self.path}"})

        return Handler
