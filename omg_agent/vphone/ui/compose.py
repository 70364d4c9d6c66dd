"""Compose-style views: what a Jetpack Compose screen looks like to uiautomator.

A Compose app has one ``AndroidComposeView`` and exposes its semantics tree as accessibility
nodes: class ``android.view.View`` for layout and clickable surfaces,
``android.widget.TextView`` for text, ``android.widget.Button`` / ``CheckBox`` /
``EditText`` for the roles it knows — and no resource ids at all (``testTag`` is not
exported by default). Two shapes of "merged semantics" are common and both are built here:

* :meth:`Compose.row` — a clickable row (``Modifier.clickable`` merges its descendants for
  TalkBack) whose texts stay in the dump as non-clickable ``TextView`` children: the row's
  own text is empty and a reader must lend it its children's texts;
* :meth:`Compose.merged_row` — ``Modifier.clearAndSetSemantics``/``semantics(mergeDescendants)``
  with the texts joined as one label: one node whose ``text`` is the children's texts joined
  with ``", "`` (TalkBack's reading) and no child nodes.

:meth:`Compose.menu` is a ``DropdownMenu`` (a popup window of clickable items, dismissed by a
touch outside), :meth:`Compose.dialog` an ``AlertDialog`` (buttons without
``android:id/button1``), :meth:`Compose.field` an ``OutlinedTextField``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from omg_agent.vphone.ui.kit import DIVIDER, MUTED, ON_SURFACE, PRIMARY, SURFACE, Kit
from omg_agent.vphone.ui.view import Bounds, Handler, View

VIEW = "android.view.View"
TEXT = "android.widget.TextView"
MENU_ITEM_DP = 48


def _outside(handler: Handler) -> Callable[[int, int], None]:
    """A touch anywhere outside a popup calls ``handler`` (the point does not matter)."""
    def touched(x: int, y: int) -> None:
        handler()
    return touched


@dataclass
class Compose:
    """Compose-style builders over a :class:`Kit` (geometry and package)."""

    kit: Kit

    def node(self, bounds: Bounds, *, cls: str = VIEW, **kw) -> View:
        return self.kit.view(cls, bounds, **kw)

    def text(self, bounds: Bounds, text: str, *, size: float = 16,
             color: tuple[int, int, int] = ON_SURFACE, bold: bool = False,
             align: str = "left") -> View:
        return self.node(bounds, cls=TEXT, text=text, kind="text",
                         style={"size": self.kit.dp(size), "fg": color, "bold": bold,
                                "align": align})

    def top_bar(self, title: str, *, on_back: Handler | None = None,
                actions: Sequence[View] = (), color: tuple[int, int, int] = PRIMARY) -> View:
        """A ``TopAppBar``: an optional back arrow, the title, trailing action icons."""
        k = self.kit
        top = k.profile.status_bar_height
        bar = self.node((0, top, k.width, top + k.dp(56)), style={"bg": color})
        left = k.dp(16)
        if on_back is not None:
            bar.add(self.icon((0, top, k.dp(56), top + k.dp(56)), "←", "Navigate up",
                              on_back, fg=(255, 255, 255)))
            left = k.dp(64)
        right = k.width - k.dp(16) - k.dp(48) * len(actions)
        bar.add(self.text((left, top, right, top + k.dp(56)), title, size=20,
                          color=(255, 255, 255), bold=True))
        bar.add(*actions)
        return bar

    def icon(self, bounds: Bounds, glyph: str, desc: str, on_click: Handler | None, *,
             fg: tuple[int, int, int] = ON_SURFACE, selected: bool = False) -> View:
        """An ``IconButton``: role Button, a content description, no text."""
        return self.node(bounds, cls="android.widget.Button", desc=desc, kind="glyph",
                         clickable=True, focusable=True, on_click=on_click,
                         selected=selected, style={"glyph": glyph, "fg": fg})

    def button(self, bounds: Bounds, label: str, on_click: Handler | None, *,
               color: tuple[int, int, int] = PRIMARY, enabled: bool = True) -> View:
        """A ``Button``: the clickable node carries no text; its ``Text`` child does."""
        b = self.node(bounds, cls="android.widget.Button", kind="box", clickable=True,
                      focusable=True, enabled=enabled, on_click=on_click,
                      style={"bg": color, "radius": self.kit.dp(20)})
        return b.add(self.text(bounds, label, color=(255, 255, 255), bold=True,
                               align="center"))

    def field(self, bounds: Bounds, key: str, value: str, label: str, *,
              focused: bool = False) -> View:
        """An ``OutlinedTextField``: an EditText without an id; its label is the hint."""
        return self.node(bounds, cls="android.widget.EditText", text=value or label,
                         kind="edit", hint=label, clickable=True, focusable=True,
                         long_clickable=True, focused=focused, field_key=key,
                         style={"size": self.kit.dp(17), "hint": not value})

    def row(self, bounds: Bounds, texts: Sequence[str], *, on_click: Handler | None,
            on_long_click: Handler | None = None, lead: View | None = None,
            trailing: Sequence[View] = (), selected: bool = False) -> View:
        """A clickable list row whose ``Text`` children stay separate, non-clickable nodes:
        the first text is the title, the rest subtitles; ``trailing`` views (an
        ``IconButton``) sit at the right end."""
        k = self.kit
        left, top, right, bottom = bounds
        row = self.node(bounds, clickable=on_click is not None,
                        long_clickable=on_long_click is not None,
                        focusable=on_click is not None, on_click=on_click,
                        on_long_click=on_long_click, selected=selected,
                        style={"bg": (220, 232, 252) if selected else SURFACE,
                               "divider": DIVIDER})
        x = left + k.dp(16)
        if lead is not None:
            row.add(lead)
            x = lead.bounds[2] + k.dp(12)
        text_right = right - k.dp(16) - k.dp(48) * len(trailing)
        line = k.dp(26)
        y = top + (bottom - top - line * len(texts)) // 2
        for i, value in enumerate(texts):
            row.add(self.text((x, y, text_right, y + line), value, size=17 if i == 0 else 14,
                              color=ON_SURFACE if i == 0 else MUTED))
            y += line
        return row.add(*trailing)

    def merged_row(self, bounds: Bounds, texts: Sequence[str], *, on_click: Handler | None,
                   lead: View | None = None) -> View:
        """A row with merged semantics: ONE node whose text is ``", ".join(texts)``, its
        children drawn but not in the tree (``clearAndSetSemantics``)."""
        row = self.row(bounds, texts, on_click=on_click, lead=lead)
        row.text = ", ".join(t for t in texts if t)
        row.opaque_to_tree = True
        return row

    def avatar(self, bounds: Bounds, letter: str, color: tuple[int, int, int]) -> View:
        return self.node(bounds, cls="android.widget.ImageView", kind="image",
                         style={"bg": color, "glyph": letter, "fg": (255, 255, 255),
                                "radius": (bounds[3] - bounds[1]) // 2})

    def checkbox(self, bounds: Bounds, checked: bool) -> View:
        """A ``Checkbox`` inside a toggleable row: checkable, not clickable by itself."""
        return self.node(bounds, cls="android.widget.CheckBox", kind="glyph",
                         checkable=True, checked=checked,
                         style={"glyph": "☑" if checked else "☐", "fg": PRIMARY})

    def menu(self, anchor: Bounds, items: Sequence[tuple[str, Handler]], *,
             on_dismiss: Handler) -> View:
        """A ``DropdownMenu`` below (or above, near the bottom) ``anchor``: a popup window
        of clickable items; a touch outside dismisses it (a window flag on a phone, not a
        clickable view: the dump has no node for it)."""
        k = self.kit
        p = k.profile
        w, h = k.dp(200), k.dp(MENU_ITEM_DP) * len(items) + k.dp(16)
        right = min(anchor[2], p.width - k.dp(8))
        top = anchor[3] if anchor[3] + h < p.height - p.nav_bar_height else anchor[1] - h
        scrim = View(cls="android.widget.FrameLayout", bounds=(0, 0, p.width, p.height),
                     package=k.package, kind="scrim", modal=True,
                     on_touch=_outside(on_dismiss), style={"bg": (0, 0, 0, 0)})
        box = self.node((right - w, top, right, top + h),
                        style={"bg": (255, 255, 255), "radius": k.dp(8)})
        y = top + k.dp(8)
        for label, handler in items:
            b = (right - w, y, right, y + k.dp(MENU_ITEM_DP))
            item = self.node(b, clickable=True, focusable=True, on_click=handler)
            item.add(self.text((b[0] + k.dp(16), b[1], b[2] - k.dp(8), b[3]), label))
            box.add(item)
            y += k.dp(MENU_ITEM_DP)
        return scrim.add(box)

    def dialog(self, title: str, body: Sequence[View], buttons: Sequence[tuple[str, Handler]],
               *, message: str = "", on_outside: Handler | None = None) -> View:
        """An ``AlertDialog``: title, message or ``body`` views (laid out by the caller from
        :meth:`dialog_body_top`), text buttons; none of it has an id."""
        k = self.kit
        p = k.profile
        scrim = View(cls="android.widget.FrameLayout", bounds=(0, 0, p.width, p.height),
                     package=k.package, kind="scrim", modal=True,
                     on_touch=_outside(on_outside) if on_outside else None,
                     style={"bg": (0, 0, 0, 110)})
        left, top, right, bottom = self.dialog_box()
        box = self.node((left, top, right, bottom),
                        style={"bg": (255, 255, 255), "radius": k.dp(24)})
        pad = k.dp(24)
        box.add(self.text((left + pad, top + pad, right - pad, top + pad + k.dp(32)), title,
                          size=20, bold=True))
        if message:
            box.add(self.text((left + pad, top + pad + k.dp(40), right - pad,
                               bottom - k.dp(72)), message, color=MUTED))
        box.add(*body)
        bw = k.dp(112)
        for i, (label, handler) in enumerate(reversed(buttons)):
            b_right = right - pad - i * (bw + k.dp(8))
            b = (b_right - bw, bottom - k.dp(64), b_right, bottom - k.dp(16))
            button = self.node(b, cls="android.widget.Button", clickable=True,
                               focusable=True, on_click=handler)
            box.add(button.add(self.text(b, label, color=PRIMARY, bold=True,
                                         align="center")))
        return scrim.add(box)

    def dialog_box(self) -> Bounds:
        k = self.kit
        w, h = k.profile.width - k.dp(64), k.dp(240)
        left, top = (k.profile.width - w) // 2, (k.profile.height - h) // 2 - k.dp(80)
        return left, top, left + w, top + h

    def dialog_body_top(self) -> int:
        """Where a dialog's body views start (below its title)."""
        return self.dialog_box()[1] + self.kit.dp(24 + 48)

    def fab(self, label: str, desc: str, on_click: Handler) -> View:
        """A ``FloatingActionButton`` in the bottom-right corner (an icon with a desc)."""
        k = self.kit
        size, bottom = k.dp(64), k.content[3]
        b = (k.width - size - k.dp(24), bottom - size - k.dp(24), k.width - k.dp(24),
             bottom - k.dp(24))
        return self.node(b, cls="android.widget.Button", desc=desc, kind="button",
                         text="", clickable=True, focusable=True, on_click=on_click,
                         style={"bg": PRIMARY, "fg": (255, 255, 255), "size": k.dp(28),
                                "radius": k.dp(20), "glyph": label}).add(
            self.text(b, label, size=28, color=(255, 255, 255), bold=True, align="center"))
