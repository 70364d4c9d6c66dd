"""The pyobjc calls of the macOS backend, behind the narrow :class:`MacAdapter` protocol.

This is the only module that imports pyobjc (``pip install 'omg-agent[desktop]'``), and it
does so when :class:`QuartzAdapter` is built, so the rest of the package imports anywhere.
Each method is one platform call with its result turned into plain Python: points for
coordinates (the backend scales them, :mod:`.mac`), dicts of AX attributes for the
accessibility tree — read by :func:`~.mac_ax.read_app` through the AX seam
(:class:`~.mac_ax.PyObjCAX`), the shape :func:`~.mac_ax_elements.flatten_ax` reads and the
fixtures in ``tests/desktop/fixtures`` hold (written for the tests, not recorded on a
Mac). It cannot run in CI; :mod:`.mac` is tested against a fake of this protocol, and this
module is untested on real hardware until ``pytest -m mac`` runs on a Mac.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from PIL import Image

from omg_agent.drivers.desktop.mac_ax import PyObjCAX, read_app
from omg_agent.extras import require

MouseKind = Literal["move", "down", "up"]
APP_FOLDERS = ("/Applications", "/System/Applications", "~/Applications")


@dataclass(frozen=True)
class AppRef:
    name: str
    pid: int
    bundle_id: str = ""


class MacAdapter(Protocol):
    def screen_recording_allowed(self) -> bool: ...

    def accessibility_allowed(self) -> bool: ...

    def screen_size_points(self) -> tuple[float, float]: ...

    def backing_scale(self) -> float: ...

    def capture(self) -> Image.Image: ...  # the main display, in pixels

    def post_mouse(self, kind: MouseKind, x: float, y: float, button: str = "left",
                   clicks: int = 1) -> None: ...

    def post_scroll(self, dy: int, dx: int) -> None: ...  # lines; positive: content down

    def post_key(self, keycode: int, down: bool, flags: int) -> None: ...

    def post_unicode(self, ch: str) -> None: ...

    def clipboard_get(self) -> str | None: ...

    def clipboard_set(self, text: str) -> bool: ...

    def frontmost_app(self) -> AppRef | None: ...

    def window_title(self, pid: int) -> str: ...

    def ax_tree(self, pid: int) -> dict[str, Any] | None: ...

    def ax_perform(self, ref: Any, action: str) -> bool: ...

    def ax_set_value(self, ref: Any, value: str) -> bool: ...

    def launch(self, name: str) -> bool: ...

    def app_names(self) -> list[str]: ...


class QuartzAdapter:  # pragma: no cover - needs macOS
    """:class:`MacAdapter` through pyobjc (Quartz, AppKit, ApplicationServices)."""

    def __init__(self) -> None:
        require("desktop", "the macOS desktop driver")
        import AppKit
        import ApplicationServices
        import Quartz

        self.Q, self.AK, self.AX = Quartz, AppKit, ApplicationServices
        self.ax = PyObjCAX(ApplicationServices)  # the AX seam (.mac_ax)
        self._display = Quartz.CGMainDisplayID()
        self._down: str | None = None  # the button held, so moves become drags

    # -- permissions and screen ------------------------------------------------------------
    def screen_recording_allowed(self) -> bool:
        check = getattr(self.Q, "CGPreflightScreenCaptureAccess", None)
        return bool(check()) if check is not None else True  # before 10.15: no such gate

    def accessibility_allowed(self) -> bool:
        return bool(self.AX.AXIsProcessTrusted())

    def screen_size_points(self) -> tuple[float, float]:
        rect = self.Q.CGDisplayBounds(self._display)
        return float(rect.size.width), float(rect.size.height)

    def backing_scale(self) -> float:
        screens = self.AK.NSScreen.screens()  # the first is the primary (menu bar) display,
        return float(screens[0].backingScaleFactor())  # the one CGMainDisplayID captures

    def capture(self) -> Image.Image:
        Q = self.Q
        ref = Q.CGDisplayCreateImage(self._display)
        width, height = Q.CGImageGetWidth(ref), Q.CGImageGetHeight(ref)
        stride = Q.CGImageGetBytesPerRow(ref)
        data = bytes(Q.CGDataProviderCopyData(Q.CGImageGetDataProvider(ref)))
        return Image.frombuffer("RGBA", (width, height), data, "raw", "BGRA", stride,
                                1).convert("RGB")

    # -- input -----------------------------------------------------------------------------
    def post_mouse(self, kind: MouseKind, x: float, y: float, button: str = "left",
                   clicks: int = 1) -> None:
        Q = self.Q
        codes = {"left": (Q.kCGEventLeftMouseDown, Q.kCGEventLeftMouseUp,
                          Q.kCGEventLeftMouseDragged, Q.kCGMouseButtonLeft),
                 "right": (Q.kCGEventRightMouseDown, Q.kCGEventRightMouseUp,
                           Q.kCGEventRightMouseDragged, Q.kCGMouseButtonRight),
                 "middle": (Q.kCGEventOtherMouseDown, Q.kCGEventOtherMouseUp,
                            Q.kCGEventOtherMouseDragged, Q.kCGMouseButtonCenter)}
        if kind == "move":
            held = self._down
            kind_code = codes[held][2] if held else Q.kCGEventMouseMoved
            event = Q.CGEventCreateMouseEvent(None, kind_code, (x, y),
                                              codes[held or "left"][3])
        else:
            down, up, _, number = codes[button]
            event = Q.CGEventCreateMouseEvent(None, down if kind == "down" else up, (x, y),
                                              number)
            Q.CGEventSetIntegerValueField(event, Q.kCGMouseEventClickState, clicks)
            self._down = button if kind == "down" else None
        Q.CGEventPost(Q.kCGHIDEventTap, event)

    def post_scroll(self, dy: int, dx: int) -> None:
        Q = self.Q
        event = Q.CGEventCreateScrollWheelEvent(None, Q.kCGScrollEventUnitLine, 2, dy, dx)
        Q.CGEventPost(Q.kCGHIDEventTap, event)

    def post_key(self, keycode: int, down: bool, flags: int) -> None:
        Q = self.Q
        event = Q.CGEventCreateKeyboardEvent(None, keycode, down)
        Q.CGEventSetFlags(event, flags)
        Q.CGEventPost(Q.kCGHIDEventTap, event)

    def post_unicode(self, ch: str) -> None:
        Q = self.Q
        units = len(ch.encode("utf-16-le")) // 2
        for down in (True, False):
            event = Q.CGEventCreateKeyboardEvent(None, 0, down)
            Q.CGEventKeyboardSetUnicodeString(event, units, ch)
            Q.CGEventPost(Q.kCGHIDEventTap, event)

    # -- clipboard -------------------------------------------------------------------------
    def clipboard_get(self) -> str | None:
        board = self.AK.NSPasteboard.generalPasteboard()
        value = board.stringForType_(self.AK.NSPasteboardTypeString)
        return str(value) if value is not None else None

    def clipboard_set(self, text: str) -> bool:
        board = self.AK.NSPasteboard.generalPasteboard()
        board.clearContents()
        return bool(board.setString_forType_(text, self.AK.NSPasteboardTypeString))

    # -- apps and accessibility ------------------------------------------------------------
    def frontmost_app(self) -> AppRef | None:
        app = self.AK.NSWorkspace.sharedWorkspace().frontmostApplication()
        if app is None:
            return None
        return AppRef(str(app.localizedName() or ""), int(app.processIdentifier()),
                      str(app.bundleIdentifier() or ""))

    def window_title(self, pid: int) -> str:
        window = self.ax.attribute(self.ax.application(pid), "AXFocusedWindow")
        title = self.ax.attribute(window, "AXTitle") if window is not None else None
        return str(title or "")

    def ax_tree(self, pid: int) -> dict[str, Any] | None:
        return read_app(self.ax, pid)

    def ax_perform(self, ref: Any, action: str) -> bool:
        return self.ax.perform(ref, action)

    def ax_set_value(self, ref: Any, value: str) -> bool:
        return self.ax.set_attribute(ref, "AXValue", value)

    def launch(self, name: str) -> bool:
        done = subprocess.run(["open", "-a", name], capture_output=True, check=False)
        return done.returncode == 0

    def app_names(self) -> list[str]:
        names: set[str] = set()
        for folder in APP_FOLDERS:
            path = Path(os.path.expanduser(folder))
            if path.is_dir():
                names.update(p.stem for p in path.glob("*.app"))
        return sorted(names)
