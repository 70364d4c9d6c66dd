"""A Python client of the mirror, speaking to it as a browser does (the benchmark and tests).

:class:`MirrorClient` opens a one-time link (the printed one or an invite), keeps the
session cookie it gets and the tab's key from the page itself, and then sends the page's
POSTs (with the cookie, the key header and the page's Origin) and opens the frame WebSocket
(the key as a subprotocol). Nothing here reaches into the server's objects: only HTTP and
WebSocket.
"""

from __future__ import annotations

import http.client
import json
import re
from typing import Any
from urllib.parse import urlsplit

from omg_agent.errors import MirrorError
from omg_agent.hitl.security import KEY_HEADER, KEY_PROTOCOL, PROTOCOL, cookie_name

_KEY = re.compile(r'<meta name="mirror-key" content="([^"]+)">')
TIMEOUT_S = 30.0


class MirrorClient:
    def __init__(self, link: str) -> None:
        parts = urlsplit(link)
        if parts.hostname is None or parts.port is None:
            raise MirrorError(f"not a mirror link: {link!r} (expected http://HOST:PORT/?token=…)")
        self.host, self.port = parts.hostname, parts.port
        self.netloc = parts.netloc
        self.cookie = ""
        self.key = ""
        self._sign_in(f"{parts.path or '/'}?{parts.query}")

    @property
    def origin(self) -> str:
        return f"http://{self.netloc}"

    def _request(self, method: str, path: str, body: Any = None,
                 headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT_S)
        sent = {"Host": self.netloc, **(headers or {})}
        if self.cookie:
            sent["Cookie"] = f"{cookie_name(self.port)}={self.cookie}"
        if self.key:
            sent[KEY_HEADER] = self.key
        try:
            conn.request(method, path, body=None if body is None else
                         json.dumps(body).encode(), headers=sent)
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    def _sign_in(self, path: str) -> None:
        status, headers, page = self._request("GET", path)
        cookie = headers.get("set-cookie") or headers.get("Set-Cookie") or ""
        found = _KEY.search(page.decode("utf-8", "replace"))
        if status != 200 or not cookie or found is None:
            raise MirrorError(f"the link was refused ({status}): it works once")
        self.cookie = cookie.split(";", 1)[0].split("=", 1)[1]
        self.key = found.group(1)

    def post(self, path: str, body: Any = None) -> dict[str, Any]:
        """POST as the page does; the JSON reply (MirrorError when refused)."""
        status, _, data = self._request("POST", path, {} if body is None else body, {
            "Content-Type": "application/json", "Origin": self.origin})
        if status != 200:
            raise MirrorError(f"POST {path} refused ({status}): "
                              f"{data.decode('utf-8', 'replace')}")
        reply: dict[str, Any] = json.loads(data)
        return reply

    def invite(self) -> str:
        """A one-time link for another viewer."""
        return str(self.post("/api/invite")["url"])

    def tap(self, x: int, y: int) -> dict[str, Any]:
        """A click at (x, y) in the page's 0–1000 screen units."""
        return self.post("/api/act/tap", {"x": x, "y": y})

    def socket(self, open_timeout: float = TIMEOUT_S, *, video: bool = False) -> Any:
        """The frame WebSocket (a ``websockets`` sync connection; use as a context); with
        ``video``, asking for H.264 access units as a WebCodecs page does."""
        from websockets.sync.client import connect
        from websockets.typing import Origin, Subprotocol

        path = "/ws?video=h264" if video else "/ws"
        return connect(f"ws://{self.netloc}{path}", origin=Origin(self.origin),
                       additional_headers={"Cookie": f"{cookie_name(self.port)}={self.cookie}"},
                       subprotocols=[Subprotocol(PROTOCOL), Subprotocol(KEY_PROTOCOL + self.key)],
                       open_timeout=open_timeout, max_size=None)
