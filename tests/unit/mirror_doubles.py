"""Doubles for the mirror's tests: a phone behind the Driver interface (screenshot +
execute) and an HTTP/WebSocket client that sends exactly the headers a test chooses."""

from __future__ import annotations

import http.client
import json
import re
from dataclasses import dataclass, field
from typing import Any

import anyio
from PIL import Image
from websockets.sync.client import connect

from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers.base import ActionOutcome, ExecResult
from omg_agent.hitl.security import KEY_HEADER, KEY_PROTOCOL, PROTOCOL, cookie_name
from omg_agent.hitl.server import Mirror

_KEY = re.compile(r'<meta name="mirror-key" content="([^"]*)">')


@dataclass
class PhoneDouble:
    shade: int = 100
    executed: list[Any] = field(default_factory=list)

    def screenshot(self) -> tuple[Image.Image, bytes]:
        image = Image.new("RGB", (108, 240), (self.shade, 120, 140))
        return image, image.tobytes()

    def observe(self, *, ocr: bool = False) -> Observation:
        """A login screen: a user field and a password field holding "hunter2"."""
        image, _ = self.screenshot()
        user = UIElement(id=1, cls="android.widget.EditText", role="input",
                         bounds=Bounds(10, 40, 98, 60), text="demo", editable=True,
                         resource_id="com.omg.login:id/user")
        password = UIElement(id=2, cls="android.widget.EditText", role="input",
                             bounds=Bounds(10, 80, 98, 100), text="hunter2", editable=True,
                             password=True, resource_id="com.omg.login:id/password")
        return Observation(screenshot=image, elements=(user, password),
                           package="com.omg.login", activity=".Login", screen_hash="login")

    def execute(self, actions, observation=None, *, review=None) -> ExecResult:
        self.executed.extend(actions)
        return ExecResult(tuple(ActionOutcome(i, a, True) for i, a in enumerate(actions)))


@dataclass
class Client:
    """One browser tab: the cookie and the key it got from its one-time link. ``key`` on a
    request: True sends its own key, False none, a string that string."""

    mirror: Mirror
    cookie: str = ""
    key: str = ""

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.mirror.session.port}"

    @property
    def cookie_header(self) -> str:
        return f"{cookie_name(self.mirror.session.port)}={self.cookie}"

    def request(self, method: str, path: str, *, body: Any = None, headers=None,
                cookie: bool = True, key: str | bool = True) -> http.client.HTTPResponse:
        conn = http.client.HTTPConnection("127.0.0.1", self.mirror.session.port, timeout=10)
        sent = {"Host": self.host, **(headers or {})}
        if cookie and self.cookie:
            sent["Cookie"] = self.cookie_header
        if key is not False and (key is not True or self.key):
            sent[KEY_HEADER] = self.key if key is True else key
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers=sent)
        response = conn.getresponse()
        response.data = response.read()  # type: ignore[attr-defined]
        conn.close()
        return response

    def sign_in(self, url: str | None = None) -> http.client.HTTPResponse:
        """Open a one-time link (default: the printed one) as a browser tab does: keep the
        cookie it sets and the key in the page."""
        path = (url or self.mirror.url).split(str(self.mirror.session.port), 1)[1]
        response = self.request("GET", path, key=False)
        set_cookie = response.getheader("Set-Cookie") or ""
        if set_cookie:
            self.cookie = set_cookie.split(";", 1)[0].split("=", 1)[1]
        found = _KEY.search(response.data.decode("utf-8", "replace"))  # type: ignore[attr-defined]
        self.key = found.group(1) if found else ""
        return response

    def post(self, path: str, body: Any, **kw: Any) -> http.client.HTTPResponse:
        headers = {"Content-Type": "application/json", **kw.pop("headers", {})}
        return self.request("POST", path, body=body, headers=headers, **kw)

    def socket(self, origin: str | None = None, cookie: bool = True, key: str | bool = True,
               path: str = "/ws", protocols: list[str] | None = None):
        headers = {"Cookie": self.cookie_header} if cookie else {}
        if protocols is None:
            protocols = [PROTOCOL]
            if key is not False:
                protocols.append(KEY_PROTOCOL + (self.key if key is True else key))
        return connect(f"ws://{self.host}{path}", origin=origin or f"http://{self.host}",
                       additional_headers=headers, subprotocols=protocols, open_timeout=10)


def asgi_call(app: Any, method: str, target: str, headers: list[tuple[bytes, bytes]],
              body: bytes = b"") -> tuple[int, dict[bytes, bytes], bytes]:
    """One HTTP request handed straight to an ASGI ``app`` (no server in between, so any
    input reaches it, and an exception in it is raised here): status, headers, body."""
    path, _, query = target.partition("?")
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": method, "scheme": "http", "path": path,
             "raw_path": path.encode("utf-8", "surrogatepass"),
             "query_string": query.encode("utf-8", "surrogatepass"), "root_path": "",
             "headers": headers, "client": ("127.0.0.1", 50000),
             "server": ("127.0.0.1", 80)}
    replies: list[dict[str, Any]] = []

    async def run() -> None:
        delivered = False

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if delivered:
                return {"type": "http.disconnect"}
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            replies.append(message)

        await app(scope, receive, send)

    anyio.run(run)
    start = next(m for m in replies if m["type"] == "http.response.start")
    data = b"".join(m.get("body", b"") for m in replies if m["type"] == "http.response.body")
    return start["status"], dict(start["headers"]), data
