"""Every command's ``--help`` names its parameters as a user reads them (issue 37): flags as
flags, valued options with a metavar, arguments in capitals — no Python type (``<bool>``,
``<int range> [x>=1]``, ``<list[str]>``) and no ``{run_dir}``; one examples style; one
``--device``; a long name for every short flag. Walks the real typer app, so a new command
is checked the day it is added."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import typer
from typer.testing import CliRunner

from omg_agent.cli import build_app
from omg_agent.cli.device_choice import DEVICE_HELP
from omg_agent.cli.helpfmt import bounds_in_words

APP = build_app()
ROOT = typer.main.get_command(APP)
TYPE_HINT = re.compile(r"<(bool|int|float|str|path|list|text|integer|file|dir)[^>]*>|"
                       r"\[(\d+(\.\d+)?<=)?x(<=|>=)[^\]]*\]", re.IGNORECASE)


def _walk(command, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], object]]:
    yield path, command
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from _walk(sub, (*path, name))


COMMANDS = list(_walk(ROOT))
IDS = [" ".join(p) or "root" for p, _ in COMMANDS]


def _help(path: tuple[str, ...]) -> str:
    result = CliRunner().invoke(APP, [*path, "--help"], prog_name="omg-agent",
                                env={"COLUMNS": "100", "TERM": "dumb"}, terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=IDS)
def test_help_shows_no_python_types(path, command) -> None:
    text = _help(path)
    hints = TYPE_HINT.findall(text)
    assert not hints, f"`omg-agent {' '.join(path)} --help` shows types: {hints}"
    usage = next(line for line in text.splitlines() if "Usage:" in line)
    assert "{" not in usage, usage


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=IDS)
def test_flags_show_bare_and_valued_options_a_metavar(path, command) -> None:
    text = _help(path)
    for param in command.params:
        if param.param_type_name == "argument":
            assert param.metavar and param.metavar == param.metavar.upper(), param.name
            continue
        long = max((o for o in param.opts if o.startswith("--")), key=len)
        row = next(line for line in text.splitlines()
                   if line.startswith("│") and f" {long} " in line)
        after = row.split(long, 1)[1].split()
        shorts = [o for o in param.opts if not o.startswith("--")]
        shown = after[1:] if after and after[0] in shorts else after
        if param.is_flag:
            assert not param.metavar or not shown or shown[0] != param.metavar, long
        else:
            assert param.metavar and shown[0] == param.metavar, (long, row)


def test_a_real_command_reads_as_a_user_expects() -> None:
    text = _help(("vphone", "start"))
    assert re.search(r"--connect\s{2,}\S", text)  # a flag: its help follows
    assert re.search(r"--port\s+PORT\b", text)
    fleet = _help(("fleet", "run"))
    assert "[TASKS_FILE]" not in fleet and "TASKS_FILE" in fleet
    assert re.search(r"--vphones\s+VPHONES\b", fleet)
    assert "[from 0 to 64]" in fleet  # a bound, in words


def test_bounds_in_words() -> None:
    assert bounds_in_words(1, None) == "at least 1"
    assert bounds_in_words(None, 5) == "at most 5"
    assert bounds_in_words(0, 64) == "from 0 to 64"
    assert bounds_in_words(None, None) is None


def _paragraphs(command) -> list[str]:
    return [" ".join(p.split()) for p in (command.help or "").split("\n\n")]


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=IDS)
def test_examples_in_one_style(path, command) -> None:
    """One example a paragraph, each ``Example: [VAR=value …] omg-agent …`` (or a pipe into
    it): no "Examples:" lists, no two commands in one line."""
    examples = [p for p in _paragraphs(command) if p.lower().startswith("example")
                or p.startswith("omg-agent ")]
    assert examples, f"`omg-agent {' '.join(path)}` has no example"
    for paragraph in examples:
        assert paragraph.startswith("Example: "), paragraph
        assert paragraph.count("omg-agent ") == 1, paragraph


def test_every_device_option_is_worded_the_same() -> None:
    seen = 0
    for path, command in COMMANDS:
        for param in command.params:
            if "--device" in param.opts:
                seen += 1
                where = " ".join(path)
                assert (param.help or "").startswith(DEVICE_HELP), where
                assert param.metavar == "SERIAL" and "-s" in param.opts, where
    assert seen >= 15


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=IDS)
def test_every_short_flag_has_a_long_name(path, command) -> None:
    for param in command.params:
        if param.param_type_name == "option":
            assert any(o.startswith("--") for o in param.opts), (path, param.opts)


def test_fleet_resources_takes_device_and_long_adb_names() -> None:
    resources = dict((" ".join(p), c) for p, c in COMMANDS)["fleet resources"]
    opts = {o for param in resources.params for o in param.opts}
    assert {"--device", "--adb-host", "-H", "--adb-port", "-P"} <= opts
