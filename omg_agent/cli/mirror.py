"""``omg-agent mirror``: the phone live in a browser, to watch and drive it by hand.

Thin: picks the device (or starts a vphone), builds its driver, starts
:class:`~omg_agent.hitl.server.Mirror` and prints the one link that signs a browser in.
It listens on 127.0.0.1 only, unless ``--host`` names another address *and*
``--allow-remote`` is given. Every human action goes to an audit file. The mirror drives
the phone, so it holds the phone's lease while it serves (:mod:`omg_agent.cli.lease`:
exit 7 while a run drives it); its viewers share it — watching is not driving.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from omg_agent.cli.console import console, err_console, fail
from omg_agent.cli.device_choice import OR_VPHONE, device_option
from omg_agent.errors import OmgError


def mirror(
    device: str | None = device_option(OR_VPHONE),
    driver: str = typer.Option("auto", "--driver", help="adb, u2 or auto."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (loopback "
                             "unless --allow-remote)."),
    port: int = typer.Option(0, "--port", min=0, max=65535, help="Port (0: any free one)."),
    allow_remote: bool = typer.Option(False, "--allow-remote", help="Allow a non-loopback "
                                      "--host: anyone with the link on that network can "
                                      "drive the phone."),
    audit: Path | None = typer.Option(None, "--audit", help="Audit file (JSON lines); "
                                      "default RUNS_DIR/mirror/audit-TIME.jsonl."),
    open_: bool = typer.Option(False, "--open", help="Open the link in your web browser "
                               "(the BROWSER variable names another)."),
) -> None:
    """Show the phone live in a browser and drive it by hand (tap, drag, type, keys).

    Prints a link with a one-time token: open it once; the browser then keeps a session
    cookie. Press Enter in this terminal for a fresh link (the unused ones stop working).
    Ctrl-C stops the mirror.

    Example: omg-agent mirror --open

    Example: omg-agent mirror --device emulator-5554 --port 8800
    """
    from omg_agent.cli.attach import attached_or_vphone
    from omg_agent.cli.lease import take_lease
    from omg_agent.config import Settings
    from omg_agent.drivers.select import choose_driver
    from omg_agent.hitl.security import check_bind
    from omg_agent.hitl.server import Mirror

    if driver not in ("adb", "u2", "auto"):
        fail(f"unknown driver {driver!r}: choose adb, u2 or auto")
    try:
        check_bind(host, allow_remote)  # before any device is touched
        settings = Settings.load(overrides={"device": device})
    except OmgError as exc:
        fail(str(exc))
    if audit is None:
        audit = settings.runs_dir / "mirror" / f"audit-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    with ExitStack() as stack:
        try:
            serial = attached_or_vphone(stack, settings.device, settings.device_grace_s)
            take_lease(serial, "omg-agent mirror", stack=stack)
            phone = choose_driver(serial, driver)  # type: ignore[arg-type]
            stack.callback(phone.close)
            server = Mirror(phone, host=host, port=port, allow_remote=allow_remote,
                            audit_path=audit, agent=False)  # no agent asks on this page
            stack.enter_context(server)
        except OmgError as exc:
            fail(str(exc))
        _serve(server, serial, audit, open_)


def _serve(server: Any, serial: str, audit: Path, open_: bool) -> None:
    """Print the link (open it with ``open_``), then serve until Ctrl-C; on a terminal,
    Enter prints a fresh link."""
    if server.warning:
        err_console.print(f"[yellow]{escape(server.warning)}[/yellow]", soft_wrap=True)
    console.print(f"mirror of {serial}: open {server.url}", soft_wrap=True, highlight=False)
    if open_:
        open_in_browser(server.url)
    terminal = sys.stdin.isatty()
    err_console.print(escape(f"(the link works once{'; Enter: a fresh one' if terminal else ''}"
                             f"; audit log {audit}; Ctrl-C stops)"), soft_wrap=True)
    if terminal:
        threading.Thread(target=links_on_demand, args=(server.session, sys.stdin),
                         name="mirror-links", daemon=True).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        err_console.print("mirror stopped")


def open_in_browser(url: str) -> None:
    """Open ``url`` in the user's browser (:mod:`webbrowser`: ``$BROWSER``, else the
    system's); say so when there is none."""
    import webbrowser

    try:
        opened = webbrowser.open(url)
    except webbrowser.Error:
        opened = False
    if not opened:
        err_console.print("no web browser could be opened here: open the link yourself",
                          highlight=False)


def links_on_demand(session: Any, lines: Iterable[str]) -> None:
    """A fresh one-time link for every line read (Enter at the terminal), printed on
    stdout; the unused ones made before stop working."""
    for _ in lines:
        url = session.fresh_link()
        if url is None:
            err_console.print("no new link: every viewer place is taken (close a tab)",
                              highlight=False)
        else:
            console.print(f"open {url}", soft_wrap=True, highlight=False)


def register(root: typer.Typer) -> None:
    """Add the ``mirror`` command to the ``omg-agent`` app."""
    root.command(name="mirror")(mirror)
