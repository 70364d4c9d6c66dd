"""Files and Markor tasks (issue 36, family C): move two files with long-press
multi-select, rename a file through its "More options" menu (also starting on another
folder's open Delete dialog: non-home), delete every file of a type (sensitive), move a
file to a folder that does not exist (impossible); create a markdown note, append a line to
one, rename one.

Both apps share the phone's file system, so every check reads the files under /sdcard:
what was asked changed, and nothing else.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Any

from omg_agent.bench.suite.files_nav import (
    FILES,
    MARKOR,
    files_folder,
    long_press,
    markor_doc,
    markor_files,
    more_of,
    new_markor_doc,
    row,
)
from omg_agent.bench.suite.nav import a_tap, confirm
from omg_agent.sim.expert.screen import (
    Screen,
    anchor,
    back,
    report_infeasible,
    tap,
    type_at,
    type_into,
    wait,
)
from omg_agent.sim.expert.tasks import MoveContext, Moves, Task
from omg_agent.vphone.apps import files, markor
from omg_agent.vphone.apps.files_views import ROOT

BASE_TREE = tuple(sorted([rel for rel, *_ in files.SEED]
                         + [f"Documents/Markor/{n}" for n in markor.SEED]))


def tree(phone: Any) -> list[str]:
    return phone.apps[FILES].tree()


def tree_after(removed: list[str], added: list[str]) -> list[str]:
    return sorted((set(BASE_TREE) - set(removed)) | set(added))


@dataclass
class MoveFiles(Task):
    """Move two files from one folder to another: long press, tap, Move to, Move here."""

    names: list[str] = field(default_factory=list)
    src: str = "Download"
    dest: str = "Documents"

    def __post_init__(self) -> None:
        a, b = self.names
        self.goal = f"In Files, move {a} and {b} from {self.src} to the {self.dest} folder"
        self.criteria = 'Files says "2 items moved"'

    def check(self, phone: Any) -> bool:
        return tree(phone) == tree_after([f"{self.src}/{n}" for n in self.names],
                                         [f"{self.dest}/{n}" for n in self.names])

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        app = phone.apps[FILES]
        if app.screen.name == "picker" and not app.dialog:
            return self._pick(app, screen)
        moves = files_folder(phone, screen, self.src, keep_selection=True)
        if moves:
            return moves
        if not app.selecting:
            first = row(screen, self.names[0])
            return [long_press(first), a_tap(text=self.names[1])] if first else [wait()]
        names = {posixpath.basename(p) for p in app.selection} ^ set(self.names)
        flips = [e for n in sorted(names) if (e := row(screen, n)) is not None]
        if flips:
            return [tap(flips[0])]
        move = screen.find(desc="Move to")
        return [tap(move), a_tap(text=self.dest), a_tap(text="Move here")] if move else [wait()]

    def _pick(self, app: Any, screen: Screen) -> Moves:
        here = app.screen.params["path"]
        if here == f"{ROOT}/{self.dest}":
            button = screen.find(text="Move here")
            return [tap(button)] if button else [wait()]
        folder = row(screen, self.dest) if here == ROOT else None
        return [tap(folder), a_tap(text="Move here")] if folder else [back()]


@dataclass
class RenameFile(Task):
    """Rename a file through its row's "More options" → Rename → the dialog's field → OK.
    ``non_home``: the run starts in Files on another folder with a Delete dialog open for a
    file that must survive."""

    folder: str = "Download"
    old: str = ""
    new: str = ""
    non_home: bool = False

    def __post_init__(self) -> None:
        self.goal = f"In Files, rename {self.old} in {self.folder} to {self.new}"
        self.criteria = f'the {self.folder} folder lists "{self.new}"'

    def setup(self, phone: Any) -> None:
        if self.non_home:
            app = phone.apps[FILES]
            phone.start_activity(FILES)
            app.open_path(f"{ROOT}/Pictures")
            app.act("delete", [f"{ROOT}/Pictures/cat.png"])
            phone.changed()

    def check(self, phone: Any) -> bool:
        return tree(phone) == tree_after([f"{self.folder}/{self.old}"],
                                         [f"{self.folder}/{self.new}"])

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        app = phone.apps[FILES]
        mine = app.targets == [f"{ROOT}/{self.folder}/{self.old}"]
        if app.dialog == "rename" and mine:
            box = next((e for e in screen.elements if e.hint == "File name"), None)
            ok = screen.find(text="OK")
            typed = [type_into(box, self.new)] if box and app.field("rename") != self.new else []
            return [*typed, tap(ok)] if ok else typed or [wait()]
        if app.menu == f"{ROOT}/{self.folder}/{self.old}":
            item = screen.find(text="Rename")
            return [tap(item), *self._fill()] if item else [back()]
        moves = files_folder(phone, screen, self.folder)
        if moves:
            return moves
        more = more_of(screen, self.old)
        return [tap(more), a_tap(text="Rename"), *self._fill()] if more else [wait()]

    def _fill(self) -> Moves:
        return [type_at(anchor(text="File name"), self.new), a_tap(text="OK")]


@dataclass
class DeleteByType(Task):
    """Delete every file of one type in a folder: multi-select them, Delete, confirm —
    after the user's yes."""

    ext: str = ".pdf"
    folder: str = "Download"
    doomed: list[str] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self.doomed = sorted(posixpath.basename(rel) for rel, *_ in files.SEED
                             if rel.startswith(f"{self.folder}/") and rel.endswith(self.ext))
        self.goal = f"Delete all the {self.ext} files in the {self.folder} folder in Files"
        self.criteria = f'Files says "{len(self.doomed)} items deleted"'
        self.question = (f"Delete {', '.join(self.doomed)} from {self.folder}? "
                         "It cannot be undone.")

    def check(self, phone: Any) -> bool:
        return tree(phone) == tree_after([f"{self.folder}/{n}" for n in self.doomed], [])

    def answer_user(self, question: str) -> str | None:
        return "Yes."

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        app = phone.apps[FILES]
        wanted = [f"{ROOT}/{self.folder}/{n}" for n in self.doomed]
        if app.dialog == "delete" and sorted(app.targets) == wanted:
            button = [e for e in screen.elements if e.text == "Delete"]
            return confirm(ctx, self.question, tap(button[-1])) if button else [wait()]
        moves = files_folder(phone, screen, self.folder, keep_selection=True)
        if moves:
            return moves
        if not app.selecting:
            first = row(screen, self.doomed[0])
            return ([long_press(first), *(a_tap(text=n) for n in self.doomed[1:])] if first
                    else [wait()])
        names = {posixpath.basename(p) for p in app.selection} ^ set(self.doomed)
        flips = [e for n in sorted(names) if (e := row(screen, n)) is not None]
        if flips:
            return [tap(flips[0])]
        delete = screen.find(desc="Delete")
        return confirm(ctx, self.question, tap(delete)) if delete else [wait()]


@dataclass
class MoveToMissingFolder(Task):
    """Impossible: move a file to a folder that does not exist (the picker has none)."""

    name: str = ""
    dest: str = "Work"

    def __post_init__(self) -> None:
        self.goal = f"In Files, move {self.name} from Download into the {self.dest} folder"
        self.criteria = f'the "{self.dest}" folder lists "{self.name}"'

    def check(self, phone: Any) -> bool:
        return tree(phone) == list(BASE_TREE)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        app = phone.apps[FILES]
        if app.screen.name == "picker":
            if row(screen, "Documents") is None:
                return [back()]
            return [report_infeasible(f"There is no {self.dest} folder: the Move to picker "
                                      "lists only " + ", ".join(files.FOLDERS) + ".")]
        if app.menu == f"{ROOT}/Download/{self.name}":
            item = screen.find(text="Move to…")
            return [tap(item)] if item else [back()]
        moves = files_folder(phone, screen, "Download")
        if moves:
            return moves
        more = more_of(screen, self.name)
        return [tap(more), a_tap(text="Move to…")] if more else [wait()]


# -- Markor ------------------------------------------------------------------------------
def docs_after(removed: list[str], added: dict[str, str]) -> dict[str, str]:
    docs = {n: t for n, t in markor.SEED.items() if n not in removed}
    return {n: t.rstrip("\n") for n, t in {**docs, **added}.items()}


def docs(phone: Any) -> dict[str, str]:
    return {n: t.rstrip("\n") for n, t in markor_files(phone).items()}


@dataclass
class MarkorCreate(Task):
    """Create a markdown document with a given body (the name dialog, then the editor)."""

    name: str = ""
    body: str = ""

    def __post_init__(self) -> None:
        self.goal = f"In Markor, create a note file {self.name} with the text: {self.body}"
        self.criteria = f'the editor of "{self.name}" says "Saved"'

    def check(self, phone: Any) -> bool:
        return docs(phone) == docs_after([], {self.name: self.body})

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        return [] if self.check(phone) else new_markor_doc(phone, screen, self.name, self.body)


@dataclass
class MarkorAppend(Task):
    """Add a line at the end of an existing document and save it."""

    name: str = "todo.md"
    line: str = ""

    def __post_init__(self) -> None:
        self.goal = f"In Markor, add the line \"{self.line}\" at the end of {self.name}"
        self.criteria = f'the editor of "{self.name}" says "Saved"'
        self.text = markor.SEED[self.name].rstrip("\n") + "\n" + self.line

    def check(self, phone: Any) -> bool:
        return docs(phone) == docs_after([], {self.name: self.text})

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        res = "document__fragment__edit__highlighting_editor"
        fill = [type_at(anchor(res=res), self.text), a_tap(res="action_save")]
        moves = markor_doc(phone, screen, self.name, fill)
        if moves:
            return moves
        box, save = screen.find(res=res), screen.find(res="action_save")
        if box is None or save is None:
            return [wait()]
        typed = [] if phone.apps[MARKOR].field("body") == self.text else [
            type_into(box, self.text)]
        return [*typed, tap(save)]


@dataclass
class MarkorRename(Task):
    """Rename a document: its editor's More options → Rename → the name field → OK."""

    old: str = "ideas.md"
    new: str = ""

    def __post_init__(self) -> None:
        self.goal = f"In Markor, rename the note {self.old} to {self.new}"
        self.criteria = f'Markor lists "{self.new}"'

    def check(self, phone: Any) -> bool:
        return docs(phone) == docs_after([self.old], {self.new: markor.SEED[self.old]})

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        app = phone.apps[MARKOR]
        fill = [type_at(anchor(res="new_file_dialog__name"), self.new), a_tap(text="OK")]
        if app.screen.name == "editor" and app.doc == self.old:
            if app.dialog == "rename":
                box, ok = screen.find(res="new_file_dialog__name"), screen.find(text="OK")
                if not (box and ok):
                    return [wait()]
                return [*([] if box.text == self.new else [type_into(box, self.new)]), tap(ok)]
            if app.menu:
                item = screen.find(text="Rename")
                return [tap(item), *fill] if item else [back()]
        if app.screen.name == "editor" and app.doc == self.new:
            return [back()]
        route = [a_tap(desc="More options"), a_tap(text="Rename"), *fill]
        moves = markor_doc(phone, screen, self.old, route)
        if moves:
            return moves
        more = screen.find(desc="More options")
        return [tap(more), *route[1:]] if more else [wait()]
