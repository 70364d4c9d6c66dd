"""``omg-agent mcp --http``: the MCP server over streamable HTTP, on loopback only, behind a
bearer token (issue 28).

Anyone on the machine can reach a loopback port, and a web page can make a browser post to
one; so every request must carry ``Authorization: Bearer TOKEN`` (compared in constant
time; 401 otherwise), and a request with an ``Origin`` header is refused (403) unless the
origin is this server's own. The token is ``mcp_token`` from the settings
(``OMG_MCP_TOKEN``) or a new one, printed once at start.
"""

from __future__ import annotations

import hmac
import json
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from mcp.server import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
                   Awaitable[None]]
HOSTS = ("127.0.0.1", "localhost")


def new_token() -> str:
    return secrets.token_urlsafe(32)


def origins(port: int) -> list[str]:
    return [f"http://{host}:{port}" for host in HOSTS]


class TokenGuard:
    """ASGI middleware: a foreign Origin is refused (403), then a missing or wrong bearer
    token (401); everything else reaches ``app``."""

    def __init__(self, app: ASGIApp, token: str, allowed_origins: list[str]) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()
        self.allowed = {o.encode() for o in allowed_origins}

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or ())
        origin = headers.get(b"origin")
        if origin is not None and origin not in self.allowed:
            await _refuse(send, 403, "foreign Origin: this server answers its own page only")
            return
        given = headers.get(b"authorization", b"")
        if not hmac.compare_digest(given, self.expected):
            await _refuse(send, 401, "missing or wrong token: send Authorization: Bearer "
                                     "TOKEN (printed at start, or OMG_MCP_TOKEN)")
            return
        await self.app(scope, receive, send)


async def _refuse(send: Any, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def http_app(server: MCPServer, token: str, port: int) -> ASGIApp:
    """The server's streamable HTTP app at ``/mcp`` behind :class:`TokenGuard` (and the
    SDK's own Host/Origin check)."""
    hosts = [f"{host}:{port}" for host in HOSTS]
    security = TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                         allowed_hosts=hosts, allowed_origins=origins(port))
    app = server.streamable_http_app(host="127.0.0.1", transport_security=security)
    return TokenGuard(app, token, origins(port))
