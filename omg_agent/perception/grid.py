"""Labelled grid: the last resort of anchoring, a lettered grid a vision model can name.

When neither the element list nor OCR has the thing to tap (an unlabelled icon in a game,
a picture), the brain shows the model the screenshot with this grid drawn over the safe
zone — columns ``A``–``F`` left to right, rows ``1``–``12`` top to bottom, each cell tagged
``"C4"`` in its top-left corner — and asks for a cell label. ``Anchorer.resolve_cell(label,
observation)`` turns the label into the cell's centre (snapped onto a clickable element
there, like a raw point). 6 x 12 cells give 177 x 185 px cells on a 1080x2400 phone: about
one touch target (48 dp = 132 px) plus margin, so a cell's centre lands on the control a
model means while 72 tags stay legible in a downscaled image (DESIGN.md §4).
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from omg_agent.core.geometry import Bounds, Point, ScreenGeometry
from omg_agent.errors import AnchorNotFound

DEFAULT_COLUMNS = 6
DEFAULT_ROWS = 12
LINE_COLOR = (255, 0, 170)
TAG_BG = (20, 20, 24)
TAG_FG = (255, 255, 255)
_LABEL_RE = re.compile(r"\s*([A-Za-z])\s*0*(\d{1,2})\s*")


@dataclass(frozen=True)
class Grid:
    """``columns`` x ``rows`` cells over ``area`` (pixels) of a ``width`` x ``height`` screen."""

    width: int
    height: int
    columns: int = DEFAULT_COLUMNS
    rows: int = DEFAULT_ROWS
    area: Bounds | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.columns <= 26 or self.rows < 1:
            raise ValueError("a grid has 1–26 columns and at least one row")
        if self.area is None:
            object.__setattr__(self, "area", Bounds(0, 0, self.width, self.height))

    @classmethod
    def for_screen(cls, geometry: ScreenGeometry, columns: int = DEFAULT_COLUMNS,
                   rows: int = DEFAULT_ROWS) -> Grid:
        """The grid over the safe zone of ``geometry`` (bars are never worth a cell)."""
        return cls(geometry.width, geometry.height, columns, rows, geometry.safe_zone)

    @property
    def labels(self) -> list[str]:
        """Every cell label, row by row: ``A1, B1, …, F12``."""
        return [f"{string.ascii_uppercase[c]}{r + 1}"
                for r in range(self.rows) for c in range(self.columns)]

    def _index(self, label: str) -> tuple[int, int]:
        m = _LABEL_RE.fullmatch(label)
        if m is None:
            raise AnchorNotFound(f"grid cell {label!r}",
                                 "labels are a column letter and a row number, like C4")
        column = string.ascii_uppercase.index(m.group(1).upper())
        row = int(m.group(2)) - 1
        if column >= self.columns or not 0 <= row < self.rows:
            last = f"{string.ascii_uppercase[self.columns - 1]}{self.rows}"
            raise AnchorNotFound(f"grid cell {label!r}", f"cells A1..{last}")
        return column, row

    def cell_bounds(self, label: str) -> Bounds:
        column, row = self._index(label)
        a = self.area
        assert a is not None
        return Bounds(a.left + column * a.width // self.columns,
                      a.top + row * a.height // self.rows,
                      a.left + (column + 1) * a.width // self.columns,
                      a.top + (row + 1) * a.height // self.rows)

    def cell_center(self, label: str) -> Point:
        """The centre of cell ``label`` in screen pixels (raises ``AnchorNotFound``)."""
        return self.cell_bounds(label).center

    def draw(self, image: Image.Image, *, max_side: int | None = None) -> Image.Image:
        """A new RGB image: ``image`` (downscaled to ``max_side`` if given) with the grid
        lines and a tag per cell. Tags are drawn after scaling so they stay readable."""
        out = image.convert("RGB")
        scale = 1.0
        if max_side is not None and max(out.size) > max_side:
            scale = max_side / max(out.size)
            out = out.resize((max(1, round(out.width * scale)),
                              max(1, round(out.height * scale))), Image.Resampling.LANCZOS)
        else:
            out = out.copy()
        draw = ImageDraw.Draw(out)
        width = max(1, round(min(out.size) / 400))
        cell_h = (self.area.height if self.area else self.height) * scale / self.rows
        font = ImageFont.load_default(size=max(10, round(cell_h / 5)))
        for label in self.labels:
            b = self.cell_bounds(label)
            box = [round(v * scale) for v in b]
            draw.rectangle(box, outline=LINE_COLOR, width=width)
            left, top, right, bottom = draw.textbbox((0, 0), label, font=font)
            pad = max(2, round((bottom - top) / 4))
            x, y = box[0] + width, box[1] + width
            draw.rectangle((x, y, x + right - left + 2 * pad, y + bottom - top + 2 * pad),
                           fill=TAG_BG)
            draw.text((x + pad - left, y + pad - top), label, font=font, fill=TAG_FG)
        return out
