"""The shell commands the README and docs/ show, as tests/integration/test_docs_commands.py
runs them (the convention is documented for writers in docs/reference/docs-check.md).

A command is a line of a fenced ``bash``/``sh``/``shell`` block (comments and blank lines
aside, ``\\`` continuations joined), or a ``$ `` line of a ``console`` block (the lines
after it are its output, never run). HTML comments right above a fence say how to run it:

- ``<!-- docs-test: skip REASON -->``: not run (it needs a real phone, a key, minutes…);
- ``<!-- docs-test: setup -->``: the checkout's own setup: the scripts and programs it
  names are checked to exist, nothing is run;
- ``<!-- docs-test: background -->``: started and left running (a server) until its chain
  ends; its first output line is awaited;
- ``<!-- docs-test: exit N -->``: each command of the block ends with exit code N;
- ``<!-- docs-test: capture TEXT = REGEX -->``: in every later command of the chain, TEXT
  becomes what REGEX's group 1 matched in this block's output (a serial, a run folder);
- ``<!-- docs-test: chain NAME -->``: this block and the ones after it on the page run in
  their own shell, folder and adb server, beside the page's other chains;
- ``<!-- docs-test: sim [SERIAL] -->``: the chain has a model: ``omg-agent sim serve`` is
  started for it and ``OMG_BASE_URL``/``OMG_MODEL`` point at it; the phone that model drives
  stands for SERIAL in the chain's commands (and is the only one on its adb server, so a
  ``run`` with no ``--device`` acts on it);
- ``<!-- docs-test: file NAME -->`` above any block (YAML, TOML…): its text is written to
  NAME in the chain's folder before the chain's first command.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).parents[2]
SHELLS = {"bash", "sh", "shell", "console"}
DIRECTIVE = re.compile(r"^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)```(\w*)\s*$")
KINDS = ("skip", "setup", "background", "exit", "capture", "chain", "sim", "file")


@dataclass
class Block:
    """One fenced shell block: where it is, its commands and how to run them."""

    page: str
    line: int
    commands: list[str]
    skip: str | None = None
    setup: bool = False
    background: bool = False
    exit_code: int = 0
    captures: list[tuple[str, re.Pattern[str]]] = field(default_factory=list)
    chain: str = "main"
    sim: str | None = None
    files: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[Path]:
    """The README and every page of docs/ (not the hooks)."""
    docs = sorted(p for p in (ROOT / "docs").rglob("*.md") if "_hooks" not in p.parts)
    return [ROOT / "README.md", *docs]


def _apply(block: Block, directive: str) -> None:
    kind, _, rest = directive.partition(" ")
    rest = rest.strip()
    if kind not in KINDS:
        raise ValueError(f"{block.where}: unknown docs-test directive {directive!r}; "
                         f"known: {', '.join(KINDS)}")
    if kind == "skip":
        if not rest:
            raise ValueError(f"{block.where}: `docs-test: skip` needs a reason")
        block.skip = rest
    elif kind == "setup":
        block.setup = True
    elif kind == "background":
        block.background = True
    elif kind == "exit":
        block.exit_code = int(rest)
    elif kind == "capture":
        text, sep, pattern = rest.partition(" = ")
        if not sep or not text.strip():
            raise ValueError(f"{block.where}: write `docs-test: capture TEXT = REGEX`")
        block.captures.append((text.strip(), re.compile(pattern.strip())))
    elif kind == "sim":
        block.sim = rest
    elif kind == "file":
        if not rest:
            raise ValueError(f"{block.where}: `docs-test: file` needs a file name")
        block.files[rest] = ""
    else:
        block.chain = rest or "main"


def _commands(lang: str, body: list[str]) -> list[str]:
    lines = "\n".join(body).replace("\\\n", " ").splitlines()
    if lang == "console":
        return [line[2:].strip() for line in lines if line.startswith("$ ")]
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def blocks_in(path: Path) -> list[Block]:
    """The shell blocks of one page, with their directives; a chain directive holds for the
    blocks after it on the page."""
    page = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    found: list[Block] = []
    pending: list[tuple[int, str]] = []
    chain = "main"
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        directive = DIRECTIVE.match(lines[i])
        fence = FENCE.match(lines[i])
        if directive:
            pending.append((i + 1, directive.group(1)))
            i += 1
            continue
        if not fence:
            pending = [] if lines[i].strip() else pending
            i += 1
            continue
        indent, lang = fence.groups()
        end = i + 1
        while end < len(lines) and not lines[end].strip().startswith("```"):
            end += 1
        body = [line[len(indent):] if line.startswith(indent) else line
                for line in lines[i + 1:end]]
        block = Block(page, i + 1, _commands(lang, body) if lang in SHELLS else [], chain=chain)
        for _, text in pending:
            _apply(block, text)
        block.files = {name: "\n".join(body) + "\n" for name in block.files}
        if lang in SHELLS or block.files:
            chain = block.chain
            found.append(block)
        elif pending:
            raise ValueError(f"{page}:{i + 1}: docs-test directives above a {lang or 'plain'} "
                             "block, which is never run")
        pending = []
        i = end + 1
    return found


def all_blocks() -> list[Block]:
    return [block for path in pages() for block in blocks_in(path)]
