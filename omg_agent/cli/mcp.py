"""``omg-agent mcp``: serve the phone to an MCP client (an assistant, an IDE) — over stdio
by default, or streamable HTTP on loopback with a bearer token (``--http [PORT]``).

Thin: loads :class:`Settings`, builds :func:`omg_agent.mcp.server.build_server` and runs
it. stdout belongs to the protocol on stdio: everything this command says goes to stderr.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from typer.core import TyperCommand

from omg_agent.cli.console import err_console, fail
from omg_agent.cli.device_choice import ONLY_ONE, device_option
from omg_agent.errors import OmgError

DEFAULT_PORT = 8765
HTTP_OPTION = "--http"
APPROVE_ON = ("elicitation", "mirror")


class HttpCommand(TyperCommand):
    """``--http`` may come without its port (then :data:`DEFAULT_PORT`): typer passes no
    optional-value option through, so a bare one is rewritten before click parses it (as
    ``--wait-device`` is, :class:`omg_agent.cli.lease.WaitDeviceCommand`)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # typer's own click
        return super().parse_args(ctx, bare_http(args))


def bare_http(args: list[str]) -> list[str]:
    """``args`` with a bare ``--http`` (no port after it) given the default port."""
    out: list[str] = []
    for i, arg in enumerate(args):
        following = args[i + 1] if i + 1 < len(args) else ""
        out.append(f"{HTTP_OPTION}={DEFAULT_PORT}" if arg == HTTP_OPTION
                   and not following.isdigit() else arg)
    return out


def mcp(
    device: str | None = device_option(f"{ONLY_ONE} A tool may name another."),
    http: int | None = typer.Option(
        None, HTTP_OPTION, metavar="[PORT]", min=1, max=65535, help="Serve streamable HTTP "
        f"on 127.0.0.1:PORT (default {DEFAULT_PORT}) instead of stdio; every request needs "
        "the token (OMG_MCP_TOKEN, or the one printed at start)."),
    allow: list[str] = typer.Option([], "--allow", help="Pre-authorise a sensitive class "
                                    "(payment, delete, send, …) for this server's actions "
                                    "and runs; everything else waits for the user's yes."),
    runs_dir: Path | None = typer.Option(None, "--runs-dir", help="Where traces go."),
    approve_on: str = typer.Option(
        "elicitation", "--approve-on", metavar="elicitation|mirror", help="Where the user "
        "says yes to a sensitive action: elicitation (the client asks them — a client can "
        "also answer itself) or mirror (a page this server prints a one-time link to on "
        "stderr; the client cannot answer there)."),
) -> None:
    """Serve the phone as MCP tools: devices, observe (element list; screenshot none, jpeg
    or png), list/stop apps, tap/type/swipe/scroll/key/launch/open a URL, run a task,
    answer/approve/decline a held run, run a flow; recent runs and their summaries as
    resources. A sensitive action from the client waits for the user's yes (asked through
    the client, or on the mirror page with --approve-on mirror).

    Example: omg-agent mcp

    Example: OMG_MCP_TOKEN=… omg-agent mcp --http 8765

    Example: omg-agent mcp --approve-on mirror
    """
    from omg_agent.config import Settings
    from omg_agent.extras import require

    require("mcp", "omg-agent mcp")  # without it: the one line saying how to install it

    if approve_on not in APPROVE_ON:
        fail(f"--approve-on {approve_on!r}: give one of {', '.join(APPROVE_ON)}")
    try:
        settings = Settings.load(overrides={"runs_dir": runs_dir,
                                            "allow": ",".join(allow) or None})
    except OmgError as exc:
        fail(str(exc))
    from omg_agent.mcp.server import Hub

    hub = Hub(settings, device, approve_on="mirror" if approve_on == "mirror"
              else "elicitation")
    try:
        _serve(hub, settings, http)
    finally:
        hub.close()


def _serve(hub: Any, settings: Any, http: int | None) -> None:
    """Open the mirror the user approves on (``--approve-on mirror``), then serve ``hub``
    over stdio or streamable HTTP until the client goes."""
    from omg_agent.mcp.server import build_server

    server = build_server(hub)
    if hub.approve_on == "mirror":
        try:
            url = hub.open_mirror()
        except OmgError as exc:
            fail(str(exc))
        err_console.print("approve sensitive actions on this page (open it now, in your "
                          f"browser; the link works once): {url}", soft_wrap=True,
                          highlight=False, markup=False)
    if http is None:
        server.run()  # stdio
        return
    import uvicorn

    from omg_agent.mcp.http import http_app, new_token

    token = settings.mcp_token.get_secret_value() if settings.mcp_token else new_token()
    if settings.mcp_token is None:
        err_console.print(f"token (send as Authorization: Bearer …): {token}",
                          soft_wrap=True, highlight=False, markup=False)
    err_console.print(f"MCP over HTTP at http://127.0.0.1:{http}/mcp", highlight=False)
    uvicorn.run(http_app(server, token, http), host="127.0.0.1", port=http,
                log_level="warning")


def register(root: typer.Typer) -> None:
    """Add the ``mcp`` command to the ``omg-agent`` app."""
    root.command(name="mcp", cls=HttpCommand)(mcp)
