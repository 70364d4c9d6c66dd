"""Every ``omg-agent`` command answers ``--help`` with at least one example, and every command
whose output is data offers ``--json``. Walks the real typer app, so a new command is checked
the day it is added."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import typer
from typer.testing import CliRunner

from omg_agent.cli import app

# Commands whose output is data; the bench's commands are checked by their own tests.
DATA_COMMANDS = {"devices", "observe", "run", "demo", "doctor", "report", "config show",
                 "vphone start", "vphone state"}


def _walk(command, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], object]]:
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _walk(sub, (*path, name))


COMMANDS = list(_walk(typer.main.get_command(app)))
def _cases() -> list:
    return [pytest.param(path, id=" ".join(path) or "root") for path, _ in COMMANDS]


def test_the_app_has_the_commands_the_readme_names() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"demo", "doctor", "run", "devices", "observe", "report", "config show",
            "vphone start", "bench suite"} <= names


@pytest.mark.parametrize("path", _cases())
def test_help_shows_an_example(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    assert "Example" in result.output, f"`omg-agent {' '.join(path)} --help` has no example"
    assert "omg-agent" in result.output.split("Example", 1)[1]


@pytest.mark.parametrize("name", sorted(DATA_COMMANDS))
def test_data_commands_offer_json(name: str) -> None:
    command = dict((" ".join(p), c) for p, c in COMMANDS)[name]
    assert any("--json" in param.opts for param in command.params), name
    help_text = CliRunner().invoke(app, [*name.split(), "--help"],
                                   env={"COLUMNS": "120"}).output
    assert "--json" in help_text


def test_options_taking_a_secret_warn_that_a_command_line_is_readable() -> None:
    run = dict((" ".join(p), c) for p, c in COMMANDS)["run"]
    helps = {opt: param.help or "" for param in run.params for opt in param.opts}
    for option, variable in (("--api-key", "OMG_API_KEY"), ("--secret", "OMG_SECRET_")):
        assert f"Prefer {variable}" in helps[option], option
        assert "other users of this machine can read a command line" in helps[option]
    assert "shell" in helps["--secret"] and "history" in helps["--secret"]
