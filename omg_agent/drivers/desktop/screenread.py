"""Reading a desktop screen's text with OCR, again only where it changed.

Without an accessibility tree the element list of a desktop is its OCR text
(:mod:`.driver`), and OCR is nearly the whole cost of a look (~1 s for a window on two CPU
cores). Between two looks a click usually changes a small part of the screen — a status
line, a field, a list. :class:`ScreenReader` keeps the last frame and its boxes; for the
next frame it finds the box around every changed pixel, grows it over the old boxes it
touches (a line whose one digit changed is read whole again) plus a margin, reads only
that crop, and keeps the old boxes outside it. When the change covers more than
``full_share`` of the drawn area, or the frame size changed, it reads everything again.

The first read covers only the *drawn area*: the box around everything that differs from
the bottom-right pixel's colour (a bare X root, a plain desktop background).
"""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageChops

from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import OcrBox

MARGIN_PX = 8  # around a changed area: OCR detection needs some background around glyphs
FULL_SHARE = 0.5


def drawn_area(image: Image.Image) -> Bounds | None:
    """The box around everything that differs from the bottom-right pixel's colour;
    ``None`` when nothing is drawn."""
    corner = image.getpixel((image.width - 1, image.height - 1))
    box = ImageChops.difference(image, Image.new(image.mode, image.size, corner)).getbbox()
    return Bounds(*box) if box else None


class ScreenReader:
    """OCR of successive frames of one screen through ``engine`` (an ``OcrEngine``)."""

    def __init__(self, engine: Any, *, full_share: float = FULL_SHARE) -> None:
        self.engine = engine
        self.full_share = full_share
        self._last: tuple[Image.Image, tuple[OcrBox, ...]] | None = None
        self.last_region: Bounds | None = None  # what the last read() OCR'd (None: nothing)

    def read(self, image: Image.Image) -> tuple[OcrBox, ...]:
        image = image.convert("RGB")
        boxes = self._read(image)
        self._last = (image, boxes)
        return boxes

    def _read(self, image: Image.Image) -> tuple[OcrBox, ...]:
        area = drawn_area(image)
        last = self._last
        if last is None or last[0].size != image.size:
            return self._full(image, area)
        changed = ImageChops.difference(image, last[0]).getbbox()
        if changed is None:
            self.last_region = None
            return last[1]
        dirty = _grow(Bounds(*changed), last[1], image.size)
        if area is None or dirty.area > self.full_share * area.area:
            return self._full(image, area)
        kept = [b for b in last[1] if b.bounds.intersection(dirty) is None]
        self.last_region = dirty
        fresh = self.engine.read(image, region=dirty)
        return tuple(sorted([*kept, *fresh], key=lambda b: (b.bounds.top, b.bounds.left)))

    def _full(self, image: Image.Image, area: Bounds | None) -> tuple[OcrBox, ...]:
        self.last_region = area
        return tuple(self.engine.read(image, region=area)) if area is not None else ()


def _grow(dirty: Bounds, boxes: tuple[OcrBox, ...], size: tuple[int, int]) -> Bounds:
    """``dirty`` plus a margin, grown over every old box it touches until none is cut."""
    box = Bounds(dirty.left - MARGIN_PX, dirty.top - MARGIN_PX, dirty.right + MARGIN_PX,
                 dirty.bottom + MARGIN_PX)
    grown = True
    while grown:
        grown = False
        for b in boxes:
            if b.bounds.intersection(box) is not None:
                union = Bounds(min(box.left, b.bounds.left - MARGIN_PX),
                               min(box.top, b.bounds.top - MARGIN_PX),
                               max(box.right, b.bounds.right + MARGIN_PX),
                               max(box.bottom, b.bounds.bottom + MARGIN_PX))
                if union != box:
                    box, grown = union, True
    return Bounds(max(0, box.left), max(0, box.top), min(size[0], box.right),
                  min(size[1], box.bottom))
