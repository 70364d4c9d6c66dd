"""The CLI's two consoles and its one way to stop with an error.

Every command reports a fatal problem with :func:`fail`: ``error: <message>`` in red on
stderr (so ``--json`` output on stdout stays parseable), then exit with ``code``. User text
(a task, a model's answer) is printed as rich ``Text`` — never parsed as markup nor
highlighted, both of which slow down with the square of a long line — and echoed
:func:`shortened`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn, cast

import typer

if TYPE_CHECKING:
    from rich.console import Console


class _OnFirstUse:
    """A rich ``Console`` made on first use: rich's import (~20–45 ms) is paid by the
    commands that print through it, not by ``omg-agent key back``, which prints one plain
    line (:func:`say_ok`)."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    def _real(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:  # only for names the proxy does not have
        return getattr(self._real(), name)

    # ``with console:`` (rich's Live and Progress use it) looks these up on the type
    def __enter__(self) -> Console:
        return self._real().__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._real().__exit__(*exc)


console = cast("Console", _OnFirstUse())
err_console = cast("Console", _OnFirstUse(stderr=True))


def fail(message: str, code: int = 1) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code``. The message is plain
    text: no markup, no highlighting (whose cost grows with the square of a long word)."""
    from rich.text import Text

    err_console.print(Text.assemble(("error:", "red"), " ", message), soft_wrap=True)
    raise typer.Exit(code)


ECHO_CHARS = 300  # user text the console echoes (a task, a step): enough to recognise it


def shortened(text: str, limit: int = ECHO_CHARS) -> str:
    """``text`` cut to ``limit`` characters, ending in "…" when cut (for echoing)."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def say_ok(what: str) -> None:
    """``ok <what>`` on stdout, ``ok`` in green on a terminal — what ``console.print(
    "[green]ok[/green] …")`` shows, without importing rich."""
    typer.echo(f"{typer.style('ok', fg='green')} {what}")


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
