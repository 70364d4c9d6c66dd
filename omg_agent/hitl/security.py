"""Who may see and drive the mirror.

A mirror drives a phone, so by default only this machine's user reaches it:

* it binds a loopback address; any other needs ``allow_remote`` (and prints a warning);
* a random per-session token, printed once in the URL, is traded on the first page load for
  an HttpOnly, SameSite=Strict session cookie; after that a token in a query string is
  refused (it may sit in a history or a log);
* the Host header must name this server (DNS rebinding), a WebSocket's Origin must be this
  server's own, a POST carries the page's CSRF token in a header, and no CORS header is
  ever sent.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import threading
from dataclasses import dataclass, field

from omg_agent.errors import OmgError

COOKIE = "omg_mirror"
CSRF_HEADER = "x-csrf-token"
MAX_VIEWERS = 5  # browsers signed in to one mirror
LOOPBACK_NAMES = ("localhost",)


class MirrorError(OmgError):
    """The mirror cannot start as asked (an address it may not bind, a port in use)."""


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, allow_remote: bool) -> str | None:
    """``None`` for a loopback address; for another, a warning to print when
    ``allow_remote``, else :class:`MirrorError`."""
    if is_loopback(host):
        return None
    if not allow_remote:
        raise MirrorError(f"refusing to bind the mirror to {host}: it would let anyone on that "
                          "network watch and drive the phone; bind 127.0.0.1 (the default) "
                          "or pass --allow-remote")
    return (f"WARNING: the mirror listens on {host}: anyone who can reach it and has the "
            "link can watch and drive the phone")


def _same(a: str | None, b: str) -> bool:
    return a is not None and hmac.compare_digest(a.encode(), b.encode())


@dataclass(frozen=True)
class Viewer:
    """One signed-in browser: its cookie and its own CSRF token."""

    number: int
    cookie: str
    csrf: str


@dataclass
class MirrorSession:
    """The secrets of one mirror session and the checks made with them.

    Each link (the printed one, or one a signed-in viewer invites) works once and signs one
    browser in; at most :data:`MAX_VIEWERS` browsers. One of them has control (drives the
    phone and answers the agent) at a time: the first, until another takes it.
    """

    host: str
    port: int
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._links = [self.token]  # tokens not used yet
        self._viewers: list[Viewer] = []
        self.controller: Viewer | None = None
        names = {self.host, "127.0.0.1", "localhost"} if is_loopback(self.host) else {self.host}
        if ":" in self.host and not self.host.startswith("["):
            names = {f"[{n}]" if ":" in n else n for n in names}
        self.hosts = frozenset(f"{n}:{self.port}" for n in names)
        self.origins = frozenset(f"http://{h}" for h in self.hosts)

    def link(self, token: str) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/?token={token}"

    @property
    def url(self) -> str:
        """The link printed once: the only place the first token appears."""
        return self.link(self.token)

    @property
    def redeemed(self) -> bool:
        return self.token not in self._links

    def invite(self) -> str | None:
        """A new one-time link for another browser; ``None`` when :data:`MAX_VIEWERS`
        are signed in or invited already."""
        with self._lock:
            if len(self._viewers) + len(self._links) >= MAX_VIEWERS:
                return None
            token = secrets.token_urlsafe(24)
            self._links.append(token)
            return self.link(token)

    def redeem(self, token: str | None) -> Viewer | None:
        """A link's token, accepted once: it becomes a viewer with its own cookie."""
        with self._lock:
            match = next((t for t in self._links if _same(token, t)), None)
            if match is None:
                return None
            self._links.remove(match)
            viewer = Viewer(len(self._viewers) + 1, secrets.token_urlsafe(32),
                            secrets.token_urlsafe(24))
            self._viewers.append(viewer)
            if self.controller is None:
                self.controller = viewer
            return viewer

    def viewer(self, cookie: str | None) -> Viewer | None:
        return next((v for v in self._viewers if _same(cookie, v.cookie)), None)

    def take_control(self, viewer: Viewer) -> None:
        with self._lock:
            self.controller = viewer

    def controls(self, viewer: Viewer) -> bool:
        return self.controller is viewer

    def host_ok(self, host: str | None) -> bool:
        return host is not None and host.lower() in self.hosts

    def origin_ok(self, origin: str | None) -> bool:
        return origin is not None and origin.lower() in self.origins

    @staticmethod
    def csrf_ok(viewer: Viewer, value: str | None) -> bool:
        return _same(value, viewer.csrf)

    @staticmethod
    def set_cookie_header(viewer: Viewer) -> str:
        return f"{COOKIE}={viewer.cookie}; Path=/; HttpOnly; SameSite=Strict"
