"""List widgets real apps use and the vphone's first apps did not: a Spinner with its
dropdown, swipe-to-delete rows with an undo snackbar, CheckBox rows, and long-press
multi-select with its "N selected" bar.

Builders take the frame's :class:`Kit` and return plain views, like ``kit.py``'s; the
small state they need between frames (which dropdown is open, what UNDO would restore,
which rows are selected) lives in :class:`Undo` and :class:`Selection`, owned by the app.
As on Android:

- a ``Spinner`` shows its selection (``android:id/text1``); tapping it opens a dropdown, a
  popup window of its own (``ListView`` of ``CheckedTextView`` rows, the selected one
  checked) anchored under it; choosing closes it, a touch outside dismisses it;
- a row swiped sideways by at least :data:`SWIPE_SHARE` of its width is removed and a
  ``Snackbar`` says "Deleted X" with an UNDO action for :data:`UNDO_SECONDS` of the phone's
  (injected) clock; UNDO puts the row back where it was;
- a long press on a row starts multi-select: rows are ``checkable``/``checked``, a tap
  toggles one, the top bar says "N selected" with Delete and a close button.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import partial

from omg_agent.vphone.ui.kit import DIVIDER, MUTED, ON_SURFACE, PRIMARY, SURFACE, Kit
from omg_agent.vphone.ui.view import Bounds, Handler, View

SWIPE_SHARE = 0.4  # a sideways swipe this share of the row's width deletes it
UNDO_SECONDS = 4.0  # how long the snackbar offers UNDO (phone clock)
SNACKBAR_BG = (50, 50, 56)
SELECTED_BG = (222, 232, 252)


# -- Spinner and its dropdown ------------------------------------------------------------
def spinner(kit: Kit, bounds: Bounds, value: str, on_open: Handler, *,
            resource_id: str = "", desc: str = "") -> View:
    """An ``android.widget.Spinner`` showing ``value``; a tap calls ``on_open``."""
    left, top, right, bottom = bounds
    box = kit.view("android.widget.Spinner", bounds, desc=desc, resource_id=resource_id,
                   clickable=True, focusable=True, on_click=on_open,
                   style={"bg": (255, 255, 255), "radius": kit.dp(8), "divider": DIVIDER})
    pad = kit.dp(12)
    box.add(kit.view("android.widget.TextView", (left + pad, top, right - kit.dp(40), bottom),
                     text=value, kind="text", resource_id="android:id/text1",
                     style={"size": kit.dp(16), "fg": ON_SURFACE, "align": "left"}))
    box.add(kit.view("android.widget.ImageView", (right - kit.dp(36), top, right, bottom),
                     kind="glyph", style={"glyph": "▼", "fg": MUTED}))
    return box


def dropdown(kit: Kit, anchor: Bounds, options: Sequence[str], selected: str | None,
             on_pick: Callable[[int], None], on_dismiss: Handler, *,
             menu: bool = False) -> View:
    """The dropdown of a Spinner at ``anchor``: a popup window listing ``options`` (the
    one equal to ``selected`` checked); ``on_pick(i)`` on a choice, ``on_dismiss`` on a
    touch outside. Opens below the anchor, or above it when it would not fit. ``menu``: an
    overflow menu instead, whose rows are plain items (``TextView``), nothing to check."""
    p = kit.profile
    def outside(x: int, y: int) -> None:
        on_dismiss()

    # a touch outside dismisses it: the window's outside-touch flag, no clickable view
    scrim = View(cls="android.widget.FrameLayout", bounds=(0, 0, p.width, p.height),
                 package=kit.package, kind="scrim", modal=True, on_touch=outside,
                 style={"bg": (0, 0, 0, 0)})
    row_h = kit.dp(48)
    height = row_h * len(options)
    left, right = anchor[0], anchor[2]
    top = anchor[3]
    if top + height > p.height - p.nav_bar_height:
        top = max(p.status_bar_height, anchor[1] - height)
    lst = kit.view("android.widget.ListView", (left, top, right, top + height),
                   resource_id="android:id/select_dialog_listview",
                   style={"bg": (255, 255, 255), "radius": kit.dp(4)})
    for i, option in enumerate(options):
        y = top + i * row_h
        cls = "android.widget.TextView" if menu else "android.widget.CheckedTextView"
        lst.add(kit.view(cls, (left, y, right, y + row_h),
                         text=option, kind="text", resource_id="android:id/text1",
                         checkable=not menu, checked=option == selected, clickable=True,
                         focusable=True, on_click=partial(on_pick, i),
                         style={"size": kit.dp(16), "fg": PRIMARY if option == selected
                                else ON_SURFACE, "align": "left", "bg": (255, 255, 255)}))
    scrim.add(lst)
    return scrim


# -- rows --------------------------------------------------------------------------------
def checkbox(kit: Kit, bounds: Bounds, text: str, checked: bool, on_toggle: Handler, *,
             resource_id: str = "", desc: str = "") -> View:
    """An ``android.widget.CheckBox`` labelled ``text``."""
    return kit.view("android.widget.CheckBox", bounds, text=text, desc=desc, kind="checkbox",
                    resource_id=resource_id, checkable=True, checked=checked, clickable=True,
                    focusable=True, on_click=on_toggle,
                    style={"size": kit.dp(17), "fg": MUTED if checked else ON_SURFACE})


def swipeable(kit: Kit, row: View, on_swiped: Handler) -> View:
    """Make ``row`` swipe-to-delete: a sideways swipe of at least :data:`SWIPE_SHARE` of
    its width calls ``on_swiped``; a shorter one springs back (nothing happens)."""
    width = row.bounds[2] - row.bounds[0]

    def swiped(dx: int) -> None:
        if abs(dx) >= SWIPE_SHARE * width:
            on_swiped()

    row.on_swipe = swiped
    return row


def selectable(row: View, key: Hashable, selection: Selection) -> View:
    """Wire ``row`` into multi-select: a long press starts it with this row; while it is
    on, the row is checkable, shows whether it is selected, and a tap toggles it."""
    start = partial(selection.start, key)
    for view in row.walk():  # a long press anywhere on the row, its controls too
        if view is row or view.clickable:
            view.long_clickable, view.on_long_click = True, start
    if selection.active:
        row.checkable, row.checked = True, key in selection.keys
        row.selected = key in selection.keys
        row.on_click = partial(selection.toggle, key)
        row.clickable = True
        if row.selected:
            row.style = {**row.style, "bg": SELECTED_BG}
        for child in row.walk():  # the row's own controls wait until select mode ends
            if child is not row and child.clickable:
                child.on_click = row.on_click
    return row


# -- state kept between frames -----------------------------------------------------------
@dataclass
class Undo:
    """What the snackbar's UNDO would put back, until ``until`` on the phone's clock."""

    clock: Callable[[], float]
    label: str = ""
    restore: Handler | None = None
    until: float = 0.0

    def offer(self, label: str, restore: Handler, seconds: float = UNDO_SECONDS) -> None:
        self.label, self.restore, self.until = label, restore, self.clock() + seconds

    def active(self) -> bool:
        return self.restore is not None and self.clock() < self.until

    def undo(self) -> None:
        if self.active() and self.restore is not None:
            self.restore()
        self.dismiss()

    def dismiss(self) -> None:
        self.label, self.restore, self.until = "", None, 0.0


@dataclass
class Selection:
    """Multi-select: on after a long press, with the keys of the selected rows."""

    keys: list[Hashable] = field(default_factory=list)
    active: bool = False

    def start(self, key: Hashable) -> None:
        self.active = True
        if key not in self.keys:
            self.keys.append(key)

    def toggle(self, key: Hashable) -> None:
        if key in self.keys:
            self.keys.remove(key)
        else:
            self.keys.append(key)
        if not self.keys:
            self.active = False  # the last row unselected ends select mode, as on Android

    def clear(self) -> None:
        self.keys, self.active = [], False


# -- bars --------------------------------------------------------------------------------
def snackbar(kit: Kit, message: str, action: str, on_action: Handler, *,
             bottom: int | None = None) -> View:
    """A Material ``Snackbar`` at the bottom of the content: ``message`` and an ``action``
    button (UNDO)."""
    base = kit.content[3] if bottom is None else bottom
    m = kit.dp(8)
    bounds = (m, base - kit.dp(56) - m, kit.width - m, base - m)
    left, top, right, bot = bounds
    bar = kit.view("android.widget.FrameLayout", bounds,
                   resource_id=f"{kit.package}:id/snackbar_layout",
                   style={"bg": SNACKBAR_BG, "radius": kit.dp(4)})
    bar.add(kit.view("android.widget.TextView", (left + kit.dp(16), top, right - kit.dp(96),
                                                 bot),
                     text=message, kind="text", resource_id=f"{kit.package}:id/snackbar_text",
                     style={"size": kit.dp(15), "fg": (240, 240, 240), "align": "left"}))
    bar.add(kit.view("android.widget.Button", (right - kit.dp(92), top, right - kit.dp(8),
                                               bot),
                     text=action, kind="flat_button", clickable=True, focusable=True,
                     on_click=on_action, resource_id=f"{kit.package}:id/snackbar_action",
                     style={"size": kit.dp(15), "fg": (130, 170, 255), "bold": True}))
    return bar


def selection_bar(kit: Kit, title: str, delete: str, on_delete: Handler, on_close: Handler,
                  *, close_desc: str = "Close") -> View:
    """The contextual top bar of multi-select: close (✕), "N selected" and Delete."""
    top = kit.profile.status_bar_height
    h = kit.dp(56)
    bar = kit.view("android.view.ViewGroup", (0, top, kit.width, top + h),
                   resource_id=f"{kit.package}:id/selection_bar",
                   style={"bg": (60, 64, 72)})
    bar.add(kit.view("android.widget.ImageButton", (0, top, kit.dp(56), top + h),
                     desc=close_desc, kind="glyph", clickable=True, focusable=True,
                     on_click=on_close, resource_id=f"{kit.package}:id/close_selection",
                     style={"glyph": "✕", "fg": (255, 255, 255)}))
    bar.add(kit.text((kit.dp(64), top, kit.width - kit.dp(120), top + h), title, size=20,
                     color=(255, 255, 255), bold=True,
                     resource_id=f"{kit.package}:id/selection_count"))
    bar.add(kit.view("android.widget.Button", (kit.width - kit.dp(112), top, kit.width,
                                               top + h),
                     text=delete, kind="flat_button", clickable=True, focusable=True,
                     on_click=on_delete, resource_id=f"{kit.package}:id/delete_selected",
                     style={"size": kit.dp(16), "fg": (255, 255, 255), "bold": True}))
    return bar


def chip(kit: Kit, bounds: Bounds, text: str, checked: bool, on_click: Handler, *,
         resource_id: str = "") -> View:
    """A Material filter ``Chip`` (checkable; the chosen one checked)."""
    return kit.view("com.google.android.material.chip.Chip", bounds, text=text,
                    kind="button", resource_id=resource_id, checkable=True, checked=checked,
                    clickable=True, focusable=True, on_click=on_click,
                    style={"bg": PRIMARY if checked else (232, 234, 240),
                           "fg": (255, 255, 255) if checked else ON_SURFACE,
                           "size": kit.dp(14), "radius": kit.dp(16)})


__all__ = ["SURFACE", "SWIPE_SHARE", "UNDO_SECONDS", "Selection", "Undo", "checkbox", "chip",
           "dropdown", "selectable", "selection_bar", "snackbar", "spinner", "swipeable"]
