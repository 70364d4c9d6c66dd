"""The todo list as a value, and its one renderer.

A run's plan travels as :class:`TodoItem` values — in :class:`~omg_agent.brain.run_state.
Progress` to the live view, the mirror page and the Python API's callback — and is turned
into text in one place, :func:`render_todo`: markdown (``- [x] 1. …``) for the prompts,
the trace and the result, tick and circle marks on a screen. Nothing parses the text back.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

DONE, OPEN = "- [x]", "- [ ]"  # markdown's marks


@dataclass(frozen=True)
class TodoItem:
    """One plan step as shown: its number (from 1), its words, whether it is done."""

    number: int
    text: str
    done: bool


def render_todo(items: Iterable[TodoItem], done: str = DONE, open_: str = OPEN) -> str:
    """One line per item, ``done`` or ``open_`` first: ``- [x] 1. Open Settings``."""
    return "\n".join(f"{done if i.done else open_} {i.number}. {i.text}" for i in items)


__all__ = ["DONE", "OPEN", "TodoItem", "render_todo"]
