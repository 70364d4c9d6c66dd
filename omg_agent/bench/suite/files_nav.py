"""Moves family C's tasks share (issue 36): reach a contact's page in Contacts, a folder in
Files, a document in Markor — from wherever the phone is, past open menus and dialogs.

Contacts and Files are Compose-style: no resource ids, so routes anchor by text and
description (a contact row's merged label "Kevin Park, +1 650-555-0119" anchors by the
name); Markor has ids. As in :mod:`.nav`, every helper returns the next moves from the
CURRENT screen and an empty list once the place is reached.
"""

from __future__ import annotations

from typing import Any

from omg_agent.bench.suite.nav import a_tap, front
from omg_agent.sim.expert.screen import (
    Element,
    Screen,
    anchor,
    back,
    tap,
    type_at,
    type_into,
    wait,
)
from omg_agent.sim.expert.tasks import Moves
from omg_agent.vphone.apps.contacts import ContactsApp
from omg_agent.vphone.apps.files import FilesApp
from omg_agent.vphone.apps.files_views import ROOT
from omg_agent.vphone.apps.markor import FOLDER as MARKOR_DIR
from omg_agent.vphone.apps.markor import MarkorApp

CONTACTS, FILES, MARKOR = ContactsApp.package, FilesApp.package, MarkorApp.package


def a_type_text(label: str, text: str) -> dict[str, Any]:
    """Type into the field an anchor names by its text or hint (Compose fields have no id)."""
    return type_at(anchor(text=label), text)


def long_press(e: Element) -> dict[str, Any]:
    return {"type": "long_press", "target": {"kind": "element", "id": e.id}}


def row(screen: Screen, name: str) -> Element | None:
    """A list row named ``name``: its own text, or the first clause of a merged label."""
    return next((e for e in screen.elements if "editable" not in e.flags
                 and (e.text == name or e.text.startswith(f"{name}, "))), None)


def more_of(screen: Screen, name: str) -> Element | None:
    """The "More options" button of the row named ``name`` (the element right after it)."""
    found = row(screen, name)
    if found is None:
        return None
    after = [e for e in screen.elements if e.id > found.id]
    return after[0] if after and after[0].desc in ("More options", "更多选项") else None


# -- Contacts ----------------------------------------------------------------------------
def contact_page(phone: Any, screen: Screen, name: str, then: Moves | None = None) -> Moves:
    """Moves to ``name``'s contact page (empty when there), then the anchored ``then``."""
    app: ContactsApp = phone.apps[CONTACTS]
    hint = app.t("Search contacts", "搜索联系人")
    route = [a_tap(text=name), *(then or [])]  # a name below the fold: searched next turn
    moves = front(phone, screen, CONTACTS, route)
    if moves:
        return moves
    if app.menu or app.confirm:
        return [back()]
    if app.screen.name == "detail":
        here = app.current()
        return [] if here is not None and app.find(name) == app.screen.params.get(
            "index") else [back()]
    if app.screen.name != "main":
        return [back()]
    found = row(screen, name)
    if found is not None:
        return [tap(found), *(then or [])]
    box = next((e for e in screen.elements if e.hint == hint), None)
    # typing filters the list in place (no new screen): the row is tapped on the next look
    return [type_into(box, name)] if box and app.field("search") != name else [wait()]


# -- Files -------------------------------------------------------------------------------
def files_folder(phone: Any, screen: Screen, folder: str, then: Moves | None = None,
                 *, keep_selection: bool = False) -> Moves:
    """Moves to the Files list of /sdcard/``folder`` with no menu, dialog or (unless
    ``keep_selection``) selection open; then the anchored ``then``."""
    app: FilesApp = phone.apps[FILES]
    moves = front(phone, screen, FILES, [a_tap(text=folder), *(then or [])])
    if moves:
        return moves
    if app.dialog or app.menu:
        cancel = screen.find(text=app.t("Cancel", "取消"))
        return [tap(cancel)] if cancel and app.dialog else [back()]
    if app.screen.name != "main" or (app.selecting and not keep_selection):
        return [back()]
    target = f"{ROOT}/{folder}"
    if app.cwd == target:
        return []
    if app.cwd != ROOT:
        return [back()]
    found = row(screen, folder)
    return [tap(found), *(then or [])] if found else [wait()]


# -- Markor ------------------------------------------------------------------------------
def markor_list(phone: Any, screen: Screen) -> Moves:
    """Moves to Markor's file list (leaving a document saves it, as Markor does)."""
    app: MarkorApp = phone.apps[MARKOR]
    moves = front(phone, screen, MARKOR)
    if moves:
        return moves
    return [back()] if app.dialog or app.menu or app.screen.name != "main" else []


def markor_doc(phone: Any, screen: Screen, name: str, then: Moves | None = None) -> Moves:
    """Moves to Markor's editor of ``name`` (empty when there), then the anchored ``then``."""
    app: MarkorApp = phone.apps[MARKOR]
    route = [a_tap(res="note_item", text=name), *(then or [])]
    moves = front(phone, screen, MARKOR, route)
    if moves:
        return moves
    if app.screen.name == "editor" and app.doc == name and not (app.dialog or app.menu):
        return []
    if app.screen.name != "main" or app.dialog or app.menu:
        return [back()]
    item = screen.find(res="note_item", text=name)
    return [tap(item), *(then or [])] if item else [wait()]


def markor_files(phone: Any) -> dict[str, str]:
    app: MarkorApp = phone.apps[MARKOR]
    return {n: app.read(n) for n in app.names()}


def write_markor(phone: Any, path: str, text: str) -> None:
    """Put a document in Markor's folder (the suite's setups and near misses)."""
    phone.fs.write(f"{MARKOR_DIR}/{path}", text.encode())


def new_markor_doc(phone: Any, screen: Screen, name: str, body: str,
                   shown: str | None = None) -> Moves:
    """Moves that create Markor document ``name`` holding ``body`` (``shown``: what a
    ``$var`` body reads once typed) from any screen."""
    app: MarkorApp = phone.apps[MARKOR]
    fill = [type_at(anchor(res="document__fragment__edit__highlighting_editor"), body),
            a_tap(res="action_save")]
    create = [a_tap(res="fab_add"), type_at(anchor(res="new_file_dialog__name"), name),
              a_tap(text=app.t("OK", "确定")), *fill]
    moves = front(phone, screen, MARKOR, create)
    if moves:
        return moves
    if app.screen.name == "editor" and app.doc == name and not app.dialog:
        box = screen.find(res="document__fragment__edit__highlighting_editor")
        save = screen.find(res="action_save")
        if box is None or save is None:
            return [back()] if app.menu else [wait()]
        typed = [] if app.field("body") == (shown or body) else [type_into(box, body)]
        return [*typed, tap(save)]
    if app.dialog == "new":
        box = screen.find(res="new_file_dialog__name")
        ok = screen.find(text=app.t("OK", "确定"))
        if not (box and ok):
            return [wait()]
        # a turn that acts once (a one-action model) finds the name typed: confirm it
        return [*([] if box.text == name else [type_into(box, name)]), tap(ok), *fill]
    moves = markor_list(phone, screen)
    if moves:
        return moves
    if name in app.names():  # created on an earlier turn: open it and write
        return markor_doc(phone, screen, name, fill)
    fab = screen.find(res="fab_add")
    return [tap(fab), *create[1:]] if fab else [wait()]
