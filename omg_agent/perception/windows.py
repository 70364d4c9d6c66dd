"""Windows of a ``uiautomator dump``: which is on top, which are system bars, what they cover.

A dump made on Android 11+ (``uiautomator dump``, uiautomator2) holds one top-level
``<node>`` per window — the app, the status bar, the navigation bar, the keyboard, edge
handles, floating overlays — in an order that says nothing about which is on top (the same
phone writes the keyboard first in one dump and last in the next). Older dumps hold one
window. This module gives every window a *kind* and a z-rank from what it is:

========  ====  =======================================================================
kind      rank  what
========  ====  =======================================================================
app       0     the screen: the largest window that is not the system UI nor a keyboard
                (the system UI's own largest window when nothing else is there — the
                notification shade or the lock screen *is* the screen then)
popup     1/3   a smaller window over it: the app's own (1), another app's (3)
keyboard  2     an input method
bar       4     a thin strip on a screen edge of the system or of another app:
                status bar, navigation bar, gesture strips, edge-panel handles
system    5     the system UI over an app: notification shade, volume or power dialog
========  ====  =======================================================================

Each window *covers* the screen where it takes taps: its bounds — or, for keyboards and
other apps' overlays, whose windows are often larger than what they draw (a handwriting
toolbar in a full-height window), the boxes of the nodes it shows. :func:`visible_part`
cuts what a higher window covers off an element's bounds.

A popup that is *touch-modal* (``Window.modal``) takes every touch on the screen, so nothing
in a window below it can be tapped: a dialog or menu of the app itself, or a system dialog
(:data:`SYSTEM_DIALOG_PACKAGES`), that has something to tap. The exception is a dropdown
under a field that holds the input focus (an autocomplete list): the field stays usable.
Another app's overlay (a chat head) lets touches through.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace

from omg_agent.core.geometry import Bounds

SYSTEM_UI = "com.android.systemui"
_SYSTEM_PACKAGES = (SYSTEM_UI, "gesture", "android")
_IME_RE = re.compile(r"inputmethod|keyboard|honeyboard|swiftkey|pinyin|\.ime\b|"
                     r"baidu\.input|sogou|iflytek", re.IGNORECASE)
BAR_SHARE = 0.12  # a strip at most this share of the screen's width/height is a bar
KINDS = ("app", "popup", "keyboard", "bar", "system")
# Packages whose windows are the system's own dialogs (ANR, permissions, installs).
SYSTEM_DIALOG_PACKAGES = frozenset({
    "android", "com.android.permissioncontroller", "com.google.android.permissioncontroller",
    "com.android.packageinstaller", "com.google.android.packageinstaller",
})
_ACTION_FLAGS = ("clickable", "long-clickable", "checkable", "scrollable")


@dataclass(frozen=True)
class Window:
    """One top-level window of a dump."""

    node: ET.Element
    bounds: Bounds
    package: str
    kind: str
    rank: int
    covers: tuple[Bounds, ...]  # where it takes taps
    modal: bool = False  # takes every touch: nothing in a lower window can be tapped

    @property
    def label(self) -> str:
        """The group name its elements carry (``UIElement.window``); ``""`` for the app."""
        return "" if self.kind == "app" else self.kind


def is_keyboard(package: str) -> bool:
    """Whether ``package`` is an input method (Gboard, SwiftKey, Samsung, Sogou …)."""
    return bool(_IME_RE.search(package))


def _bounds(node: ET.Element) -> Bounds:
    try:
        return Bounds.parse(node.get("bounds", ""))
    except ValueError:
        return Bounds(0, 0, 0, 0)


def screen_size(roots: list[ET.Element]) -> tuple[int, int]:
    """The screen's pixel size as far as the dump tells: the windows' far edges."""
    boxes = [_bounds(r) for r in roots]
    return (max((b.right for b in boxes), default=0), max((b.bottom for b in boxes), default=0))


def _is_strip(b: Bounds, width: int, height: int) -> bool:
    if b.empty or not width or not height:
        return False
    horizontal = b.height <= BAR_SHARE * height and (b.top <= 0 or b.bottom >= height)
    vertical = b.width <= BAR_SHARE * width and (b.left <= 0 or b.right >= width)
    return horizontal or vertical


def _content_boxes(root: ET.Element) -> tuple[Bounds, ...]:
    """The boxes of what a window shows: nodes that act or speak, and childless nodes
    smaller than half the window (a full-size empty layer draws nothing)."""
    half = _bounds(root).area / 2
    boxes = []
    for node in root.iter("node"):
        if node.get("visible-to-user") == "false":
            continue
        b = _bounds(node)
        if b.empty:
            continue
        acts = any(node.get(f) == "true" for f in ("clickable", "long-clickable",
                                                     "scrollable", "checkable"))
        leaf = node.find("node") is None and b.area < half
        if acts or node.get("text") or node.get("content-desc") or leaf:
            boxes.append(b)
    return tuple(boxes)


def find_windows(roots: list[ET.Element]) -> list[Window]:
    """The windows of a dump's top-level nodes, bottom first (rank, then document order)."""
    width, height = screen_size(roots)
    infos = [(r, _bounds(r), r.get("package", "")) for r in roots]

    def ordinary(pkg: str) -> bool:
        return pkg not in _SYSTEM_PACKAGES and not is_keyboard(pkg)

    apps = [i for i in infos if ordinary(i[2]) and not _is_strip(i[1], width, height)]
    pool = apps or [i for i in infos if not is_keyboard(i[2])] or infos
    main = max(pool, key=lambda i: i[1].area) if pool else None
    main_pkg = main[2] if main else ""
    out: list[Window] = []
    for node, box, pkg in infos:
        covers: tuple[Bounds, ...] = (box,)
        if main is not None and node is main[0]:
            kind, rank = "app", 0
        elif is_keyboard(pkg):
            kind, rank, covers = "keyboard", 2, _content_boxes(node)
        elif _is_strip(box, width, height) and (pkg != main_pkg or pkg in _SYSTEM_PACKAGES):
            kind, rank = "bar", 4
        elif pkg == SYSTEM_UI:
            kind, rank = "system", 5
        elif pkg == main_pkg:
            kind, rank = "popup", 1
        else:
            kind, rank, covers = "popup", 3, _content_boxes(node)
        out.append(Window(node, box, pkg, kind, rank, covers))
    typing = main is not None and _typing(main[0])
    out = [replace(w, modal=_modal(w, typing)) for w in out]
    order = {id(w.node): i for i, w in enumerate(out)}
    return sorted(out, key=lambda w: (w.rank, order[id(w.node)]))


def _typing(app: ET.Element) -> bool:
    """Whether a text field of the app window holds the input focus."""
    return any(n.get("focused") == "true" and "EditText" in n.get("class", "")
               for n in app.iter("node"))


def _modal(w: Window, app_typing: bool) -> bool:
    if w.kind != "popup" or (w.rank != 1 and w.package not in SYSTEM_DIALOG_PACKAGES):
        return False
    if app_typing and w.rank == 1:
        return False  # an autocomplete dropdown: the focused field beneath stays usable
    return any(n.get(f) == "true" for n in w.node.iter("node") for f in _ACTION_FLAGS)


def under_modal(window: Window, windows: list[Window]) -> bool:
    """Whether a touch-modal window above ``window`` takes all of its touches."""
    return any(w.modal and w.rank > window.rank for w in windows)


MIN_VISIBLE_PX = 8  # a part thinner than this is not a place to tap


def visible_part(bounds: Bounds, covers: list[Bounds]) -> Bounds | None:
    """The largest rectangle of ``bounds`` that no box of ``covers`` hides, or ``None``
    when nothing tappable is left. A cover across one end cuts that end off; a cover in
    the middle of a side leaves the largest of the strips around it."""
    box = bounds
    for _ in range(3):  # a cut may move the box under another cover: settle it
        for c in covers:
            cut = box.intersection(c)
            if cut is None:
                continue
            strips = [Bounds(box.left, box.top, cut.left, box.bottom),
                      Bounds(cut.right, box.top, box.right, box.bottom),
                      Bounds(box.left, box.top, box.right, cut.top),
                      Bounds(box.left, cut.bottom, box.right, box.bottom)]
            left = [s for s in strips if s.width >= MIN_VISIBLE_PX
                    and s.height >= MIN_VISIBLE_PX]
            if not left:
                return None
            box = max(left, key=lambda s: s.area)
        if not any(c.intersection(box) for c in covers):
            return box
    return None


def covered_by(window: Window, windows: list[Window]) -> list[Bounds]:
    """The boxes of every window above ``window``."""
    return [c for w in windows if w.rank > window.rank for c in w.covers]
