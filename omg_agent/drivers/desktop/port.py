"""The desktop port of the bundle executor: the executor's verbs as mouse, wheel and keys.

:class:`DesktopPort` is the :class:`~omg_agent.drivers.ports.ActionPort` of the desktop
driver; the executor plans in screenshot pixels and this port hands the backend input
*points* (:class:`~.backend.DisplayScale`, the one conversion). The mapping:

=================  ==============================================================
action             desktop
=================  ==============================================================
tap                left click
double_tap         double click
long_press         right click (``long_press="right_click"``, the default), or the
                   left button held for the duration (``"hold"``)
swipe from/to      drag with the left button (moved in steps over the duration)
swipe direction    the wheel, at the start point: a finger moving up shows what is
                   further down, so the wheel turns down; one click per
                   ``scroll_px`` pixels of the swipe's travel
type               the backend's typing (X11: keys, or a clipboard paste for text the
                   keymap lacks); ``clear`` selects the field's text and deletes it
key                the desktop key (:func:`~.keys.desktop_key`): enter → Return,
                   back → Escape, …; ``home`` is refused
launch             the backend starts the command
=================  ==============================================================

On a backend with accessibility actions (:class:`~.backend.ElementActions`, macOS AX) a
tap on a known button is an AX press and typing into a known field sets its value; they
fall back to input events when the element does not support them. Every call runs at once;
:meth:`DesktopPort.batch` only reports which actions ran.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Literal

from omg_agent.core.geometry import Point
from omg_agent.core.observation import UIElement
from omg_agent.drivers.desktop.backend import ElementActions
from omg_agent.drivers.desktop.keys import desktop_key
from omg_agent.drivers.ports import ImmediatePort
from omg_agent.errors import ActionRejected

if TYPE_CHECKING:
    from omg_agent.drivers.desktop.driver import DesktopDriver

LongPressMode = Literal["right_click", "hold"]
DRAG_STEP_S = 0.016  # one pointer move per frame of a drag


class DesktopPort(ImmediatePort):
    def __init__(self, driver: DesktopDriver, *, long_press: LongPressMode = "right_click",
                 scroll_px: int = 60) -> None:
        if long_press not in ("right_click", "hold"):
            raise ValueError(f"long_press must be right_click or hold, not {long_press!r}")
        if scroll_px <= 0:
            raise ValueError("scroll_px must be positive")
        self.d = driver
        self.long_press_mode: LongPressMode = long_press
        self.scroll_px = scroll_px
        self.scrolls: set[int] = set()  # indices of the bundle's swipes that scroll the wheel
        self.calls = 0
        super().__init__()
        self._index = -1
        self.target: UIElement | None = None  # the element the next tap lands on, if known

    @property
    def backend(self):  # noqa: ANN201 - the driver's backend
        return self.d.backend

    def _pt(self, p: Point) -> tuple[float, float]:
        return self.d.scale.to_points(p)

    def begin(self, index: int) -> None:
        self._index = index
        super().begin(index)

    def tap(self, p: Point) -> None:
        self.calls += 1
        element = self.d.element_for(p)
        b = self.backend
        if element is not None and isinstance(b, ElementActions) and b.press_element(element):
            return
        b.click(*self._pt(p))

    def double_tap(self, p: Point) -> None:
        self.calls += 1
        self.backend.click(*self._pt(p), count=2)

    def long_press(self, p: Point, duration_ms: int) -> None:
        self.calls += 1
        x, y = self._pt(p)
        if self.long_press_mode == "right_click":
            self.backend.click(x, y, button="right")
            return
        self.backend.press(x, y)
        time.sleep(duration_ms / 1000)
        self.backend.release(x, y)

    def swipe(self, start: Point, end: Point, duration_ms: int) -> None:
        self.calls += 1
        (x0, y0), (x1, y1) = self._pt(start), self._pt(end)
        if self._index in self.scrolls:
            # the content follows a finger: a finger moving up shows what is below
            dy = round((start.y - end.y) / self.scroll_px)
            dx = round((start.x - end.x) / self.scroll_px)
            if dx == dy == 0:
                dy = 1 if start.y > end.y else -1 if start.y < end.y else 0
                dx = 0 if dy else (1 if start.x > end.x else -1)
            self.backend.scroll(x0, y0, dx, dy)
            return
        steps = max(2, round(duration_ms / 1000 / DRAG_STEP_S))
        self.backend.press(x0, y0)
        for i in range(1, steps + 1):
            time.sleep(DRAG_STEP_S)
            self.backend.move(x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps)
        self.backend.release(x1, y1)

    def key(self, code: int) -> None:
        self.calls += 1
        try:
            key = desktop_key(code)
        except ValueError as e:
            raise ActionRejected(str(e), serial=self.d.serial, command=f"key {code}") from None
        self.backend.hotkey([key])

    def hotkey(self, keys: list[str]) -> None:
        self.calls += 1
        self.backend.hotkey(keys)

    def type(self, text: str, *, clear: bool, field: UIElement | None,
             after_tap: bool) -> str:
        self.calls += 1
        b = self.backend
        if (field is not None and isinstance(b, ElementActions) and field.editable
                and b.set_value(field, text if clear else field.text + text)):
            how = "set the field's value"
        else:
            if clear:
                for combo in self.d.clear_keys:
                    b.hotkey(list(combo))
            if text:
                b.type_text(text)
            how = f"typed {len(text)} chars"
        secret = field is not None and field.password
        return how + (" (secret)" if secret else "")

    def start(self, package: str, *, restart: bool = False) -> None:
        self.calls += 1  # a desktop app is raised as it is (restart is a phone's)
        self.backend.launch(package)

    def packages(self) -> list[str]:
        return self.d.apps()
