"""The uiautomator2 port of the bundle executor: each verb one or a few JSON-RPC calls.

There is no shell line to batch into: every call of :class:`U2Port` goes to the u2 server at
once (through ``U2Driver.call``, ~2 ms each), and :meth:`U2Port.batch` only answers which
actions ran. Typing goes through the clipboard — ``setClipboard`` then ``pasteClipboard``
into the focused field, then the clipboard emptied: any unicode, no IME switch; typed text
is never logged, only its length, nor left in the clipboard. ``start`` asks the u2 client
to start the app and waits until it is in the foreground (``app_start`` returns before the
activity is up).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from omg_agent.core.geometry import Point
from omg_agent.core.observation import UIElement
from omg_agent.drivers import commands as cmds
from omg_agent.drivers.ports import ImmediatePort
from omg_agent.drivers.secret_places import is_secret_input
from omg_agent.drivers.textinput import typing_label
from omg_agent.errors import ActionRejected, DeviceOffline

if TYPE_CHECKING:
    from omg_agent.drivers.u2 import U2Driver

LAUNCH_POLL_S = 0.05


class U2Port(ImmediatePort):
    def __init__(self, driver: U2Driver) -> None:
        super().__init__()
        self.d = driver
        self._packages: list[str] | None = None

    @property
    def calls(self) -> int:
        return self.d.calls

    def tap(self, p: Point) -> None:
        self.d.call("click", p.x, p.y)

    def double_tap(self, p: Point) -> None:
        self.tap(p)
        self.tap(p)

    def long_press(self, p: Point, duration_ms: int) -> None:
        self.d.call("click", p.x, p.y, duration_ms)

    def swipe(self, start: Point, end: Point, duration_ms: int) -> None:
        # uiautomator moves one step per ~5 ms; fewer than 2 steps do not move at all
        self.d.call("swipe", start.x, start.y, end.x, end.y, max(2, duration_ms // 5))

    def key(self, code: int) -> None:
        self.d.call("pressKeyCode", code)

    def type(self, text: str, *, clear: bool, field: UIElement | None,
             after_tap: bool) -> str:
        d = self.d
        if clear:
            d.call("clearInputText")
        if text:
            d.call("setClipboard", None, text)
            readback = d.call("getClipboard")  # None where the server may not read it back
            if readback is not None and readback != text:
                raise ActionRejected("the phone did not take the text into its clipboard; "
                                     "type with the adb driver (--driver adb) instead",
                                     serial=d.serial, command="setClipboard")
            d.call("pasteClipboard")
            # the typed text (a secret too) is not left for other apps to read, nor for a
            # PASTE key to put into another field (docs/attack-round.md)
            d.call("setClipboard", None, "")
        return typing_label(text, secret=field is not None and is_secret_input(field))

    def start(self, package: str, *, restart: bool = False) -> None:
        d = self.d
        d.adb(lambda: d.d.app_start(package, stop=restart), f"app_start {package}")
        deadline = time.monotonic() + max(d.settle_timeout, 1.0)
        while d.current_app()[0] != package:
            if time.monotonic() >= deadline:
                raise ActionRejected(f"{package} did not come to the foreground",
                                     serial=d.serial, command=f"launch {package}")
            time.sleep(LAUNCH_POLL_S)

    def packages(self) -> list[str]:
        if self._packages is None:
            d = self.d
            out = d.adb(lambda: d.device.shell(cmds.PACKAGES_CMD), "pm list packages")
            names = cmds.whole_package_list(out)
            if names is None:  # cut short by a drop: never cache a short list
                raise DeviceOffline("package list cut short", serial=d.serial,
                                    command="pm list packages")
            self._packages = names
        return self._packages
