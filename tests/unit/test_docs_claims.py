"""What the README and docs/ say about the command line is true: every `omg-agent …` command
they show exists and every option they give it is one that command takes. Walks the real
typer app, so a renamed or dropped option fails here, not in a reader's terminal (issue 26).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import typer

from omg_agent.cli import build_app

ROOT = Path(__file__).parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
CLI = typer.main.get_command(build_app())
ENDS = {"|", "||", "&&", ";", ">", "2>", "<", "&", "#"}
# promised by issue 26 and being added on another branch (item 1): the README keeps saying it
PENDING: set[tuple[str, str]] = set()


def _commands_in(text: str) -> list[str]:
    """Each `omg-agent …` invocation in code blocks and inline code, continuations joined; in
    a ``console`` block only the ``$ `` lines are commands (the rest is their output)."""
    found: list[str] = []
    fenced, console = False, False
    for line in text.replace("\\\n", " ").splitlines():
        if line.lstrip().startswith("```"):
            fenced, console = not fenced, line.strip() == "```console"
        elif fenced:
            if not console or line.startswith("$ "):
                found += [f"omg-agent {rest}" for rest in line.split("omg-agent ")[1:]]
        else:
            found += [span[span.index("omg-agent"):]
                      for span in re.findall(r"`([^`]*omg-agent [^`]*)`", line)]
    return found


def _tokens(command: str) -> list[str]:
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    out = []
    for word in words[1:]:
        if word in ENDS or word.startswith(("#", ">", "2>")):
            break
        out.append(word)
    return out


def unknown_options(command: str) -> list[tuple[str, str]]:
    """(command path, option) for every option `command` gives that its command lacks."""
    node, path, missing = CLI, [], []
    for word in _tokens(command):
        subs = getattr(node, "commands", {})
        if not word.startswith("-") and word in subs and not missing:
            node = subs[word]
            path.append(word)
        elif word.startswith("-") and word not in ("-", "--"):
            option = word.split("=", 1)[0]
            known = {opt for param in node.params for opt in (*param.opts,
                                                                *param.secondary_opts)}
            if option not in known | {"--help", "-h"}:
                missing.append((" ".join(path), option))
    return missing


def test_the_checker_finds_an_option_a_command_does_not_take() -> None:
    assert unknown_options("omg-agent key back --no-such-flag") == [("key", "--no-such-flag")]
    assert unknown_options("omg-agent tap --text Wi-Fi  # --text is real") == []


def test_the_pages_show_commands() -> None:
    assert sum(len(_commands_in(page.read_text(encoding="utf-8"))) for page in PAGES) > 50


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_documented_option_exists(page: Path) -> None:
    wrong = [(command, miss) for command in _commands_in(page.read_text(encoding="utf-8"))
             for miss in unknown_options(command) if miss not in PENDING]
    assert not wrong, f"{page.name} documents options the program lacks: {wrong}"


def test_run_takes_the_planning_option_the_readme_shows() -> None:
    assert not unknown_options("omg-agent run task --planning unified")


def test_every_documented_variable_is_one_the_program_reads() -> None:
    from omg_agent.config import _OTHER_ENV, ENV_PREFIX, SECRET_PREFIX, Settings

    known = {ENV_PREFIX + name.upper() for name in [*Settings.model_fields, *_OTHER_ENV]}
    wrong = {(page.name, name) for page in PAGES
             for name in re.findall(r"\bOMG_[A-Z0-9_]+", page.read_text(encoding="utf-8"))
             if name not in known and not name.startswith(SECRET_PREFIX)}
    assert not wrong, f"documented variables nothing reads: {sorted(wrong)}"
