"""Fit text into widths for vphone apps: wrap a paragraph into lines by measured width.

The renderer draws a TextView's text on one line per ``\\n`` and never wraps, while a real
TextView wraps visually and still reports its whole text to uiautomator. :func:`paragraph`
gives apps that behaviour with the existing toolkit: one TextView that carries the full
text and is ``opaque_to_tree``, whose drawn children are the wrapped lines, so the XML holds
one node with the original text and the pixels show the wrapped lines.
"""

from __future__ import annotations

import re
from functools import lru_cache

from omg_agent.vphone.ui import fonts
from omg_agent.vphone.ui.kit import ON_SURFACE, Kit
from omg_agent.vphone.ui.view import Bounds, Handler, View

LINE_SPACING = 1.35  # the renderer's line height as a multiple of the font size
# Latin words stay whole; CJK and any other character may break anywhere.
_TOKEN = re.compile(r"\s+|[A-Za-z0-9'’.,!?:;\-_#@&%$¥/+()\"]+|.")


def measure(text: str, size_px: int, bold: bool = False) -> float:
    total = 0.0
    for chunk, emo in fonts.runs(text):
        font = fonts.emoji_font(size_px) if emo else fonts.text_font(size_px, bold)
        total += font.getlength(chunk)
    return total


def wrap(text: str, size_px: int, width_px: int, bold: bool = False) -> list[str]:
    """Greedy line breaking of ``text`` (explicit newlines kept) within ``width_px``.

    Remembered per text, size, width and the fonts that measure it: an app lays out the
    same paragraphs on every frame it builds (the feed measures every post for its
    heights), and a wrap measures each growing line again (~3 ms for a post)."""
    return list(_wrapped(text, size_px, width_px, bold, fonts.text_faces(bold),
                         fonts.emoji_faces()))


@lru_cache(maxsize=4096)
def _wrapped(text: str, size_px: int, width_px: int, bold: bool,
             *_fonts: tuple[fonts.Face, ...]) -> tuple[str, ...]:
    lines: list[str] = []
    for para in text.split("\n"):
        line = ""
        for token in _TOKEN.findall(para):
            if measure(line + token, size_px, bold) <= width_px:
                line += token
                continue
            if line.strip():
                lines.append(line.rstrip())
            line = "" if token.isspace() else token
            while measure(line, size_px, bold) > width_px and len(line) > 1:
                cut = len(line) - 1
                while cut > 1 and measure(line[:cut], size_px, bold) > width_px:
                    cut -= 1
                lines.append(line[:cut])
                line = line[cut:]
        lines.append(line.rstrip())
    return tuple(lines)


def line_height(kit: Kit, size_dp: float) -> int:
    return int(kit.dp(size_dp) * LINE_SPACING)


def ellipsize(text: str, size_px: int, width_px: int, bold: bool = False) -> str:
    """``text`` cut to one line that fits ``width_px``, ending in "…" when cut."""
    first = text.split("\n")[0]
    if measure(first, size_px, bold) <= width_px and "\n" not in text:
        return text
    while first and measure(first + "…", size_px, bold) > width_px:
        first = first[:-1]
    return first.rstrip() + "…"


def paragraph_height(kit: Kit, text: str, width_px: int, size_dp: float = 16,
                     bold: bool = False) -> int:
    return len(wrap(text, kit.dp(size_dp), width_px, bold)) * line_height(kit, size_dp)


def paragraph(kit: Kit, bounds: Bounds, text: str, *, size: float = 16,
              color: tuple[int, int, int] = ON_SURFACE, bold: bool = False,
              resource_id: str = "", desc: str = "", on_click: Handler | None = None) -> View:
    """A wrapping TextView: full ``text`` in the tree, wrapped lines in the pixels."""
    left, top, right, bottom = bounds
    size_px = kit.dp(size)
    lh = line_height(kit, size)
    view = kit.view("android.widget.TextView", bounds, text=text, desc=desc,
                    resource_id=resource_id, opaque_to_tree=True,
                    clickable=on_click is not None, on_click=on_click)
    for i, line in enumerate(wrap(text, size_px, right - left, bold)):
        y = top + i * lh
        if y + lh > bottom + lh // 2:
            break
        view.add(kit.text((left, y, right, y + lh), line, size=size, color=color, bold=bold))
    return view


def clipped(kit: Kit, view: View) -> View:
    """``view`` inside a frame that clips its drawing to its bounds.

    The renderer never clips an EditText's text, so a long value would spill over the
    widgets beside it; a real EditText scrolls its text inside its box instead.
    """
    return kit.view("android.widget.FrameLayout", view.bounds, clips=True).add(view)
