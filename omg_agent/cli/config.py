"""``omg-agent config show``: the settings in force and where each came from (secrets hidden)."""

from __future__ import annotations

import json

import typer

from omg_agent.cli.console import console, fail
from omg_agent.errors import ConfigError

app = typer.Typer(help="Inspect OMG-Agent's settings (OMG_* variables and omg.toml).\n\n"
                       "Example: omg-agent config show --json", no_args_is_help=True)


@app.command()
def show(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Print every setting, its value and its source; the API key is never shown.

    Sources, strongest first: OMG_* variables, omg.toml (or $OMG_CONFIG), OPENAI_API_KEY /
    OPENAI_BASE_URL, defaults.

    Example: omg-agent config show

    Example: OMG_MODEL=gpt-4o omg-agent config show --json
    """
    try:
        from omg_agent.config import Settings

        settings = Settings.load()
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


def register(root: typer.Typer) -> None:
    """Add the ``config`` group to the ``omg-agent`` app."""
    root.add_typer(app, name="config")
