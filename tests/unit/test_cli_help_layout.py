"""Every command's ``--help`` reads as rich lays it out at 80 columns: no paragraph broken
early by a line break written into its source (a hard-wrapped docstring wrapped again by rich
shows as ragged lines). Walks the real typer app, so a new command is checked the day it is
added (issue 26)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import typer
from rich.cells import cell_len
from typer.testing import CliRunner

from omg_agent.cli import build_app

WIDTH = 80
APP = build_app()
# where a new item starts rather than a paragraph going on: rich's bullets, an example, and
# typer's own notes under an option's help ([default: 0], [required], [env var: …])
ITEM_STARTS = ("•", "-", "*", "Example", "[")


def _walk(command, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from _walk(sub, (*path, name))


def _help(path: tuple[str, ...]) -> str:
    result = CliRunner().invoke(APP, [*path, "--help"], prog_name="omg-agent",
                                env={"COLUMNS": str(WIDTH), "TERM": "dumb"},
                                terminal_width=WIDTH)
    assert result.exit_code == 0, result.output
    return result.output


def ragged_lines(text: str, width: int = WIDTH) -> list[str]:
    """Lines that end before the next line's first word would have filled them although that
    next line goes on with the same paragraph — rich wraps greedily, so only a line break
    written into the help text leaves such a gap. Checks text outside the boxes and each
    box's last column (the help of an option or command)."""
    found = []
    lines = text.splitlines()
    for above, below in zip(lines, lines[1:], strict=False):
        boxed = above.startswith("│") and below.startswith("│")
        if boxed:
            above, below = above[1:].rstrip("│"), below[1:].rstrip("│")
            room = cell_len(above) - 1  # rich pads the box's inside by one column on the right
        elif above.startswith(("│", "╭", "╰")) or below.startswith(("│", "╭", "╰")):
            continue
        else:
            room = width - 1
        start = len(below) - len(below.lstrip())
        words = below.split()
        if not words or not above.strip() or words[0].startswith(ITEM_STARTS):
            continue
        if boxed and start <= 2:
            continue  # a new row of the box, not a continuation of a cell
        if start > 0 and above[start - 1:start] != " ":
            continue  # the line above has no cell starting where this one goes on
        cell = above[start:].rstrip()
        if cell and cell_len(cell) + 1 + cell_len(words[0]) <= room - start:
            found.append(f"{above.rstrip()!r}\n  then {below.strip()!r}")
    return found


def test_the_checker_finds_a_hard_wrapped_paragraph_and_passes_a_flowing_one() -> None:
    ragged = " Serve the phone as MCP tools: devices, observe,\n tap and type a word.\n"
    assert ragged_lines(ragged)
    flowing = (" Serve the phone as MCP tools: devices, observe, tap and type a word and then\n"
               " some more words.\n")
    assert not ragged_lines(flowing)
    boxed = ("│ mcp   Serve the phone as MCP tools: devices,                                 │\n"
             "│       observe, tap and type.                                                 │\n")
    assert ragged_lines(boxed)
    boxed = ("│ mcp   Serve the phone as MCP tools: devices, observe, tap and type a word    │\n"
             "│       and then some.                                                         │\n")
    assert not ragged_lines(boxed)


@pytest.mark.parametrize("path", [pytest.param(p, id=" ".join(p) or "root")
                                  for p in _walk(typer.main.get_command(APP))])
def test_help_at_80_columns_has_no_ragged_lines(path: tuple[str, ...]) -> None:
    ragged = ragged_lines(_help(path))
    assert not ragged, f"`omg-agent {' '.join(path)} --help` breaks lines early:\n" + \
        "\n".join(ragged)


def _texts(command) -> Iterator[str]:
    yield command.help or ""
    for param in command.params:
        yield getattr(param, "help", None) or ""


@pytest.mark.parametrize("path", [pytest.param(p, id=" ".join(p) or "root")
                                  for p in _walk(typer.main.get_command(APP))])
def test_help_texts_hold_no_angle_bracket_words_markdown_would_drop(
        path: tuple[str, ...]) -> None:
    command = typer.main.get_command(APP)
    for name in path:
        command = command.commands[name]
    dropped = [m for text in _texts(command) for m in re.findall(r"<[A-Za-z][A-Za-z0-9-]*>", text)]
    assert not dropped, f"`omg-agent {' '.join(path)} --help` loses {dropped} (read as HTML)"
