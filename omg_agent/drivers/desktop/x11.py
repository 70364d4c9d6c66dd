"""The Linux X11 backend: mss frames, XTest input, clipboard paste for any text.

Everything goes to one X display (``:99``; default ``$DISPLAY``): screenshots through mss
(MIT-SHM, ~16 ms for 1920x1080), pointer, wheel and keys through the XTest extension of
python-xlib (the server cannot tell them from a person's), text as key presses when every
character has a key on the current keymap, else pasted from a clipboard this process owns
(:mod:`.x11clip`: CJK and emoji with no input method and no keymap games). A key the keymap
lacks (``Super_L`` on a bare Xvfb) is mapped onto a spare keycode for the press.

The frontmost app is the window holding the input focus, walked up to its top-level
window: ``WM_CLASS`` (the app) and ``WM_NAME`` (the title). Its elements come from the
AT-SPI accessibility tree (:mod:`.atspi`) of the process that owns that window
(``_NET_WM_PID``) when the display has an accessibility bus and the app is on it (GTK, Qt);
otherwise (Tk, xcalc, no session bus) :meth:`X11Backend.elements` answers ``None`` and the
driver reads the screen with OCR (DESIGN.md §4). With a tree, a click on a known element
is the element's own action and a single-line field's text is set through the tree
(:class:`~.backend.ElementActions`), falling back to input events.
"""

from __future__ import annotations

import logging
import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Sequence
from typing import Any

import mss
from PIL import Image
from Xlib import XK, X, display, error
from Xlib.ext import xtest

from omg_agent.core.observation import UIElement
from omg_agent.drivers.desktop.atspi import AtspiTree
from omg_agent.drivers.desktop.backend import Button, DisplayInfo
from omg_agent.drivers.desktop.x11clip import ClipboardOwner
from omg_agent.errors import ActionRejected, DeviceError

log = logging.getLogger(__name__)

BUTTONS = {"left": 1, "middle": 2, "right": 3}
WHEEL = {"up": 4, "down": 5, "left": 6, "right": 7}
KEYSYMS = {"ctrl": "Control_L", "shift": "Shift_L", "alt": "Alt_L", "cmd": "Super_L",
           "return": "Return", "backspace": "BackSpace", "delete": "Delete", "tab": "Tab",
           "escape": "Escape", "space": "space", "up": "Up", "down": "Down", "left": "Left",
           "right": "Right", "pageup": "Prior", "pagedown": "Next", "home": "Home",
           "end": "End", "insert": "Insert", **{f"f{i}": f"F{i}" for i in range(1, 13)}}
PASTE_TIMEOUT_S = 2.0
CLICK_GAP_S = 0.03  # between the clicks of a double click (well inside any double-click time)


class X11Backend:
    name = "x11"

    def __init__(self, display_name: str | None = None, *, tree: bool = True) -> None:
        name = display_name or os.environ.get("DISPLAY", "")
        if not name:
            raise DeviceError("no X display: pass desktop=:N or set DISPLAY",
                              serial="desktop", command="open display")
        self.display_name = name
        try:
            self._d = display.Display(name)
        except (error.DisplayError, error.DisplayConnectionError, OSError) as e:
            raise DeviceError(f"cannot open X display {name}: {e}", serial=f"desktop={name}",
                              command="open display") from e
        if not self._d.has_extension("XTEST"):
            raise DeviceError(f"X display {name} has no XTEST extension (input needs it)",
                              serial=f"desktop={name}", command="XTEST")
        self._root = self._d.screen().root
        self._grab = mss.MSS(display=name)
        self._clipboard: ClipboardOwner | None = None
        self.launched: list[subprocess.Popen[bytes]] = []
        self._want_tree = tree
        self._tree: AtspiTree | None = None

    # -- screen ----------------------------------------------------------------------------
    def display(self) -> DisplayInfo:
        s = self._d.screen()
        mm = s.width_in_mms or 1
        dpi = round(s.width_in_pixels / (mm / 25.4)) if s.width_in_mms else 96
        return DisplayInfo(self.display_name, s.width_in_pixels, s.height_in_pixels, dpi=dpi)

    def screenshot(self) -> Image.Image:
        shot = self._grab.grab(self._grab.monitors[0])
        return Image.frombytes("RGB", shot.size, shot.bgra, "raw", "BGRX")

    # -- pointer ---------------------------------------------------------------------------
    def move(self, x: float, y: float) -> None:
        xtest.fake_input(self._d, X.MotionNotify, x=round(x), y=round(y))
        self._d.sync()

    def press(self, x: float, y: float, button: Button = "left") -> None:
        self.move(x, y)
        xtest.fake_input(self._d, X.ButtonPress, BUTTONS[button])
        self._d.sync()

    def release(self, x: float, y: float, button: Button = "left") -> None:
        self.move(x, y)
        xtest.fake_input(self._d, X.ButtonRelease, BUTTONS[button])
        self._d.sync()

    def click(self, x: float, y: float, button: Button = "left", count: int = 1) -> None:
        self.move(x, y)
        for i in range(count):
            if i:
                time.sleep(CLICK_GAP_S)
            xtest.fake_input(self._d, X.ButtonPress, BUTTONS[button])
            xtest.fake_input(self._d, X.ButtonRelease, BUTTONS[button])
            self._d.sync()

    def scroll(self, x: float, y: float, dx: int, dy: int) -> None:
        self.move(x, y)
        for button, n in ((WHEEL["down"] if dy > 0 else WHEEL["up"], abs(dy)),
                          (WHEEL["right"] if dx > 0 else WHEEL["left"], abs(dx))):
            for _ in range(n):
                xtest.fake_input(self._d, X.ButtonPress, button)
                xtest.fake_input(self._d, X.ButtonRelease, button)
        self._d.sync()

    # -- keys and text ---------------------------------------------------------------------
    def hotkey(self, keys: Sequence[str]) -> None:
        codes = [self._keycode(_keysym(k)) for k in keys]
        for code, _ in codes:
            xtest.fake_input(self._d, X.KeyPress, code)
        for code, _ in reversed(codes):
            xtest.fake_input(self._d, X.KeyRelease, code)
        self._d.sync()

    def type_text(self, text: str) -> None:
        """Key presses when the keymap has every character, else a clipboard paste."""
        keys = [self._keymap_key(ch) for ch in text]
        if all(k is not None for k in keys):
            shift = self._d.keysym_to_keycode(XK.string_to_keysym("Shift_L"))
            for k in keys:
                assert k is not None
                code, shifted = k
                if shifted:
                    xtest.fake_input(self._d, X.KeyPress, shift)
                xtest.fake_input(self._d, X.KeyPress, code)
                xtest.fake_input(self._d, X.KeyRelease, code)
                if shifted:
                    xtest.fake_input(self._d, X.KeyRelease, shift)
            self._d.sync()
            return
        self.paste(text)

    def paste(self, text: str) -> None:
        if self._clipboard is None:
            self._clipboard = ClipboardOwner(self.display_name)
        try:
            self._clipboard.offer(text)
        except OSError as e:
            raise ActionRejected(str(e), serial=f"desktop={self.display_name}",
                                 command="paste") from e
        self.hotkey(["ctrl", "v"])
        if not self._clipboard.wait_served(PASTE_TIMEOUT_S):
            raise ActionRejected("the focused window did not paste the text (no text field "
                                 "focused, or its paste key is not ctrl+v)",
                                 serial=f"desktop={self.display_name}", command="paste")

    def _keymap_key(self, ch: str) -> tuple[int, bool] | None:
        """(keycode, needs shift) for a character the keymap has, else None."""
        sym = _char_keysym(ch)
        code = self._d.keysym_to_keycode(sym)
        if not code:
            return None
        if self._d.keycode_to_keysym(code, 0) == sym:
            return code, False
        if self._d.keycode_to_keysym(code, 1) == sym:
            return code, True
        return None

    def _keycode(self, sym: int) -> tuple[int, bool]:
        code = self._d.keysym_to_keycode(sym)
        if code:
            return code, False
        return self._spare_keycode(sym), False

    def _spare_keycode(self, sym: int) -> int:
        """Map ``sym`` onto a keycode with no symbol (kept: the keymap only grows)."""
        first = self._d.display.info.min_keycode
        count = self._d.display.info.max_keycode - first + 1
        mapping = self._d.get_keyboard_mapping(first, count)
        for i, syms in enumerate(mapping):
            if not any(syms):
                self._d.change_keyboard_mapping(first + i, [(sym,) * len(syms)])
                self._d.sync()
                time.sleep(0.02)  # clients refresh their keymap on MappingNotify
                return first + i
        raise ActionRejected(f"no spare keycode to map keysym {sym:#x} on",
                             serial=f"desktop={self.display_name}", command="hotkey")

    # -- apps ------------------------------------------------------------------------------
    def launch(self, command: str) -> None:
        argv = shlex.split(command)
        if not argv or shutil.which(argv[0]) is None:
            raise ActionRejected(f"cannot launch {command!r}: {argv[0] if argv else 'nothing'}"
                                 " is not a program on PATH",
                                 serial=f"desktop={self.display_name}", command="launch")
        env = {**os.environ, "DISPLAY": self.display_name}
        self.launched.append(subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                              stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL,
                                              start_new_session=True))

    def apps(self) -> list[str]:
        """Programs on PATH (what :meth:`launch` starts by name)."""
        names: set[str] = set()
        for folder in os.environ.get("PATH", "").split(os.pathsep):
            try:
                names.update(e.name for e in os.scandir(folder)
                             if e.is_file() and os.access(e.path, os.X_OK))
            except OSError:
                continue
        return sorted(names)

    def _toplevel(self) -> object | None:
        """The top-level window of the focus (or, with no window manager, the pointer)."""
        window = self._d.get_input_focus().focus
        if not hasattr(window, "get_wm_class") or window == self._root:
            window = self._root.query_pointer().child  # no WM: keys follow the pointer
        for _ in range(16):  # focus window up to the top-level window that names the app
            if not hasattr(window, "get_wm_class"):
                break  # PointerRoot / None: nothing focused
            try:
                if window.get_wm_class():
                    return window
                parent = window.query_tree().parent
            except error.XError:
                break
            if not parent or parent == self._root:
                break
            window = parent
        return None

    def frontmost(self) -> tuple[str, str]:
        window: Any = self._toplevel()
        try:
            if window is not None:
                wm_class = window.get_wm_class()
                return wm_class[1] or wm_class[0], window.get_wm_name() or ""
        except error.XError:
            pass
        return "", ""

    def frontmost_pid(self) -> int:
        """The process of the frontmost window (``_NET_WM_PID``; 0 when it says none)."""
        window: Any = self._toplevel()
        if window is None:
            return 0
        try:
            prop = window.get_full_property(self._d.intern_atom("_NET_WM_PID"),
                                            X.AnyPropertyType)
        except error.XError:
            return 0
        return int(prop.value[0]) if prop is not None and len(prop.value) else 0

    @property
    def tree(self) -> AtspiTree | None:
        """The accessibility bus, opened on first use (None without one)."""
        if self._tree is None and self._want_tree:
            self._want_tree = False  # looked for once
            d = self.display()
            self._tree = AtspiTree.open(self.display_name, (d.width, d.height))
        return self._tree

    def elements(self) -> list[UIElement] | None:
        tree = self.tree
        if tree is None:
            return None
        pid = self.frontmost_pid()
        return tree.elements(pid, self.frontmost()[0]) if pid else None

    def press_element(self, element: UIElement) -> bool:
        return self._tree is not None and self._tree.press_element(element)

    def set_value(self, element: UIElement, text: str) -> bool:
        return self._tree is not None and self._tree.set_value(element, text)

    def close(self) -> None:
        if self._tree is not None:
            self._tree.close()
        if self._clipboard is not None:
            self._clipboard.close()
        self._grab.close()
        self._d.close()


def _keysym(key: str) -> int:
    name = KEYSYMS.get(key, key)
    sym = XK.string_to_keysym(name)
    if not sym and len(key) == 1:
        sym = _char_keysym(key)
    if not sym:
        raise ValueError(f"no X keysym for key {key!r}")
    return int(sym)


def _char_keysym(ch: str) -> int:
    """A character's keysym: Latin-1 keysyms equal their code point, others are Unicode."""
    if ch == "\n":
        return int(XK.string_to_keysym("Return"))
    if ch == "\t":
        return int(XK.string_to_keysym("Tab"))
    code = ord(ch)
    return code if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF else 0x01000000 + code
