"""A macOS AX tree as the element list the phone uses: one rule from AX node to element.

The tree is what :func:`~.mac_ax.read_app` returns (or a recorded fixture in the same
vocabulary): nested dicts of AX attributes — ``AXRole``, ``AXSubrole``, ``AXTitle``,
``AXValue``, ``AXDescription``, ``AXHelp``, ``AXPlaceholderValue``, ``AXIdentifier``,
``AXEnabled``, ``AXFocused``, ``AXSelected``, ``AXPosition`` {x, y} and ``AXSize`` {w, h}
in points, ``AXChildren`` — plus ``ref``, the handle actions go to. The root is an
``AXApplication`` (its ``AXWindows``, focused first, and its ``AXMenuBar``) or one
``AXWindow``.

Elements carry the phone's vocabulary (:mod:`omg_agent.perception.uitree`): roles
``button``, ``input``, ``checkbox``, ``switch``, ``radio``, ``tab``, ``dropdown``,
``slider``, ``item``, ``text``, ``image``, ``list`` — so the gate, the anchors, the checks
and the element list judge a Mac control as they judge a phone's — plus the desktop's
``menuitem`` and ``link`` (as the Linux AT-SPI reader names them: a menu item is no list
row). Windows map to the
phone's window groups (``UIElement.window``):

* the main window (else the first that is not a dialog) is the app's screen (``""``); a
  standard window behind it is not listed (it is covered, as an app behind the
  foreground one on a phone);
* a sheet (a Save sheet), a dialog window and an open menu are ``"popup"``: over the app,
  taking its input; the window's elements under a sheet are not listed;
* the menu bar's items are ``"menubar"``;
* a window's title is a ``text`` element on its title bar (class ``AXWindow``): a check
  can name it ("todo.rtf" once the document is saved under that name).

A row of a table or outline (System Settings' sidebar, a file list) is one ``item`` with
its cells' texts (``text`` and ``extra_texts``), as a list row on a phone. A secure text
field is a password field whose value never leaves.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import UIElement
from omg_agent.drivers.desktop.backend import DisplayScale

# AX role -> (our role, clickable, editable, checkable)
ROLES: dict[str, tuple[str, bool, bool, bool]] = {
    "AXButton": ("button", True, False, False),
    "AXMenuButton": ("button", True, False, False),
    "AXDisclosureTriangle": ("button", True, False, False),
    "AXPopUpButton": ("dropdown", True, False, False),
    "AXLink": ("link", True, False, False), "AXMenuItem": ("menuitem", True, False, False),
    "AXMenuBarItem": ("menuitem", True, False, False), "AXRow": ("item", True, False, False),
    "AXCheckBox": ("checkbox", True, False, True), "AXRadioButton": ("radio", True, False, True),
    "AXTextField": ("input", True, True, False), "AXTextArea": ("input", True, True, False),
    "AXComboBox": ("input", True, True, False), "AXSlider": ("slider", True, False, False),
    "AXStaticText": ("text", False, False, False), "AXImage": ("image", False, False, False),
    "AXScrollArea": ("list", False, False, False),
    "AXWindow": ("text", False, False, False),  # its title, where the title bar shows it
}
SUBROLES = {"AXSwitch": "switch", "AXToggle": "switch", "AXTabButton": "tab"}
SECURE = "AXSecureTextField"
POPUP_WINDOWS = frozenset({"AXDialog", "AXSystemDialog", "AXFloatingWindow",
                           "AXSystemFloatingWindow"})
AUTO_IDENTIFIER = re.compile(r"_NS:\d+")  # AppKit's numbering of nib views without a name
SCROLLABLE = frozenset({"AXScrollArea", "AXTable", "AXOutline", "AXList"})
TITLE_BAR_PT = 28  # a window's title bar: the title as a text element of this height
MAX_ELEMENTS = 3000  # a page of web content can hold more; the model needs far fewer


@dataclass
class _Flat:
    """What a flattening collects: the elements and their AX refs by element id."""

    scale: DisplayScale
    app: str
    screen: tuple[int, int] | None
    elements: list[UIElement] = field(default_factory=list)
    refs: dict[int, Any] = field(default_factory=dict)


def flatten_ax(tree: dict[str, Any], scale: DisplayScale, app: str = "",
               screen: tuple[int, int] | None = None
               ) -> tuple[list[UIElement], dict[int, Any]]:
    """The AX tree of one app (or one window) as elements in pixel bounds and their AX refs
    by element id: the main window, its sheets, dialog windows, open menus, the menu bar —
    in that order."""
    flat = _Flat(scale, app, screen)
    if tree.get("AXRole") != "AXApplication":
        _window(flat, tree, "")
        return flat.elements, flat.refs
    windows = [w for w in tree.get("AXWindows") or () if isinstance(w, dict)]
    dialogs = [w for w in windows if str(w.get("AXSubrole") or "") in POPUP_WINDOWS]
    screen_window = next((w for w in windows if w.get("AXMain")), None) or next(
        (w for w in windows if all(w is not d for d in dialogs)), None)
    dialogs = [d for d in dialogs if d is not screen_window]
    if screen_window is not None:  # less what the dialogs over it cover
        _window(flat, screen_window, "", tuple(
            c for d in dialogs if (c := _frame(d, scale, screen)) is not None))
    for dialog in dialogs:
        _window(flat, dialog, "popup" if screen_window is not None else "")
    menubar = tree.get("AXMenuBar")
    bar = [c for c in (menubar.get("AXChildren") or () if isinstance(menubar, dict) else ())
           if isinstance(c, dict)]
    for item in bar:  # an open menu: its items (a closed one has no frame)
        for menu in _children(item):
            if menu.get("AXRole") == "AXMenu" and _frame(menu, scale, screen) is not None:
                _add_tree(flat, menu, "popup", skip=())
    for item in bar:
        _add(flat, item, "menubar")
    return flat.elements, flat.refs


def _children(node: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in node.get("AXChildren") or () if isinstance(c, dict)]


def _window(flat: _Flat, window: dict[str, Any], group: str,
            covered: tuple[Bounds, ...] = ()) -> None:
    """A window's elements but those under ``covered`` or its sheets; the sheets' after
    them, as ``popup``."""
    sheets = [c for c in _children(window) if c.get("AXRole") == "AXSheet"]
    covers = covered + tuple(c for s in sheets
                             if (c := _frame(s, flat.scale, flat.screen)) is not None)
    _add_tree(flat, window, group, skip=tuple(map(id, sheets)), covers=covers)
    for sheet in sheets:
        _add_tree(flat, sheet, "popup", skip=())


def _add_tree(flat: _Flat, root: dict[str, Any], group: str, skip: tuple[int, ...],
              covers: tuple[Bounds, ...] = ()) -> None:
    """The elements of ``root``'s tree but the ``skip``ped subtrees and what ``covers``
    hide (a sheet over its window)."""
    for node in _walk(root, skip):
        if len(flat.elements) >= MAX_ELEMENTS:
            return
        _add(flat, node, group, covers)


def _walk(node: dict[str, Any], skip: tuple[int, ...] = ()) -> Iterator[dict[str, Any]]:
    """Depth first, in order; a row's cells are its own (merged into it), not walked."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current.get("AXRole") == "AXRow":
            continue
        stack.extend(reversed([c for c in current.get("AXChildren") or ()
                               if isinstance(c, dict) and id(c) not in skip]))


def _add(flat: _Flat, node: dict[str, Any], group: str,
         covers: tuple[Bounds, ...] = ()) -> None:
    element = ax_element(node, len(flat.elements) + 1, flat.scale, flat.app, flat.screen,
                         group)
    if element is not None and not any(c.contains(element.center) for c in covers):
        flat.elements.append(element)
        flat.refs[element.id] = node.get("ref")


def ax_element(node: dict[str, Any], element_id: int, scale: DisplayScale, app: str = "",
               screen: tuple[int, int] | None = None, window: str = "") -> UIElement | None:
    """One AX node as an element, or ``None`` for a container, something off the screen,
    or text and images with nothing to say."""
    role_name = str(node.get("AXRole") or "")
    kind = ROLES.get(role_name)
    if kind is None:
        return None
    bounds = _frame(node, scale, screen)
    if bounds is None:
        return None
    if role_name == "AXWindow":  # the title bar, so a check can name the window's title
        bounds = bounds._replace(bottom=min(bounds.bottom,
                                            bounds.top + round(TITLE_BAR_PT * scale.factor)))
    role, clickable, editable, checkable = kind
    subrole = str(node.get("AXSubrole") or "")
    role = SUBROLES.get(subrole, role)
    value = node.get("AXValue")
    text, desc, hint = _words(node, role, editable, subrole == SECURE)
    extras: tuple[str, ...] = ()
    if role_name == "AXRow":  # a row reads as its cells, as a list row on a phone
        cells = [t for c in _descendants(node) if (t := _cell_text(c))]
        if not text and cells:
            text, cells = cells[0], cells[1:]
        extras = tuple(cells)
    if not (text or desc or hint or extras) and role in ("text", "image"):
        return None
    on = value in (1, True, "1")
    tab = role == "tab"
    return UIElement(
        id=element_id, cls=role_name + (f"/{subrole}" if subrole else ""), role=role,
        bounds=bounds, text=text, desc=desc, package=app, extra_texts=extras,
        clickable=clickable, checkable=checkable and not tab, checked=checkable and on
        and not tab, focused=bool(node.get("AXFocused")) and role_name != "AXWindow",
        enabled=node.get("AXEnabled", True) is not False, password=subrole == SECURE,
        editable=editable, selected=bool(node.get("AXSelected")) or (tab and on),
        scrollable=role_name in SCROLLABLE, resource_id=_identifier(node), hint=hint,
        window=window)


def _words(node: dict[str, Any], role: str, editable: bool,
           secure: bool) -> tuple[str, str, str]:
    """(text, description, hint) of a node: a field's value (never a secure one's), a
    label's value, else the title."""
    title, value = _text(node.get("AXTitle")), node.get("AXValue")
    desc = _text(node.get("AXDescription")) or _text(node.get("AXHelp"))
    hint = _text(node.get("AXPlaceholderValue"))
    if editable:
        text = "" if secure else _text(value)
        desc = desc or title  # a field's title is its label
    elif role in ("text", "dropdown"):
        text = _text(value) or title
    else:
        text = title
    if not (text or desc or hint) and node.get("AXSubrole"):
        # a window's close / minimise / full-screen buttons carry no title, description
        # or help: their (localised) role description is all that names them
        desc = _text(node.get("AXRoleDescription"))
    return text, desc, hint


def _descendants(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for child in _children(node):
        yield child
        yield from _descendants(child)


def _cell_text(node: dict[str, Any]) -> str:
    if node.get("AXRole") in ("AXStaticText", "AXTextField"):
        return _text(node.get("AXValue")) or _text(node.get("AXTitle"))
    return ""


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _identifier(node: dict[str, Any]) -> str:
    """``AXIdentifier`` as the element's resource id — the developer's name for it (e.g.
    ``FinderWindow``, ``bannerText``), stable across runs like an Android resource id.
    AppKit numbers the views it loads from a nib without one (``_NS:61``); such names change
    from build to build and are no anchor, so they are dropped."""
    ident = _text(node.get("AXIdentifier"))
    return "" if AUTO_IDENTIFIER.fullmatch(ident) else ident


def _frame(node: dict[str, Any], scale: DisplayScale,
           screen: tuple[int, int] | None) -> Bounds | None:
    pos, size = node.get("AXPosition"), node.get("AXSize")
    if not isinstance(pos, dict) or not isinstance(size, dict):
        return None
    try:
        b = scale.bounds_to_pixels(float(pos["x"]), float(pos["y"]), float(size["w"]),
                                   float(size["h"]))
    except (KeyError, TypeError, ValueError):
        return None
    if b.empty:
        return None
    if screen is None:
        return b
    # the part on this display: a frame scrolled out of view or on another display is
    # dropped, one reaching past the edge (a desktop group spanning two displays) is cut
    # to the screen so its centre — where a click lands — is on it
    return b.intersection(Bounds(0, 0, screen[0], screen[1]))
