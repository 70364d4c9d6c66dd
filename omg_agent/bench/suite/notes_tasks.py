"""Notes tasks: create a note (English or Chinese), change a saved note's body, delete a note
(sensitive: the user confirms first) and create a note whose text the user gives when
asked.

Criteria quote the app bar "Notes 备忘录" (only on the list, never in the editor) together
with the note's title and first line, so a draft still in the editor never passes.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from omg_agent.bench.suite.nav import (
    a_tap,
    a_type,
    answer,
    ask,
    confirm,
    fill_and_save,
    notes_list,
    open_note,
    wait,
    write_note,
)
from omg_agent.bench.suite.settings_tasks import ZH_LOCALE
from omg_agent.sim.expert.screen import Screen, tap
from omg_agent.sim.expert.tasks import NOTES, CreateNote, MoveContext, Moves, Task

log = logging.getLogger(__name__)

LIST_BAR = "Notes 备忘录"


def listed(title: str, body: str) -> str:
    """Criteria: the notes list shows this note (its title and first line)."""
    return f'the "{LIST_BAR}" list shows "{title}" with "{body.splitlines()[0][:40]}"'


def seed_notes(phone: Any, notes: list[dict[str, str]]) -> None:
    phone.apps[NOTES].notes = [dict(n) for n in notes]


@dataclass
class NewNote(CreateNote):
    """Create a note; ``zh`` gives the goal in Chinese on a Chinese phone."""

    zh: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.zh:
            self.goal = f"在备忘录中新建标题为「{self.title}」的笔记，内容为「{self.body}」"
        self.criteria = listed(self.title, self.body)

    def setup(self, phone: Any) -> None:
        if self.zh:
            phone.set_locale(ZH_LOCALE)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        return [] if self.check(phone) else write_note(phone, screen, self.title, self.body)


@dataclass
class EditNoteBody(Task):
    """Change the body of one of the saved notes; the others must stay as they were."""

    notes: list[dict[str, str]] = field(default_factory=list)
    index: int = 0
    body: str = ""

    def __post_init__(self) -> None:
        title = self.notes[self.index]["title"]
        self.goal = f"In Notes, change the text of the note {title} to: {self.body}"
        self.criteria = listed(title, self.body)

    def wanted(self) -> list[dict[str, str]]:
        notes = [dict(n) for n in self.notes]
        notes[self.index]["body"] = self.body
        return notes

    def setup(self, phone: Any) -> None:
        seed_notes(phone, self.notes)

    def check(self, phone: Any) -> bool:
        return phone.apps[NOTES].notes == self.wanted()

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        title = self.notes[self.index]["title"]
        route = [a_type("body_input", self.body), a_tap(res="save")]
        return open_note(phone, screen, title, route) or fill_and_save(
            phone, screen, {"body": (self.body, self.body)})


@dataclass
class DeleteNote(Task):
    """Delete one saved note — after the user confirms (deleting is sensitive)."""

    notes: list[dict[str, str]] = field(default_factory=list)
    index: int = 0

    def __post_init__(self) -> None:
        title = self.notes[self.index]["title"]
        self.goal = f"Delete the note titled {title} in Notes"
        self.criteria = f'the "{LIST_BAR}" list says "Note deleted"'
        self.question = f"Delete the note {title}? It cannot be undone."

    def setup(self, phone: Any) -> None:
        seed_notes(phone, self.notes)

    def check(self, phone: Any) -> bool:
        rest = [n for i, n in enumerate(self.notes) if i != self.index]
        return phone.apps[NOTES].notes == rest

    def answer_user(self, question: str) -> str | None:
        return "Yes."

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return notes_list(phone, screen)
        moves = open_note(phone, screen, self.notes[self.index]["title"])
        if moves:
            return moves
        delete = screen.find(res="delete")
        return confirm(ctx, self.question, tap(delete)) if delete else [wait()]


@dataclass
class AskNoteBody(Task):
    """Create a note whose text the goal does not give: the user says it when asked."""

    title: str = ""
    body: str = ""  # what the user answers

    def __post_init__(self) -> None:
        self.goal = f"Create a note titled {self.title} in Notes; ask me what it should say"
        self.criteria = listed(self.title, self.body)
        self.question = f"What should the note {self.title} say?"

    def check(self, phone: Any) -> bool:
        return {"title": self.title, "body": self.body} in phone.apps[NOTES].notes

    def answer_user(self, question: str) -> str | None:
        return self.body

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        text = answer(ctx, self.question)
        if text is None:
            return [ask(self.question)]
        return write_note(phone, screen, self.title, text)
