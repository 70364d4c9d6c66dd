"""What the agent sees at one moment: screenshot, element list, foreground app, hash, timings.

An :class:`Observation` is an immutable value built by a driver (DESIGN.md §3): later
layers read it, nobody edits it. :class:`UIElement` is one entry of the compact element list
that ``perception.uitree`` derives from the accessibility tree; its ``id`` is what a model
names in an ``element`` target. Pure data, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from PIL import Image

from omg_agent.core.geometry import Bounds, Point, ScreenGeometry


@dataclass(frozen=True)
class UIElement:
    """One element of the screen, with pixel bounds.

    ``extra_texts`` are the texts of non-clickable descendants merged into this element after
    the first one (which became ``text`` if the element had none): a list row "Wi-Fi /
    Connected" is one element with ``text="Wi-Fi"`` and ``extra_texts=("Connected",)``.
    ``hint`` is an input's placeholder (never its value); ``window`` names the window group
    the element belongs to when it is not the app's own screen (``"keyboard"``, ``"system"``,
    ``"popup"``, ``"overlay"``; see ``perception.windows``).
    """

    id: int
    cls: str
    role: str
    bounds: Bounds
    text: str = ""
    desc: str = ""
    resource_id: str = ""
    package: str = ""
    extra_texts: tuple[str, ...] = ()
    clickable: bool = False
    long_clickable: bool = False
    scrollable: bool = False
    checkable: bool = False
    checked: bool = False
    focused: bool = False
    enabled: bool = True
    password: bool = False
    editable: bool = False
    selected: bool = False
    hint: str = ""
    window: str = ""

    @property
    def center(self) -> Point:
        return self.bounds.center

    @property
    def interactive(self) -> bool:
        return (self.clickable or self.long_clickable or self.scrollable or self.checkable
                or self.editable)

    @property
    def label(self) -> str:
        """What a person would call it: its text, else its description."""
        return self.text or self.desc

    def __repr__(self) -> str:  # never leak a password field's value into logs
        text = "<password>" if self.password and self.text else self.text
        return (f"UIElement(id={self.id}, role={self.role!r}, text={text!r}, "
                f"desc={self.desc!r}, resource_id={self.resource_id!r}, "
                f"bounds={tuple(self.bounds)})")


@dataclass(frozen=True)
class OcrBox:
    text: str
    bounds: Bounds
    confidence: float


@dataclass(frozen=True, eq=False)
class Observation:
    """One observation of the device. Compared by identity; ``screen_hash`` says "same"."""

    screenshot: Image.Image
    elements: tuple[UIElement, ...] = ()
    package: str = ""
    activity: str = ""
    screen_hash: str = ""
    timestamp: float = 0.0
    raw: bytes | None = field(default=None, repr=False)
    ocr: tuple[OcrBox, ...] | None = None
    timings: Mapping[str, float] = field(default_factory=dict)
    geometry: ScreenGeometry | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "elements", tuple(self.elements))
        if self.ocr is not None:
            object.__setattr__(self, "ocr", tuple(self.ocr))
        object.__setattr__(self, "timings", MappingProxyType(dict(self.timings)))

    @property
    def size(self) -> tuple[int, int]:
        return self.screenshot.size

    def element(self, element_id: int) -> UIElement | None:
        """The element with this id, or ``None`` when the list has no such number."""
        if 1 <= element_id <= len(self.elements):
            candidate = self.elements[element_id - 1]
            if candidate.id == element_id:
                return candidate
        return next((e for e in self.elements if e.id == element_id), None)

    # -- geometry: the one point <-> pixel conversion and point-in-box (DESIGN.md §3) -------
    @property
    def screen(self) -> ScreenGeometry:
        """The driver's screen geometry (bars, safe zone), else the bare screenshot frame."""
        return self.geometry or ScreenGeometry.of_screen(self.size)

    def to_pixels(self, point: tuple[float, float]) -> Point:
        """A normalized 0–1000 point as a pixel point clamped into the safe zone."""
        return self.screen.to_pixels(point)

    def to_normalized(self, point: tuple[int, int]) -> Point:
        """A pixel point in normalized 0–1000 units."""
        return self.screen.to_normalized(point)

    def region_to_pixels(self, box: Bounds) -> Bounds:
        """A normalized box in pixels, cut to the screen."""
        return self.screen.bounds_to_pixels(box)

    def elements_at(self, pixel: tuple[int, int],
                    having: Callable[[UIElement], object] | None = None) -> list[UIElement]:
        """The elements whose bounds hold ``pixel`` (and that ``having`` accepts)."""
        return [e for e in self.elements
                if e.bounds.contains(pixel) and (having is None or having(e))]

    def element_at(self, pixel: tuple[int, int],
                   having: Callable[[UIElement], object] | None = None) -> UIElement | None:
        """The smallest element under ``pixel`` (of those ``having`` accepts), or None."""
        hits = self.elements_at(pixel, having)
        return min(hits, key=lambda e: e.bounds.area) if hits else None

    @property
    def focused(self) -> UIElement | None:
        return next((e for e in self.elements if e.focused), None)
