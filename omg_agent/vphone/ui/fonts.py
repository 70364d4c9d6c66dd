"""Fonts for vphone rendering: Noto Sans CJK for Latin and Chinese, Symbola for emoji.

The project's setup installs Debian's ``fonts-noto-cjk`` and ``fonts-symbola``; when they are
missing the phone still renders with DejaVu or Pillow's built-in font (and ``omg-agent doctor``
says so), because pixels that are slightly wrong beat a phone that cannot start.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

log = logging.getLogger(__name__)

CJK_REGULAR = ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2)
CJK_BOLD = ("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", 2)
LATIN_FALLBACK = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 0)
LATIN_BOLD_FALLBACK = ("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", 0)
EMOJI = ("/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf", 0)

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


def missing_fonts() -> list[str]:
    """Font files the vphone wants but cannot find (for doctor and setup checks)."""
    return [path for path, _ in (CJK_REGULAR, CJK_BOLD, EMOJI) if not Path(path).exists()]


@lru_cache(maxsize=128)
def _load(candidates: tuple[tuple[str, int], ...], size: int) -> Font:
    for path, index in candidates:
        if Path(path).exists():
            return ImageFont.truetype(path, size=size, index=index)
    log.warning("no TrueType font found among %s; using Pillow's default", candidates)
    return ImageFont.load_default(size=size)


def text_font(size: int, bold: bool = False) -> Font:
    chain = (CJK_BOLD, LATIN_BOLD_FALLBACK) if bold else (CJK_REGULAR, LATIN_FALLBACK)
    return _load(chain, size)


def emoji_font(size: int) -> Font:
    return _load((EMOJI, LATIN_FALLBACK), size)


def is_emoji(ch: str) -> bool:
    cp = ord(ch)
    return cp >= 0x1F000 or 0x2600 <= cp <= 0x27BF or 0x2B00 <= cp <= 0x2BFF


def runs(text: str) -> list[tuple[str, bool]]:
    """Split text into (chunk, is_emoji) runs so each chunk is drawn with one font."""
    out: list[tuple[str, bool]] = []
    for ch in text:
        if ch in "\ufe0f\u200d" and out:  # variation selector / joiner: keep with the emoji
            out[-1] = (out[-1][0] + ch, out[-1][1])
            continue
        emo = is_emoji(ch)
        if out and out[-1][1] == emo:
            out[-1] = (out[-1][0] + ch, emo)
        else:
            out.append((ch, emo))
    return out
