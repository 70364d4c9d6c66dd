"""Set-of-marks image: the screenshot with a numbered box around every listed element.

A vision model given this image and the element list can answer "tap 7" instead of guessing
coordinates, and the trace report shows the same picture to a human (DESIGN.md §4). Each id
gets a colour from a fixed palette (the same id is always the same colour), the box is
outlined in it, and the id is printed on a tag of that colour at the box's top-right corner,
or at the first other corner where it hides no other tag. The image can be downscaled first
(``max_side``) to save model tokens; tags are drawn after scaling, so they stay readable.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from PIL import Image, ImageDraw, ImageFont

from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import UIElement

log = logging.getLogger(__name__)

# Distinct, saturated colours that read on light and dark UIs (Kelly-like palette).
PALETTE: tuple[tuple[int, int, int], ...] = (
    (230, 25, 75), (60, 180, 75), (0, 130, 200), (245, 130, 48), (145, 30, 180),
    (0, 160, 160), (240, 50, 230), (128, 128, 0), (170, 110, 40), (0, 0, 128),
    (128, 0, 0), (255, 200, 0),
)


def mark_color(element_id: int) -> tuple[int, int, int]:
    """The outline and tag colour of element ``element_id``."""
    return PALETTE[(element_id - 1) % len(PALETTE)]


def _text_color(bg: tuple[int, int, int]) -> tuple[int, int, int]:
    r, g, b = bg
    return (0, 0, 0) if 0.299 * r + 0.587 * g + 0.114 * b > 150 else (255, 255, 255)


def draw_marks(image: Image.Image, elements: Iterable[UIElement], *,
               max_side: int | None = None, line_width: int | None = None,
               font_size: int | None = None) -> Image.Image:
    """A new RGB image: ``image`` (downscaled so its longer side is at most ``max_side``)
    with each element's box outlined and numbered. The input image is not modified."""
    out = image.convert("RGB")
    scale = 1.0
    if max_side is not None and max(out.size) > max_side:
        scale = max_side / max(out.size)
        out = out.resize((max(1, round(out.width * scale)), max(1, round(out.height * scale))),
                         Image.Resampling.LANCZOS)
    else:
        out = out.copy()
    width = line_width or max(2, round(min(out.size) / 300))
    font = ImageFont.load_default(size=font_size or max(12, round(min(out.size) / 36)))
    draw = ImageDraw.Draw(out)
    placed: list[Bounds] = []
    boxes = [(e.id, _scaled(e.bounds, scale)) for e in elements]
    for element_id, box in boxes:
        if box.empty:
            continue
        draw.rectangle((box.left, box.top, box.right - 1, box.bottom - 1),
                       outline=mark_color(element_id), width=width)
    for element_id, box in boxes:
        if not box.empty:
            _tag(draw, font, element_id, box, out.size, placed)
    return out


def _scaled(b: Bounds, scale: float) -> Bounds:
    if scale == 1.0:
        return b
    return Bounds(round(b.left * scale), round(b.top * scale), round(b.right * scale),
                  round(b.bottom * scale))


def _tag(draw: ImageDraw.ImageDraw, font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
         element_id: int, box: Bounds, size: tuple[int, int], placed: list[Bounds]) -> None:
    label = str(element_id)
    left, top, right, bottom = (int(v) for v in draw.textbbox((0, 0), label, font=font))
    pad = max(2, (bottom - top) // 5)
    w, h = right - left + 2 * pad, bottom - top + 2 * pad
    candidates = [
        (box.right - w, box.top), (box.left, box.top), (box.right - w, box.top - h),
        (box.left, box.bottom - h), (box.right - w, box.bottom - h), (box.left, box.bottom),
    ]
    spots = [_fit(x, y, w, h, size) for x, y in candidates]
    spot = next((s for s in spots if not any(s.intersection(p) for p in placed)), spots[0])
    placed.append(spot)
    color = mark_color(element_id)
    draw.rectangle((spot.left, spot.top, spot.right - 1, spot.bottom - 1), fill=color)
    draw.text((spot.left + pad - left, spot.top + pad - top), label, font=font,
              fill=_text_color(color))


def _fit(x: int, y: int, w: int, h: int, size: tuple[int, int]) -> Bounds:
    x = min(max(0, x), max(0, size[0] - w))
    y = min(max(0, y), max(0, size[1] - h))
    return Bounds(x, y, x + w, y + h)
