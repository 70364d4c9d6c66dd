"""Screen hash: "is this still the same screen?", with the volatile parts masked out.

The loop guard (did the tap change anything?), rollback (are we back at the checkpoint?)
and caches keyed by screen all use it (DESIGN.md §4–5).

How it works: the screenshot goes grey, volatile regions are painted over, and the image is
cut into a grid of square-ish cells (24 columns; a 1080x2400 phone gets 45 px cells and 53
rows). Each cell's mean grey is quantised in steps of ``step`` (8) grey levels; the hash is
those levels. Two hashes are compared cell by cell and a cell counts as *changed* only when
its level moved by two steps or more — a change under one step (8 grey levels: JPEG
artefacts, dithering, noise) never counts, one over two steps (16) always does. The
distance is the number of changed cells.

Why not a binary perceptual hash from ``imagehash``: measured on vphone, a 64-bit pHash
gives a 30 px scroll fewer bits (4) than a flipped Wi-Fi switch (12), and a 256-bit dHash
moves by up to 7 bits under JPEG re-encoding at quality 60 but by only 5 for the Wi-Fi
switch — no threshold separates them. Binary hashes flip bits wherever two neighbours are
nearly equal, which is most of a flat UI. The quantised grid with a one-step slack has no
such boundary: JPEG at quality 60–90 moves no cell at all, while the smallest real change
measured (the Bluetooth switch) moves 6.

Masks: the status bar band (clock, battery, notification icons), optionally the navigation
bar, a per-app list of rectangles (carousels, video), rectangles the caller passes, and by
default the focused text field, whose caret blinks. Text typed into the focused field, and
one-character changes anywhere, are below the hash's resolution;
``element_diff.changed_elements`` catches those from the element list.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw

from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import UIElement

if TYPE_CHECKING:  # numpy loads when a hash or OCR is computed, not on import
    import numpy as np

log = logging.getLogger(__name__)

DEFAULT_COLUMNS = 24
DEFAULT_STEP = 8  # grey levels per quantisation step
DEFAULT_THRESHOLD = 2  # changed cells; distance <= threshold means "same screen"
_PREFILTER = 4  # box-reduce factor before the cell means (speed; the result is the same)


@dataclass(frozen=True, eq=False)
class ScreenHashValue:
    """A decoded hash: the grid of quantised cell levels and the step they were made with."""

    step: int
    levels: np.ndarray  # shape (rows, cols), uint8

    @classmethod
    def parse(cls, text: str) -> ScreenHashValue:
        import numpy as np
        try:
            tag, shape, payload = text.split(":")
            if not tag.startswith("q"):
                raise ValueError(f"unknown screen hash kind {tag!r}")
            rows, cols = (int(n) for n in shape.split("x"))
            data = np.frombuffer(base64.b64decode(payload, validate=True), dtype=np.uint8)
            return cls(int(tag[1:]), data.reshape(rows, cols))
        except ValueError as e:
            raise ValueError(f"not a screen hash: {text[:40]!r} ({e})") from None

    def __str__(self) -> str:
        import numpy as np
        rows, cols = self.levels.shape
        payload = base64.b64encode(self.levels.astype(np.uint8).tobytes()).decode()
        return f"q{self.step}:{rows}x{cols}:{payload}"


def _value(h: str | ScreenHashValue) -> ScreenHashValue:
    return h if isinstance(h, ScreenHashValue) else ScreenHashValue.parse(h)


@dataclass(frozen=True, eq=False)
class ScreenHash:
    """Hashes screenshots of one device; ``status_bar``/``nav_bar`` are band heights in px."""

    status_bar: int = 0
    nav_bar: int = 0
    mask_nav_bar: bool = False
    app_masks: Mapping[str, Sequence[Bounds]] = field(default_factory=dict)
    columns: int = DEFAULT_COLUMNS
    step: int = DEFAULT_STEP
    threshold: int = DEFAULT_THRESHOLD
    mask_focused_field: bool = True

    def __post_init__(self) -> None:
        if self.columns < 2 or not 1 <= self.step <= 128 or self.threshold < 0:
            raise ValueError("columns >= 2, 1 <= step <= 128 and threshold >= 0 required")

    @classmethod
    def for_profile(cls, profile: object, **kw: Any) -> ScreenHash:
        """Built from a device profile exposing ``status_bar_height`` / ``nav_bar_height``."""
        return cls(status_bar=int(getattr(profile, "status_bar_height", 0)),
                   nav_bar=int(getattr(profile, "nav_bar_height", 0)), **kw)

    # -- hashing ------------------------------------------------------------------------
    def masks_for(self, size: tuple[int, int], *, package: str = "",
                  elements: Sequence[UIElement] = (),
                  extra: Iterable[Bounds] = ()) -> list[Bounds]:
        """Every rectangle painted over before hashing a screen of ``size``."""
        width, height = size
        rects: list[Bounds] = []
        if self.status_bar > 0:
            rects.append(Bounds(0, 0, width, self.status_bar))
        if self.mask_nav_bar and self.nav_bar > 0:
            rects.append(Bounds(0, height - self.nav_bar, width, height))
        rects.extend(Bounds(*r) for r in self.app_masks.get(package, ()))
        rects.extend(Bounds(*r) for r in extra)
        if self.mask_focused_field:
            rects.extend(e.bounds for e in elements if e.focused and e.editable)
        return rects

    def value(self, image: Image.Image, *, package: str = "",
              elements: Sequence[UIElement] = (),
              masks: Iterable[Bounds] = ()) -> ScreenHashValue:
        import numpy as np
        grey = image.convert("L")
        rects = self.masks_for(grey.size, package=package, elements=elements, extra=masks)
        if rects:
            draw = ImageDraw.Draw(grey)
            for r in rects:
                if not r.empty:
                    draw.rectangle((r.left, r.top, r.right - 1, r.bottom - 1), fill=0)
        cols = self.columns
        rows = max(1, round(cols * grey.height / grey.width))
        if min(grey.size) >= _PREFILTER * cols * 2:
            grey = grey.reduce(_PREFILTER)
        means = np.asarray(grey.convert("F").resize((cols, rows), Image.Resampling.BOX))
        return ScreenHashValue(self.step, (means // self.step).astype(np.uint8))

    def compute(self, image: Image.Image, *, package: str = "",
                elements: Sequence[UIElement] = (), masks: Iterable[Bounds] = ()) -> str:
        """The hash as text (what ``Observation.screen_hash`` holds).

        ``package`` selects the app's masks; a focused editable element in ``elements`` is
        masked (its caret blinks); ``masks`` are extra pixel rectangles to ignore.
        """
        return str(self.value(image, package=package, elements=elements, masks=masks))

    # -- comparing ----------------------------------------------------------------------
    @staticmethod
    def changed_cells(a: str | ScreenHashValue, b: str | ScreenHashValue) -> np.ndarray:
        """Boolean grid of cells whose level moved by two steps or more."""
        import numpy as np
        va, vb = _value(a), _value(b)
        if va.levels.shape != vb.levels.shape or va.step != vb.step:
            return np.ones(max(va.levels.shape, vb.levels.shape), dtype=bool)
        diff = np.abs(va.levels.astype(np.int16) - vb.levels.astype(np.int16))
        return diff >= 2

    @classmethod
    def distance(cls, a: str | ScreenHashValue, b: str | ScreenHashValue) -> int:
        """Cells that changed; hashes of another grid (screen shape) differ in every cell."""
        return int(cls.changed_cells(a, b).sum())

    def same(self, a: str | ScreenHashValue, b: str | ScreenHashValue,
             threshold: int | None = None) -> bool:
        """Whether two hashes show the same screen (distance at most the threshold)."""
        limit = self.threshold if threshold is None else threshold
        return self.distance(a, b) <= limit
