"""The macOS backend: everything above pyobjc, tested on Linux against a fake adapter.

:class:`MacBackend` implements :class:`~.backend.DesktopBackend` over a
:class:`~.mac_adapter.MacAdapter` — the one module that calls pyobjc (Quartz CGEvent and
screen capture, AppKit's pasteboard and workspace, the AX API). What lives here is the
logic worth testing without a Mac:

* **Retina**: the adapter speaks points; the screenshot is in pixels; the display's
  backing scale (2.0 on Retina) is the :class:`~.backend.DisplayScale` the driver converts
  with, and AX frames (points) become pixel bounds through it;
* **the AX tree** read through :mod:`.mac_ax` (the seam over the AX API) and turned into
  the phone's element list by :mod:`.mac_ax_elements` (:func:`flatten_ax`): the main
  window, its sheets and dialogs, open menus and the menu bar, with roles and states; a
  secure text field is a password field;
* **AX actions first**: a tap on a known button is ``AXPress`` and typing into a known
  field sets ``AXValue`` (:class:`~.backend.ElementActions`); synthetic input otherwise;
* **keys** as macOS virtual key codes and modifier flags; **text** through the clipboard
  (saved, pasted with cmd+v, restored) with a per-character fallback
  (``CGEventKeyboardSetUnicodeString``) when the pasteboard refuses;
* **permissions**: Screen Recording and Accessibility are checked when the backend opens,
  and a missing one is an error that says where to switch it on.

Untested on real hardware until ``pytest -m mac`` runs on a Mac (see the README).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from PIL import Image

from omg_agent.core.observation import UIElement
from omg_agent.drivers.desktop.backend import Button, DisplayInfo, DisplayScale
from omg_agent.drivers.desktop.mac_adapter import MacAdapter
from omg_agent.drivers.desktop.mac_ax_elements import ROLES, flatten_ax
from omg_agent.errors import ActionRejected, DeviceError

log = logging.getLogger(__name__)

SERIAL = "desktop=mac"
PASTE_SETTLE_S = 0.15  # the app reads the pasteboard after cmd+v is handled; restore after
CLICK_GAP_S = 0.03
FLAGS = {"shift": 0x20000, "ctrl": 0x40000, "alt": 0x80000, "cmd": 0x100000}
MODIFIER_KEYS = {"cmd": 0x37, "shift": 0x38, "alt": 0x3A, "ctrl": 0x3B}
KEYCODES = {
    **dict(zip("asdfhgzxcv", range(0x00, 0x0A), strict=True)), "b": 0x0B, "q": 0x0C,
    "w": 0x0D, "e": 0x0E, "r": 0x0F, "y": 0x10, "t": 0x11, "1": 0x12, "2": 0x13, "3": 0x14,
    "4": 0x15, "6": 0x16, "5": 0x17, "=": 0x18, "9": 0x19, "7": 0x1A, "-": 0x1B, "8": 0x1C,
    "0": 0x1D, "]": 0x1E, "o": 0x1F, "u": 0x20, "[": 0x21, "i": 0x22, "p": 0x23, "l": 0x25,
    "j": 0x26, "'": 0x27, "k": 0x28, ";": 0x29, "\\": 0x2A, ",": 0x2B, "/": 0x2C, "n": 0x2D,
    "m": 0x2E, ".": 0x2F, "`": 0x32, "return": 0x24, "tab": 0x30, "space": 0x31,
    "backspace": 0x33, "escape": 0x35, "home": 0x73, "pageup": 0x74, "delete": 0x75,
    "end": 0x77, "pagedown": 0x79, "left": 0x7B, "right": 0x7C, "down": 0x7D, "up": 0x7E,
    "insert": 0x72, "f1": 0x7A, "f2": 0x78, "f3": 0x63, "f4": 0x76, "f5": 0x60, "f6": 0x61,
    "f7": 0x62, "f8": 0x64, "f9": 0x65, "f10": 0x6D, "f11": 0x67, "f12": 0x6F,
    **MODIFIER_KEYS}
PRESSABLE = frozenset({"button", "item", "menuitem", "link", "checkbox", "switch", "radio",
                       "tab", "dropdown"})
__all__ = ["FLAGS", "KEYCODES", "ROLES", "MacBackend", "flatten_ax"]


class MacBackend:
    name = "mac"

    def __init__(self, adapter: MacAdapter | None = None) -> None:
        if adapter is None:
            from omg_agent.drivers.desktop.mac_adapter import QuartzAdapter

            adapter = QuartzAdapter()
        self.a = adapter
        missing = [what for what, ok in (
            ("Screen Recording", adapter.screen_recording_allowed()),
            ("Accessibility", adapter.accessibility_allowed())) if not ok]
        if missing:
            raise DeviceError(
                "macOS has not allowed this program " + " and ".join(
                    {"Screen Recording": "to see the screen",
                     "Accessibility": "to control the computer"}[m] for m in missing)
                + ": open System Settings → Privacy & Security → "
                + " and ".join(missing) + ", switch on the app you run omg-agent from "
                "(Terminal, iTerm, your IDE or Python), then start it again",
                serial=SERIAL, command="permissions")
        self._refs: dict[int, Any] = {}
        self._elements: dict[int, UIElement] = {}

    # -- screen ----------------------------------------------------------------------------
    def display(self) -> DisplayInfo:
        w, h = self.a.screen_size_points()
        factor = self.a.backing_scale()
        return DisplayInfo("main", round(w * factor), round(h * factor), DisplayScale(factor),
                           dpi=round(72 * factor))

    def screenshot(self) -> Image.Image:
        image = self.a.capture()
        return image if image.mode == "RGB" else image.convert("RGB")

    # -- pointer ---------------------------------------------------------------------------
    def move(self, x: float, y: float) -> None:
        self.a.post_mouse("move", x, y)

    def press(self, x: float, y: float, button: Button = "left") -> None:
        self.a.post_mouse("down", x, y, button)

    def release(self, x: float, y: float, button: Button = "left") -> None:
        self.a.post_mouse("up", x, y, button)

    def click(self, x: float, y: float, button: Button = "left", count: int = 1) -> None:
        self.a.post_mouse("move", x, y)
        for n in range(1, count + 1):  # macOS counts the clicks of a double click itself
            if n > 1:
                time.sleep(CLICK_GAP_S)
            self.a.post_mouse("down", x, y, button, clicks=n)
            self.a.post_mouse("up", x, y, button, clicks=n)

    def scroll(self, x: float, y: float, dx: int, dy: int) -> None:
        self.a.post_mouse("move", x, y)
        self.a.post_scroll(-dy, -dx)  # CGEvent wheel: positive scrolls the content down

    # -- keys and text ---------------------------------------------------------------------
    def hotkey(self, keys: Sequence[str]) -> None:
        *mods, key = keys
        flags = 0
        for m in mods:
            if m not in FLAGS:
                raise ValueError(f"not a modifier on macOS: {m!r}")
            flags |= FLAGS[m]
        code = KEYCODES.get(key.lower())
        if code is None:
            raise ValueError(f"no macOS key code for {key!r}")
        if key.isalpha() and len(key) == 1 and key.isupper():
            flags |= FLAGS["shift"]
        for m in mods:
            self.a.post_key(MODIFIER_KEYS[m], True, flags)
        self.a.post_key(code, True, flags)
        self.a.post_key(code, False, flags)
        for m in reversed(mods):
            self.a.post_key(MODIFIER_KEYS[m], False, 0)

    def type_text(self, text: str) -> None:
        """Paste through the clipboard (what was on it is put back), else type each
        character as a unicode key event."""
        saved = self.a.clipboard_get()
        if self.a.clipboard_set(text):
            self.hotkey(["cmd", "v"])
            time.sleep(PASTE_SETTLE_S)
            if saved is not None:
                self.a.clipboard_set(saved)
            return
        log.info("mac: the pasteboard refused the text; typing %d chars one by one",
                 len(text))
        for ch in text:
            self.a.post_unicode(ch)

    # -- elements --------------------------------------------------------------------------
    def elements(self) -> list[UIElement] | None:
        app = self.a.frontmost_app()
        if app is None:
            return None
        tree = self.a.ax_tree(app.pid)
        if tree is None:
            return None
        d = self.display()
        elements, refs = flatten_ax(tree, d.scale, app.name, (d.width, d.height))
        self._refs = refs
        self._elements = {e.id: e for e in elements}
        return elements

    def _ref(self, element: UIElement) -> Any:
        known = self._elements.get(element.id)
        if known is None or known.bounds != element.bounds:
            return None  # not from the last tree read: no stale presses
        return self._refs.get(element.id)

    def press_element(self, element: UIElement) -> bool:
        ref = self._ref(element)
        return (ref is not None and element.role in PRESSABLE
                and self.a.ax_perform(ref, "AXPress"))

    def set_value(self, element: UIElement, text: str) -> bool:
        ref = self._ref(element)
        return ref is not None and element.editable and self.a.ax_set_value(ref, text)

    # -- apps ------------------------------------------------------------------------------
    def launch(self, command: str) -> None:
        if not self.a.launch(command):
            raise ActionRejected(f"cannot open {command!r}: no such application",
                                 serial=SERIAL, command=f"open -a {command}")

    def apps(self) -> list[str]:
        return self.a.app_names()

    def frontmost(self) -> tuple[str, str]:
        app = self.a.frontmost_app()
        if app is None:
            return "", ""
        return app.name, self.a.window_title(app.pid)

    def close(self) -> None:
        self._refs.clear()
