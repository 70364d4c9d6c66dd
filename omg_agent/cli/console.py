"""The CLI's two consoles and its one way to stop with an error.

Every command reports a fatal problem with :func:`fail`: ``error: <message>`` in red on
stderr (so ``--json`` output on stdout stays parseable), then exit with ``code``.
"""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

console = Console()
err_console = Console(stderr=True)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code``."""
    err_console.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True)
    raise typer.Exit(code)


def validation_message(exc: Exception) -> str:
    """A pydantic ``ValidationError`` as one line a user can act on: each problem's own
    message, with no field paths of the union, error types or web links."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return str(exc).splitlines()[0]
    parts = []
    for error in errors(include_url=False):
        msg = str(error["msg"]).removeprefix("Value error, ")
        field = str(error["loc"][-1]) if error["loc"] else ""
        parts.append(msg if msg != error["msg"] or not field else f"{field}: {msg}")
    return "; ".join(dict.fromkeys(parts))


def print_version(value: bool) -> None:
    """``--version``: the installed package's version (its metadata), then exit."""
    if not value:
        return
    from importlib.metadata import PackageNotFoundError, version

    try:
        number = version("omg-agent")
    except PackageNotFoundError:
        number = "unknown (not installed; run from a source tree)"
    print(f"omg-agent {number}")
    raise typer.Exit()
