"""Screen geometry: pixel points and boxes, and the normalized 0–1000 coordinate space.

Decisions (from a model, a flow file or a human) speak normalized coordinates: 0–1000 on
both axes whatever the device. Drivers turn them into pixels with :class:`ScreenGeometry`,
which also clamps every point into the *safe zone* — inside the screen, below the status
bar and above the navigation bar — so a sloppy point never pulls down the notification
shade or fires a system gesture. Pure values, no I/O (DESIGN.md §3 "Coordinates").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

NORM_MAX = 1000

_BOUNDS_RE = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


def norm_to_pixel(point: tuple[float, float], size: tuple[int, int]) -> tuple[float, float]:
    """A normalized point (or offset) in pixels of a ``size`` screen, unrounded, unclamped.

    The one scale from 0–1000 to pixels; :meth:`ScreenGeometry.to_pixels` rounds and clamps
    it for a tap, a trace overlay draws it as it is.
    """
    return point[0] * size[0] / NORM_MAX, point[1] * size[1] / NORM_MAX


def pixel_to_norm(point: tuple[float, float], size: tuple[int, int]) -> tuple[float, float]:
    """A pixel point (or offset) of a ``size`` screen in normalized units, unrounded."""
    return point[0] * NORM_MAX / size[0], point[1] * NORM_MAX / size[1]


class Point(NamedTuple):
    """A point; pixels or normalized units, depending on who holds it."""

    x: int
    y: int


class Bounds(NamedTuple):
    """An axis-aligned box ``[left, right) x [top, bottom)`` in pixels, as uiautomator writes."""

    left: int
    top: int
    right: int
    bottom: int

    @classmethod
    def parse(cls, text: str) -> Bounds:
        """Read uiautomator's ``"[l,t][r,b]"`` form."""
        m = _BOUNDS_RE.fullmatch(text.strip())
        if m is None:
            raise ValueError(f"not a uiautomator bounds string: {text!r}")
        return cls(*(int(g) for g in m.groups()))

    @property
    def width(self) -> int:
        return self.right - self.left

    @property
    def height(self) -> int:
        return self.bottom - self.top

    @property
    def area(self) -> int:
        return max(0, self.width) * max(0, self.height)

    @property
    def empty(self) -> bool:
        return self.width <= 0 or self.height <= 0

    @property
    def center(self) -> Point:
        return Point((self.left + self.right) // 2, (self.top + self.bottom) // 2)

    def contains(self, point: Point | tuple[int, int]) -> bool:
        x, y = point
        return self.left <= x < self.right and self.top <= y < self.bottom

    def intersection(self, other: Bounds) -> Bounds | None:
        box = Bounds(max(self.left, other.left), max(self.top, other.top),
                     min(self.right, other.right), min(self.bottom, other.bottom))
        return None if box.empty else box

    def distance_to(self, point: Point | tuple[int, int]) -> float:
        """Euclidean distance from ``point`` to the nearest pixel of the box (0 inside)."""
        x, y = point
        dx = max(self.left - x, 0, x - (self.right - 1))
        dy = max(self.top - y, 0, y - (self.bottom - 1))
        return float((dx * dx + dy * dy) ** 0.5)

    def __str__(self) -> str:
        return f"[{self.left},{self.top}][{self.right},{self.bottom}]"


@dataclass(frozen=True)
class ScreenGeometry:
    """A screen's size and its unsafe bands, and the conversions that respect them.

    ``margin`` keeps clamped points this many pixels away from the left/right edges, where
    edge-swipe gestures (back) live on gesture-navigation phones.
    """

    width: int
    height: int
    status_bar: int = 0
    nav_bar: int = 0
    margin: int = 8

    def __post_init__(self) -> None:
        if self.width <= 0 or self.height <= 0:
            raise ValueError(f"screen size must be positive, got {self.width}x{self.height}")
        if self.status_bar < 0 or self.nav_bar < 0 or self.margin < 0:
            raise ValueError("bar heights and margin must not be negative")
        if self.status_bar + self.nav_bar >= self.height or 2 * self.margin >= self.width:
            raise ValueError("the bars and margin leave no safe zone on this screen")

    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height

    @classmethod
    def of_screen(cls, size: tuple[int, int]) -> ScreenGeometry:
        """A screen of ``size`` whose bars nobody measured: the whole frame is safe."""
        return cls(size[0], size[1], margin=0)

    @property
    def safe_zone(self) -> Bounds:
        """Pixels a tap or swipe may land on (right/bottom exclusive)."""
        return Bounds(self.margin, self.status_bar, self.width - self.margin,
                      self.height - self.nav_bar)

    def clamp(self, point: Point | tuple[int, int]) -> Point:
        """``point`` (pixels) moved to the nearest pixel of the safe zone."""
        zone = self.safe_zone
        x, y = point
        return Point(min(max(int(x), zone.left), zone.right - 1),
                     min(max(int(y), zone.top), zone.bottom - 1))

    def to_pixels(self, point: Point | tuple[float, float]) -> Point:
        """A normalized point (0–1000; out-of-range values allowed) as a safe pixel point."""
        x, y = norm_to_pixel(point, self.size)
        return self.clamp(Point(round(x), round(y)))

    def to_normalized(self, point: Point | tuple[float, float]) -> Point:
        """A pixel point in normalized units, clamped to 0–1000 (not to the safe zone)."""
        x, y = pixel_to_norm(point, self.size)
        return Point(min(max(round(x), 0), NORM_MAX), min(max(round(y), 0), NORM_MAX))

    def bounds_to_normalized(self, box: Bounds) -> Bounds:
        left, top = self.to_normalized((box.left, box.top))
        right, bottom = self.to_normalized((box.right, box.bottom))
        return Bounds(left, top, right, bottom)

    def bounds_to_pixels(self, box: Bounds) -> Bounds:
        """A normalized box in pixels, cut to the screen (not the safe zone)."""
        (left, top), (right, bottom) = (norm_to_pixel(p, self.size)
                                        for p in ((box.left, box.top), (box.right, box.bottom)))
        return Bounds(*(min(max(round(v), 0), limit) for v, limit in (
            (left, self.width), (top, self.height), (right, self.width),
            (bottom, self.height))))
