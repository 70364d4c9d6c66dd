"""``omg-agent config show``: the settings in force and where each came from (secrets hidden)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TextIO

import typer

from omg_agent.cli.console import console, fail
from omg_agent.errors import ConfigError

app = typer.Typer(help="Inspect OMG-Agent's settings (OMG_* variables and omg.toml).\n\n"
                       "Example: omg-agent config show --json", no_args_is_help=True)


@app.command()
def show(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Print every setting, its value and its source; the API key is never shown.

    Sources, strongest first: OMG_* variables, omg.toml (or $OMG_CONFIG), OPENAI_API_KEY /
    OPENAI_BASE_URL, defaults. An omg.toml outside your config dir (~/.config/omg-agent)
    may not lower safety (gate, allow, base_url, …) unless you say yes at the terminal.

    Example: omg-agent config show

    Example: OMG_MODEL=gpt-4o omg-agent config show --json
    """
    try:
        from omg_agent.config import Settings

        settings = Settings.load(confirm=terminal_confirm())
    except ConfigError as exc:
        fail(str(exc))
    values = settings.redacted_dict()
    if as_json:
        print(json.dumps({k: {"value": v, "source": settings.source(k)}
                          for k, v in values.items()}, ensure_ascii=False, indent=2))
        return
    from rich.table import Table

    table = Table("setting", "value", "source")
    for key, value in values.items():
        table.add_row(key, "" if value is None else str(value), settings.source(key))
    console.print(table)


ASK_AGAIN = 3  # unclear answers before the question counts as not answered (a no)


def terminal_confirm(stdin: TextIO | None = None) -> Callable[[str], bool] | None:
    """How a setting a file outside the user's config dir would lower is confirmed: a
    yes at this terminal (the one answer rule), asked on stderr; ``None`` when ``stdin``
    (default ``sys.stdin``) is not a terminal (then such a file is refused)."""
    stdin = sys.stdin if stdin is None else stdin
    if not stdin.isatty():
        return None
    from omg_agent.cli.console import err_console
    from omg_agent.guards.answers import read_answer, unclear

    def ask(question: str) -> bool:
        for _ in range(ASK_AGAIN):
            err_console.print(question + " ", end="", soft_wrap=True, highlight=False,
                              markup=False)
            line = stdin.readline()
            said = read_answer(line) if line.strip() else "no"  # Enter: no
            if said is not None:
                return said == "yes"
            err_console.print(unclear(line.strip()), highlight=False, markup=False)
        return False
    return ask


def register(root: typer.Typer) -> None:
    """Add the ``config`` group to the ``omg-agent`` app."""
    root.add_typer(app, name="config")
