"""Who may see and drive the mirror.

A mirror drives a phone, so by default only this machine's user reaches it:

* it binds a loopback address; any other needs ``allow_remote`` (and prints a warning);
* a random one-time token, printed once in the URL, signs one browser tab in. The answer to
  that one request carries two credentials: an HttpOnly, SameSite=Strict cookie named after
  the port (``omg_mirror_<port>``) and a *key* in the page, which the page keeps in its
  tab's ``sessionStorage`` (scoped to this origin, port included) and sends on every request
  (the ``X-Mirror-Key`` header; for the WebSocket, a ``Sec-WebSocket-Protocol`` entry).
  Browsers send cookies to every port of a host, so a page another local program serves
  may receive the cookie: alone it is worth nothing (401 everywhere), and the page a cookie
  alone can load (``GET /``) holds no key. A reload keeps the key (same tab); a new tab needs
  a new link ("Invite another viewer");
* after the first load a token in a query string is refused (it may sit in a history or a
  log); the Host header must name this server (DNS rebinding); a POST's or WebSocket's Origin
  must be this server's own; no CORS header is ever sent (so no other origin can send the
  key header).
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import threading
from dataclasses import dataclass, field

from omg_agent.errors import MirrorError

COOKIE_PREFIX = "omg_mirror_"
KEY_HEADER = "x-mirror-key"
PROTOCOL = "omg-mirror"  # the WebSocket subprotocol the server answers with
KEY_PROTOCOL = "omg-mirror-key."  # + the key: how a WebSocket presents it (no headers there)
MAX_VIEWERS = 5  # browser tabs signed in to one mirror
LOOPBACK_NAMES = ("localhost",)
_TERMINAL = ("the printed link", "a new link from the terminal")  # who made a link


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


def cookie_name(port: int) -> str:
    """The session cookie's name for the mirror on ``port`` (two mirrors: two cookies)."""
    return f"{COOKIE_PREFIX}{port}"


def _same(a: str | None, b: str) -> bool:
    return a is not None and hmac.compare_digest(a.encode(), b.encode())


def key_of_protocols(offered: list[str]) -> str | None:
    """The key a WebSocket offers among its subprotocols, if it offers ours."""
    if PROTOCOL not in offered:
        return None
    return next((p[len(KEY_PROTOCOL):] for p in offered if p.startswith(KEY_PROTOCOL)), None)


@dataclass(frozen=True)
class Viewer:
    """One signed-in browser tab: its browser's cookie, its own key, and the names the audit
    log gives it (its number, and ``session``: a random id that is not a secret) with the
    link it came in by."""

    number: int
    cookie: str
    key: str
    session: str
    via: str


@dataclass
class MirrorSession:
    """The secrets of one mirror session and the checks made with them.

    Each link (the printed one, or one a signed-in viewer invites) works once and signs one
    tab in; at most :data:`MAX_VIEWERS`. Tabs of one browser share its cookie, each has its
    own key. One viewer has control (drives the phone and answers the agent) at a time: the
    first, until another takes it.
    """

    host: str
    port: int
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._links = {self.token: _TERMINAL[0]}  # tokens not used yet → who made them
        self._viewers: list[Viewer] = []
        self.controller: Viewer | None = None
        names = {self.host, "127.0.0.1", "localhost"} if is_loopback(self.host) else {self.host}
        if ":" in self.host and not self.host.startswith("["):
            names = {f"[{n}]" if ":" in n else n for n in names}
        self.hosts = frozenset(f"{n}:{self.port}" for n in names)
        self.origins = frozenset(f"http://{h}" for h in self.hosts)
        self.cookie_name = cookie_name(self.port)

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

    def invite(self, by: Viewer | None = None) -> str | None:
        """A new one-time link for another tab or browser; ``None`` when
        :data:`MAX_VIEWERS` are signed in or invited already."""
        with self._lock:
            if len(self._viewers) + len(self._links) >= MAX_VIEWERS:
                return None
            token = secrets.token_urlsafe(24)
            self._links[token] = f"an invite by viewer {by.number}" if by else "an invite"
            return self.link(token)

    def fresh_link(self) -> str | None:
        """A new one-time link for the user at the terminal (the printed one was opened by
        something else, or in a browser since closed). Links made at the terminal and not
        used yet stop working: only the newest is live. ``None`` when :data:`MAX_VIEWERS`
        are signed in or invited already."""
        with self._lock:
            for token in [t for t, by in self._links.items() if by in _TERMINAL]:
                del self._links[token]
            if len(self._viewers) + len(self._links) >= MAX_VIEWERS:
                return None
            token = secrets.token_urlsafe(24)
            self._links[token] = _TERMINAL[1]
            return self.link(token)

    def redeem(self, token: str | None, cookie: str | None = None) -> Viewer | None:
        """A link's token, accepted once: it becomes a viewer with its own key. A browser
        that is signed in already (``cookie``) keeps its cookie, so its other tabs go on."""
        with self._lock:
            match = next((t for t in self._links if _same(token, t)), None)
            if match is None:
                return None
            via = self._links.pop(match)
            known = self.browser(cookie)
            viewer = Viewer(len(self._viewers) + 1,
                            known.cookie if known else secrets.token_urlsafe(32),
                            secrets.token_urlsafe(32), secrets.token_hex(4), via)
            self._viewers.append(viewer)
            if self.controller is None:
                self.controller = viewer
            return viewer

    def browser(self, cookie: str | None) -> Viewer | None:
        """The first viewer of the browser holding ``cookie``: enough to load the page
        (which holds no key), never to see or drive the phone."""
        return next((v for v in self._viewers if _same(cookie, v.cookie)), None)

    def viewer(self, cookie: str | None, key: str | None) -> Viewer | None:
        """The viewer presenting both its browser's cookie and its tab's key."""
        found = next((v for v in self._viewers if _same(key, v.key)), None)
        return found if found is not None and _same(cookie, found.cookie) else None

    def take_control(self, viewer: Viewer) -> None:
        with self._lock:
            self.controller = viewer

    def controls(self, viewer: Viewer) -> bool:
        return self.controller is viewer

    def host_ok(self, host: str | None) -> bool:
        return host is not None and host.lower() in self.hosts

    def origin_ok(self, origin: str | None) -> bool:
        return origin is not None and origin.lower() in self.origins

    def set_cookie_header(self, viewer: Viewer) -> str:
        return f"{self.cookie_name}={viewer.cookie}; Path=/; HttpOnly; SameSite=Strict"
