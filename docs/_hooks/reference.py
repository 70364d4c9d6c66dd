"""MkDocs hook: the reference pages are generated from the code, so they cannot drift.

A page that holds one of these markers gets it replaced before it is rendered:

- ``<!-- cli-reference -->``: every ``omg-agent`` command's ``--help``, rendered by typer
  from the real app at 80 columns, one section per command (the app is walked, so a new
  command shows up the day it is added);
- ``<!-- settings-reference -->``: one table row per :class:`omg_agent.config.Settings`
  field — its ``OMG_*`` variable, its default and its description;
- ``<!-- api-reference -->``: a mkdocstrings block for every name ``omg_agent`` exports
  (``__all__``), rendered from the docstrings.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

WIDTH = 80  # fits the page's code column: the reference never scrolls sideways


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from _commands(sub, (*path, name))


def cli_reference() -> str:
    """Every command's help as the terminal shows it (no colour), one section each."""
    import typer
    from typer.testing import CliRunner

    from omg_agent.cli import build_app

    app = build_app()
    runner = CliRunner()
    parts = []
    for path in _commands(typer.main.get_command(app)):
        result = runner.invoke(app, [*path, "--help"], prog_name="omg-agent",
                               env={"COLUMNS": str(WIDTH), "TERM": "dumb", "NO_COLOR": "1"},
                               terminal_width=WIDTH)
        if result.exit_code != 0:
            raise RuntimeError(f"omg-agent {' '.join(path)} --help failed: {result.output}")
        title = " ".join(("omg-agent", *path))
        body = "\n".join(line.rstrip() for line in result.output.strip("\n").splitlines())
        parts.append(f"## `{title}`\n\n```text\n{body}\n```\n")
    return "\n".join(parts)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|").replace("<", "&lt;")


def settings_reference() -> str:
    """A markdown table of the settings: field, variable, default, description."""
    from omg_agent.config import ENV_PREFIX, SECRET_PREFIX, Settings

    rows = ["| setting (`omg.toml`) | variable | default | what it is |", "|---|---|---|---|"]
    for name, field in Settings.model_fields.items():
        default = field.get_default(call_default_factory=True)
        shown = "" if default is None else f"`{json.dumps(default, default=str)}`"
        variable = f"{SECRET_PREFIX}NAME" if name == "secrets" else ENV_PREFIX + name.upper()
        rows.append(f"| `{name}` | `{variable}` | {shown} "
                    f"| {_cell(field.description or '')} |")
    return "\n".join(rows) + "\n"


def api_reference() -> str:
    """One mkdocstrings block per exported name, under its own heading."""
    import omg_agent

    blocks = []
    for name, module in omg_agent._EXPORTS.items():
        blocks.append(f"## `{name}`\n\n::: {module}.{name}\n    options:\n"
                      "      show_root_heading: false\n")
    return "\n".join(blocks)


MARKERS = {"<!-- cli-reference -->": cli_reference,
           "<!-- settings-reference -->": settings_reference,
           "<!-- api-reference -->": api_reference}


def on_page_markdown(markdown: str, **_: Any) -> str:
    for marker, render in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, render())
    return markdown
