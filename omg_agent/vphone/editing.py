"""Selection and clipboard of the focused edit field: what Ctrl+A/C/X/V do on a phone.

``input keycombination KEYCODE_CTRL_LEFT KEYCODE_A`` selects the whole text of the focused
field; the next DEL clears it and the next typed text replaces it (as an EditText does); any
other key or touch drops the selection. Ctrl+C/X copy/cut the selection to the phone's one
clipboard, Ctrl+V pastes it at the caret (replacing a selection). The selection is kept for one
(package, field) pair only, so changing focus or app forgets it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from omg_agent.vphone.phone import VirtualPhone

KEY_CTRL = (113, 114)  # KEYCODE_CTRL_LEFT, KEYCODE_CTRL_RIGHT
KEY_A, KEY_C, KEY_V, KEY_X = 29, 31, 50, 52


class Editing:
    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self.clipboard = ""
        self._selected: tuple[str, str] | None = None  # (package, field key)

    def _target(self) -> tuple[str, str] | None:
        app = self.phone.app
        return None if app.focus is None else (app.package, app.focus)

    def selected(self) -> bool:
        return self._selected is not None and self._selected == self._target()

    def take(self) -> bool:
        """Whether the focused field's text was selected; the selection ends either way."""
        was = self.selected()
        self._selected = None
        return was

    def combo(self, codes: list[int]) -> bool:
        """Apply a Ctrl+key combination; False if it is not one (the caller decides)."""
        if not any(c in KEY_CTRL for c in codes[:-1]):
            return False
        key = codes[-1]
        app = self.phone.app
        target = self._target()
        if target is None:
            return True  # no edit field: the shortcut reaches nothing that edits text
        if key == KEY_A:
            self._selected = target
        elif key in (KEY_C, KEY_X) and self.selected():
            self.clipboard = app.field(target[1])
            if key == KEY_X:
                self.take()
                app.set_field(target[1], "")
        elif key == KEY_V and self.clipboard:
            self.phone.input_text(self.clipboard)
        return True
