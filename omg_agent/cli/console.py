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
