"""Doubles for the mirror's tests: a phone behind the Driver interface (screenshot +
execute) and an HTTP/WebSocket client that sends exactly the headers a test chooses."""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass, field
from typing import Any

from PIL import Image
from websockets.sync.client import connect

from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers.base import ActionOutcome, ExecResult
from omg_agent.hitl.security import COOKIE
from omg_agent.hitl.server import Mirror


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

    def execute(self, actions, observation=None) -> ExecResult:
        self.executed.extend(actions)
        return ExecResult(tuple(ActionOutcome(i, a, True) for i, a in enumerate(actions)))


@dataclass
class Client:
    mirror: Mirror
    cookie: str = ""

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.mirror.session.port}"

    def request(self, method: str, path: str, *, body: Any = None, headers=None,
                cookie: bool = True) -> http.client.HTTPResponse:
        conn = http.client.HTTPConnection("127.0.0.1", self.mirror.session.port, timeout=10)
        sent = {"Host": self.host, **(headers or {})}
        if cookie and self.cookie:
            sent["Cookie"] = f"{COOKIE}={self.cookie}"
        data = json.dumps(body).encode() if body is not None else None
        conn.request(method, path, body=data, headers=sent)
        response = conn.getresponse()
        response.read()
        conn.close()
        return response

    @property
    def csrf(self) -> str:
        viewer = self.mirror.session.viewer(self.cookie)
        assert viewer is not None, "not signed in"
        return viewer.csrf

    def sign_in(self, url: str | None = None) -> http.client.HTTPResponse:
        """Open a one-time link (default: the printed one) and keep the cookie it sets."""
        path = (url or self.mirror.url).split(str(self.mirror.session.port), 1)[1]
        response = self.request("GET", path, cookie=False)
        set_cookie = response.getheader("Set-Cookie") or ""
        self.cookie = set_cookie.split(";", 1)[0].split("=", 1)[1] if set_cookie else ""
        return response

    def post(self, path: str, body: Any, *, csrf: str | None = None, **kw: Any):
        headers = {"Content-Type": "application/json", **kw.pop("headers", {})}
        if csrf is not None:
            headers["X-CSRF-Token"] = csrf
        return self.request("POST", path, body=body, headers=headers, **kw)

    def socket(self, origin: str | None = None, cookie: bool = True, path: str = "/ws"):
        headers = {"Cookie": f"{COOKIE}={self.cookie}"} if cookie else {}
        return connect(f"ws://{self.host}{path}", origin=origin or f"http://{self.host}",
                       additional_headers=headers, open_timeout=10)
