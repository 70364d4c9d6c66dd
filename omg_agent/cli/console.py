"""The CLI's two consoles, its one way to stop with an error, and output that cannot fail.

Every command reports a fatal problem with :func:`fail`: ``error: <message>`` in red on
stderr (so ``--json`` output on stdout stays parseable), then exit with ``code``.

Printing never decides how a run ends (issue 25): :func:`safe_streams` (called once when the
CLI starts) makes stdout and stderr replace what the terminal's encoding cannot show (a GBK or
Latin-1 locale and a ``✔``) instead of raising; :func:`symbol` picks a mark the terminal can
show; :func:`print_json` writes ASCII-only JSON, valid in any encoding; and
:func:`printing_cannot_fail` keeps a printing error (a closed pipe, a full disk behind a
redirect) from replacing the exit code the outcome already decided.
User text (a task, a model's answer) is printed as rich ``Text`` — never parsed as markup nor
highlighted, both of which slow down with the square of a long line — and echoed
:func:`shortened`.
"""

from __future__ import annotations

import codecs
import json
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
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

            class _GoesQuiet(Console):
                """A reader that stops reading (a closed pipe) silences the console; rich's
                own answer, SystemExit(1), would turn a finished run into a failed one."""

                def on_broken_pipe(self) -> None:
                    self.quiet = True
                    _quiet(sys.stderr if self.stderr else sys.stdout)

            self._console = _GoesQuiet(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:  # only for names the proxy does not have
        return getattr(self._real(), name)

    # ``with console:`` (rich's Live and Progress use it) looks these up on the type
    def __enter__(self) -> Console:
        return self._real().__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._real().__exit__(*exc)


log = logging.getLogger(__name__)

console = cast("Console", _OnFirstUse())
err_console = cast("Console", _OnFirstUse(stderr=True))


def fail(message: str, code: int = 1) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code``. The message is plain
    text: no markup, no highlighting (whose cost grows with the square of a long word)."""
    from rich.text import Text

    err_console.print(Text.assemble(("error:", "red"), " ", message), soft_wrap=True)
    raise typer.Exit(code)


# what a terminal that cannot encode a currency sign shows instead: its ISO code (a price
# must not turn into "?"); anything else it cannot encode becomes "?"
_SPELLED = {"¥": "CNY", "￥": "CNY", "€": "EUR", "£": "GBP", "₩": "KRW", "₹": "INR"}
_REPLACE = "omg-spelled"


def _spelled(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    bad = exc.object[exc.start:exc.end]
    return "".join(_SPELLED.get(ch, "?") for ch in bad), exc.end


codecs.register_error(_REPLACE, _spelled)


def safe_streams() -> None:
    """Make stdout and stderr replace characters their encoding cannot show rather than
    raise: a finished run must not exit 1 because its ``✔`` is not in GBK. A currency sign is
    spelled as its code (¥ as "CNY"), anything else becomes ``?``."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:
            continue
        try:
            reconfigure(errors=_REPLACE)
        except (ValueError, OSError):  # a stream already closed or detached: nothing to do
            continue


def symbol(fancy: str, plain: str, stream: Any = None) -> str:
    """``fancy`` when ``stream`` (stdout by default) can encode it, else ``plain`` (ASCII)."""
    encoding = getattr(stream if stream is not None else sys.stdout, "encoding", None)
    try:
        fancy.encode(encoding or "ascii")
    except (UnicodeError, LookupError):
        return plain
    return fancy


def print_json(data: Any) -> None:
    """One line of JSON on stdout, ASCII only (``\\uXXXX`` escapes): valid whatever the
    terminal's encoding."""
    typer.echo(json.dumps(data, ensure_ascii=True))


@contextmanager
def printing_cannot_fail() -> Iterator[None]:
    """Around the printing of an outcome whose exit code is already decided: an error while
    printing (stdout closed by its reader, a full disk behind a redirect, an encoding) is
    logged and the rest of the output dropped; it never changes the exit code."""
    try:
        yield
    except (OSError, UnicodeError, ValueError, SystemExit) as exc:  # rich: SystemExit(1) on
        log.debug("output lost: %r", exc)                             # a broken pipe
        _quiet(sys.stdout)


def _quiet(stream: Any) -> None:
    """Point ``stream`` at /dev/null, so the interpreter's flush at exit cannot fail again (a
    failed final flush of stdout would turn the exit code into 120)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


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
