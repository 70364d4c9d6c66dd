"""An app's AT-SPI nodes as the element list every driver gives (pure; no bus).

:func:`atspi_elements` turns the :class:`~.atspi_tree.Node` records of one app into
:class:`~omg_agent.core.observation.UIElement` s in the phone's vocabulary
(``perception.uitree``): ``button``, ``input``, ``checkbox``, ``radio``, ``switch``,
``dropdown``, ``slider``, ``progress``, ``tab``, ``item``, ``list``, ``text``, ``image``,
plus the desktop's ``menuitem`` and ``link`` (as the macOS port names them). Each carries
its name (``text``; an input's text is its *content*, its name becomes its ``hint``),
description, the states the phone has (focused, checked, selected, editable, enabled,
password), its extents in screen pixels, the app (``package``) and its window.

Windows: the app's top-level windows are its frame(s), dialogs (a save or open dialog is a
``file chooser``) and pop-up menus. The main frame's elements have no ``window``; a
dialog's or an open menu's elements (listed after the window's own) have
``window="popup"``, as a phone's dialog does
(the element list prints them as their own group). While a *modal* dialog is up, the
windows under it take no clicks, so only the dialog is listed — what a person can use.
Structural nodes (fillers, panels, frames, scroll panes, menu bars) are not elements;
nodes that are not ``showing`` or lie off the screen are left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import UIElement
from omg_agent.drivers.desktop.atspi_bus import Ref
from omg_agent.drivers.desktop.atspi_tree import Node

# AT-SPI role name -> our role, clickable
ROLES: dict[str, tuple[str, bool]] = {
    "push button": ("button", True), "toggle button": ("button", True),
    "button": ("button", True), "push button menu": ("button", True),
    "check box": ("checkbox", True), "check menu item": ("checkbox", True),
    "radio button": ("radio", True), "radio menu item": ("radio", True),
    "switch": ("switch", True), "toggle switch": ("switch", True),
    "menu": ("menuitem", True), "menu item": ("menuitem", True), "link": ("link", True),
    "combo box": ("dropdown", True), "page tab": ("tab", True),
    "list item": ("item", True), "table cell": ("item", True), "tree item": ("item", True),
    "icon": ("image", False), "image": ("image", False),
    "slider": ("slider", True), "spin button": ("input", True),
    "progress bar": ("progress", False), "list": ("list", False), "table": ("list", False),
    "tree table": ("list", False), "tree": ("list", False), "list box": ("list", False),
    "label": ("text", False), "static": ("text", False), "heading": ("text", False),
    "caption": ("text", False), "status bar": ("text", False),
    "table column header": ("button", True), "table row header": ("button", True),
    "text": ("text", False), "entry": ("text", False), "password text": ("text", False),
    "paragraph": ("text", False), "document text": ("text", False),
    "terminal": ("text", False), "editbar": ("text", False),
}
WINDOW_ROLES = frozenset({"frame", "dialog", "file chooser", "alert", "window",
                          "color chooser", "font chooser"})
DIALOG_ROLES = WINDOW_ROLES - {"frame", "window"}
CHECKABLE_ROLES = frozenset({"checkbox", "radio", "switch"})
SCROLLABLE_ROLES = frozenset({"list"})
OFF_SCREEN = -10000  # GTK reports (-2**31, -2**31) for what it has not placed


def _bounds(node: Node, screen: tuple[int, int] | None) -> Bounds | None:
    x, y, w, h = node.extents
    if w <= 0 or h <= 0 or x < OFF_SCREEN or y < OFF_SCREEN:
        return None
    b = Bounds(x, y, x + w, y + h)
    if screen is not None:
        sw, sh = screen
        b = Bounds(max(0, b.left), max(0, b.top), min(sw, b.right), min(sh, b.bottom))
        if b.right <= b.left or b.bottom <= b.top:
            return None
    return b


def _listed_windows(nodes: Sequence[Node]) -> tuple[set[int], set[int]]:
    """(windows whose elements are listed, those of them that are pop-ups)."""
    tops = {n.window: n for n in nodes if n.depth == 1}
    shown = {w for w, n in tops.items() if "showing" in n.states or "visible" in n.states}
    popups = {w for w in shown if tops[w].role in DIALOG_ROLES or tops[w].role == "window"}
    modal = {w for w in popups if "modal" in tops[w].states}
    if modal:
        return modal, modal
    return shown, popups


def _row_labels(nodes: Sequence[Node]) -> tuple[dict[Ref, tuple[str, ...]], set[Ref]]:
    """The labels inside each unnamed clickable node (a file chooser's place row holds an
    icon and a label "Home"): they name the row, as on a phone (``perception.uitree``);
    the labels themselves (the set) are then not listed on their own."""
    by = {n.ref: n for n in nodes}
    out: dict[Ref, tuple[str, ...]] = {}
    used: set[Ref] = set()
    for n in nodes:
        kind = ROLES.get(n.role)
        if kind is None or not kind[1] or n.name.strip() or "editable" in n.states:
            continue
        found: list[str] = []
        todo = list(n.children)
        while todo:
            c = by.get(todo.pop(0))
            if c is None or "showing" not in c.states:
                continue
            ours = ROLES.get(c.role)
            if ours is not None and ours[0] == "text" and c.name.strip() \
                    and "editable" not in c.states:
                found.append(c.name.strip())
                used.add(c.ref)
            elif ours is None or not ours[1]:  # through containers, not into controls
                todo.extend(c.children)
        if found:
            out[n.ref] = tuple(found)
    return out, used


def _element(node: Node, role: str, clickable: bool, bounds: Bounds, content: str | None,
             app: str, window: str, element_id: int,
             labels: tuple[str, ...] = ()) -> UIElement | None:
    st = node.states
    password = node.role == "password text"
    editable = "editable" in st and "read_only" not in st
    if editable or node.role == "spin button":
        role = "input"
    if role == "input":
        text, hint = ("" if password else content or ""), node.name
    elif role == "text":
        text, hint = (content or "").strip() or node.name.strip(), ""
    else:
        text, hint = node.name.strip() or next(iter(labels), ""), ""
    if not (text or node.description or labels) and (
            role in ("text", "image") or node.role in ("table cell", "menu")):
        return None  # nothing to say; an unnamed cell wraps the named cells of its row,
        # an unnamed menu is the box of a pop-up menu's items
    checkable = role in CHECKABLE_ROLES or "checkable" in st
    return UIElement(
        id=element_id, cls=node.role, role=role, bounds=bounds, text=text,
        desc=node.description, package=app, clickable=clickable or editable,
        scrollable=role in SCROLLABLE_ROLES, checkable=checkable,
        checked=checkable and ("checked" in st or "pressed" in st and role != "button"),
        focused="focused" in st, enabled="sensitive" in st or "enabled" in st,
        password=password, editable=editable, selected="selected" in st, hint=hint,
        window=window, extra_texts=labels[1:])


def atspi_elements(nodes: Sequence[Node], app: str, *,
                   texts: Mapping[Ref, str] | None = None,
                   screen: tuple[int, int] | None = None
                   ) -> tuple[list[UIElement], dict[int, Ref]]:
    """The elements of one app's ``nodes`` and each element's object by element id.

    ``texts`` holds the content of text objects (the Text interface's ``GetText``);
    ``screen`` (width, height) clips bounds to the screen."""
    listed, popups = _listed_windows(nodes)
    labels, merged = _row_labels(nodes)
    elements: list[UIElement] = []
    refs: dict[int, Ref] = {}
    ordered = sorted((n for n in nodes if n.window in listed),
                     key=lambda n: (n.window in popups or n.in_menu, n.window))
    for node in ordered:
        kind = ROLES.get(node.role)
        if kind is None or "showing" not in node.states or node.ref in merged:
            continue
        bounds = _bounds(node, screen)
        if bounds is None:
            continue
        content = (texts or {}).get(node.ref)
        window = "popup" if node.window in popups or node.in_menu else ""
        e = _element(node, *kind, bounds, content, app, window, len(elements) + 1,
                     labels.get(node.ref, ()))
        if e is not None:
            elements.append(e)
            refs[e.id] = node.ref
    return elements, refs


def windows(nodes: Sequence[Node]) -> list[tuple[str, str]]:
    """The app's showing top-level windows as (role, name), in the app's order."""
    return [(n.role, n.name) for n in nodes
            if n.depth == 1 and n.role in WINDOW_ROLES and "showing" in n.states]
