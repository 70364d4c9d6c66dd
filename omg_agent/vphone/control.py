"""A vphone's host-side control API: state and fault injection over loopback HTTP.

``omg-agent vphone state|fault|stop`` talk to a running vphone through this small JSON
server (bound to 127.0.0.1 only). The same operations are available in-process on
:class:`~omg_agent.vphone.phone.VirtualPhone`; tests use those directly.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from omg_agent.vphone.hazards import HAZARDS

if TYPE_CHECKING:
    from omg_agent.vphone.phone import VirtualPhone

log = logging.getLogger(__name__)

FAULTS = ("drop", "offline", "latency", "crash", "anr", *HAZARDS)


def apply_fault(phone: VirtualPhone, kind: str, seconds: float = 0.0) -> str:
    """Inject one fault; returns a sentence saying what was done."""
    match kind:
        case "drop":
            phone.drop_transports()
            return "dropped all adb transports"
        case "offline":
            phone.go_offline(seconds or 5.0)
            return f"offline for {seconds or 5.0:g} s"
        case "latency":
            phone.extra_latency = max(0.0, seconds)
            return f"added {phone.extra_latency:g} s to every command"
        case "crash":
            phone.crash_foreground()
            return "crashed the foreground app"
        case "anr":
            phone.show_anr()
            return "showing an ANR dialog"
        case hazard if hazard in HAZARDS:
            phone.enable_hazard(hazard)
            return f"hazard on: {HAZARDS[hazard]}"
    raise ValueError(f"unknown fault {kind!r}; choose one of: {', '.join(FAULTS)}")


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
                        done = apply_fault(server.phone, str(body.get("kind", "")),
                                           float(body.get("seconds", 0)))
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
