"""The small adapter every desktop backend implements, and the one pixel <-> point scale.

The desktop driver (:mod:`.driver`) speaks *screenshot pixels*, like every driver: the
executor resolves targets to pixels of the frame the model saw. Operating systems take input
in their own units — X11 in pixels, macOS in points, half the pixels on a 2x Retina screen.
:class:`DisplayScale` is the one conversion between them (UI-TARS-desktop's HiDPI bugs
come from doing it in several places). A backend reports its display as a
:class:`DisplayInfo`; accessibility frames come back in points and are scaled to pixels
once, in :meth:`DisplayScale.bounds_to_pixels`.

:class:`DesktopBackend` is the narrow surface the driver needs: a frame, pointer and wheel
input, keys with modifiers, text, launching, the frontmost app, and (where the platform
has one) an accessibility tree with element actions. The X11 backend (:mod:`.x11`) is
tested for real under Xvfb; the macOS backend (:mod:`.mac`) sits on :mod:`.mac_adapter`,
the only module that calls pyobjc.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from PIL import Image

from omg_agent.core.geometry import Bounds, Point
from omg_agent.core.observation import UIElement

Button = Literal["left", "right", "middle"]


@dataclass(frozen=True)
class DisplayScale:
    """Screenshot pixels per input point (2.0 on a Retina display, 1.0 on X11)."""

    factor: float = 1.0

    def __post_init__(self) -> None:
        if not self.factor > 0:
            raise ValueError(f"display scale must be positive, got {self.factor}")

    def to_points(self, p: Point | tuple[int, int]) -> tuple[float, float]:
        """A screenshot pixel as the input point that lands on it."""
        return p[0] / self.factor, p[1] / self.factor

    def to_pixels(self, p: tuple[float, float]) -> Point:
        """An input point as the screenshot pixel under it."""
        return Point(int(p[0] * self.factor), int(p[1] * self.factor))

    def bounds_to_pixels(self, x: float, y: float, w: float, h: float) -> Bounds:
        """An accessibility frame (origin and size in points) as pixel bounds."""
        f = self.factor
        return Bounds(round(x * f), round(y * f), round((x + w) * f), round((y + h) * f))


@dataclass(frozen=True)
class DisplayInfo:
    """The display a backend drives: its screenshot size in pixels and its scale."""

    name: str  # ":99", "main", …
    width: int  # pixels of a screenshot
    height: int
    scale: DisplayScale = DisplayScale()
    dpi: int = 96

    @property
    def points(self) -> tuple[float, float]:
        """The display's size in input points."""
        return self.width / self.scale.factor, self.height / self.scale.factor


@runtime_checkable
class DesktopBackend(Protocol):
    """One operating system's screen and input. Coordinates are input *points*."""

    name: str  # "x11" | "mac"

    def display(self) -> DisplayInfo: ...

    def screenshot(self) -> Image.Image: ...  # RGB, DisplayInfo.width x height pixels

    def click(self, x: float, y: float, button: Button = "left", count: int = 1) -> None: ...

    def press(self, x: float, y: float, button: Button = "left") -> None: ...

    def move(self, x: float, y: float) -> None: ...

    def release(self, x: float, y: float, button: Button = "left") -> None: ...

    def scroll(self, x: float, y: float, dx: int, dy: int) -> None: ...  # wheel clicks;
    # dy > 0 moves the content up (shows what is further down), dx > 0 shows what is right

    def hotkey(self, keys: Sequence[str]) -> None: ...  # ["ctrl", "l"]: modifiers first

    def type_text(self, text: str) -> None: ...

    def launch(self, command: str) -> None: ...

    def apps(self) -> list[str]: ...  # names launch() accepts without an alias

    def frontmost(self) -> tuple[str, str]: ...  # (app, window title)

    def elements(self) -> list[UIElement] | None: ...  # pixel bounds; None: no a11y tree

    def close(self) -> None: ...


@runtime_checkable
class ElementActions(Protocol):
    """A backend that can act on accessibility elements directly (macOS AX): pressing a
    button or setting a field's value without a synthetic click. Each returns False when
    the element does not support it, and the driver falls back to input events."""

    def press_element(self, element: UIElement) -> bool: ...

    def set_value(self, element: UIElement, text: str) -> bool: ...
