"""The todo list as a value, and its one renderer.

A run's plan travels as :class:`TodoItem` values — in :class:`~omg_agent.brain.run_state.
Progress` to the live view, the mirror page and the Python API's callback — and is turned
into text in one place, :func:`render_todo`: markdown (``- [x] 1. …``) for the prompts,
the trace and the result, tick and circle marks on a screen. The one reader of such a list
is :func:`read_todo`: a unified operator's own checklist (the model writes ``[x] …``) and a
trace's saved plan go through it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

DONE, OPEN = "- [x]", "- [ ]"  # markdown's marks
_LINE = re.compile(r"^[-*]?\s*(?:\[([ xX]?)\]\s*)?(.*)$")


@dataclass(frozen=True)
class TodoItem:
    """One plan step as shown: its number (from 1), its words, whether it is done."""

    number: int
    text: str
    done: bool


def render_todo(items: Iterable[TodoItem], done: str = DONE, open_: str = OPEN) -> str:
    """One line per item, ``done`` or ``open_`` first: ``- [x] 1. Open Settings``."""
    return "\n".join(f"{done if i.done else open_} {i.number}. {i.text}" for i in items)


def read_todo(text: str | Iterable[str]) -> list[tuple[bool, str]]:
    """(done, words) per non-empty line of a checklist: ``- [x] 1. Open Settings``,
    ``[ ] Save``, ``* [X] …`` or a bare line (open); the step number stays in the words."""
    lines = text.splitlines() if isinstance(text, str) else text
    items = []
    for line in lines:
        match = _LINE.match(line.strip())
        if match is None or not match.group(2).strip():
            continue
        items.append((match.group(1) in ("x", "X"), match.group(2).strip()))
    return items


__all__ = ["DONE", "OPEN", "TodoItem", "read_todo", "render_todo"]
