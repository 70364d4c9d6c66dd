"""Fonts for vphone rendering: a CJK font for Latin and Chinese, a monochrome one for emoji.

The host's own fonts come first, found by file name in the OS's font folders: Noto Sans CJK
and Symbola (Debian's ``fonts-noto-cjk`` / ``fonts-symbola``), Microsoft YaHei, SimSun and
Segoe UI Emoji (Windows), Hiragino Sans GB, STHeiti and Apple Symbols (macOS). When none is
there the fonts shipped by two dependencies are used (``noto-cjk-sans-otc``: the same Noto
Sans CJK collection Debian ships; ``manimgx-fonts``: Noto Emoji), so a phone started from
a wheel on any host draws Chinese and emoji without an install step and without a download.

``OMG_FONT_DIRS`` (folders separated by ``os.pathsep``; empty for none) replaces the OS's
folders: it points the vphone at fonts of the user's choosing, and lets a test hide the
host's fonts. The last resort is DejaVu or Pillow's built-in font, because pixels that are
slightly wrong beat a phone that cannot start (``omg-agent doctor`` says which font is used).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import platform
from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

log = logging.getLogger(__name__)

FONT_DIRS_ENV = "OMG_FONT_DIRS"
Face = tuple[str, int]  # a font file's name (or absolute path) and its face index in a .ttc

# Preferred first. Noto Sans CJK's collection holds JP, KR, SC, TC, HK: face 2 is SC.
CJK_REGULAR: tuple[Face, ...] = (
    ("NotoSansCJK-Regular.ttc", 2), ("NotoSansCJKsc-Regular.otf", 0), ("msyh.ttc", 0),
    ("Hiragino Sans GB.ttc", 0), ("STHeiti Light.ttc", 0), ("simsun.ttc", 0),
    ("Arial Unicode.ttf", 0))
CJK_BOLD: tuple[Face, ...] = (
    ("NotoSansCJK-Bold.ttc", 2), ("NotoSansCJKsc-Bold.otf", 0), ("msyhbd.ttc", 0),
    ("Hiragino Sans GB.ttc", 1), ("STHeiti Medium.ttc", 0))
EMOJI: tuple[Face, ...] = (
    ("Symbola_hint.ttf", 0), ("Symbola.ttf", 0), ("NotoEmoji-Regular.ttf", 0),
    ("seguiemj.ttf", 0), ("seguisym.ttf", 0), ("Apple Symbols.ttf", 0))
LATIN: tuple[Face, ...] = (("DejaVuSans.ttf", 0), ("arial.ttf", 0), ("Helvetica.ttc", 0))
LATIN_BOLD: tuple[Face, ...] = (("DejaVuSans-Bold.ttf", 0), ("arialbd.ttf", 0))
# (module, file beside its __init__, face): fonts that dependencies ship in their wheels.
PACKAGED_CJK = ("noto_cjk_sans_otc", "NotoSansCJK-Regular.ttc", 2)
PACKAGED_EMOJI = ("manimgx_fonts", "NotoEmoji[wght].ttf", 0)

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


def system_font_dirs(system: str | None = None) -> list[Path]:
    """The folders searched for host fonts: ``OMG_FONT_DIRS`` or the OS's usual ones."""
    override = os.environ.get(FONT_DIRS_ENV)
    if override is not None:
        return [Path(p) for p in override.split(os.pathsep) if p.strip()]
    home = Path.home()
    system = system or platform.system()
    if system == "Windows":
        windir = os.environ.get("WINDIR", r"C:\Windows")
        local = os.environ.get("LOCALAPPDATA", str(home / "AppData" / "Local"))
        return [Path(windir) / "Fonts", Path(local) / "Microsoft" / "Windows" / "Fonts"]
    if system == "Darwin":
        return [Path("/System/Library/Fonts"), Path("/System/Library/Fonts/Supplemental"),
                Path("/Library/Fonts"), home / "Library" / "Fonts"]
    return [Path("/usr/share/fonts"), Path("/usr/local/share/fonts"),
            home / ".local" / "share" / "fonts", home / ".fonts"]


@lru_cache(maxsize=1)
def _host_files() -> dict[str, str]:
    """Every wanted font file name found in the font folders -> its path (first one wins)."""
    wanted = {name for chain in (CJK_REGULAR, CJK_BOLD, EMOJI, LATIN, LATIN_BOLD)
              for name, _ in chain}
    found: dict[str, str] = {}
    for root in system_font_dirs():
        for folder, _dirs, files in os.walk(root):
            for name in wanted.intersection(files) - found.keys():
                found[name] = os.path.join(folder, name)
    return found


def _packaged(module: str, filename: str) -> str | None:
    """The path of ``filename`` inside an installed package, or None when it is missing."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / filename
    return str(path) if path.is_file() else None


@lru_cache(maxsize=16)
def _resolve(chain: tuple[Face, ...],
             packaged: tuple[str, str, int] | None) -> tuple[Face, ...]:
    host = _host_files()
    out = [(host[name], index) for name, index in chain if name in host]
    if packaged and (path := _packaged(packaged[0], packaged[1])):
        out.append((path, packaged[2]))
    return tuple(out)


def text_faces(bold: bool = False) -> tuple[Face, ...]:
    """Font files for text, best first: host CJK fonts, the packaged CJK font, Latin ones."""
    if bold:
        return _resolve(CJK_BOLD, None) + text_faces() + _resolve(LATIN_BOLD, None)
    return _resolve(CJK_REGULAR, PACKAGED_CJK) + _resolve(LATIN, None)


def emoji_faces() -> tuple[Face, ...]:
    """Font files for emoji, best first; text fonts after them (they cover ★ and ☆)."""
    return _resolve(EMOJI, PACKAGED_EMOJI) + text_faces()


def missing_fonts() -> list[str]:
    """What the vphone lacks to draw Chinese and emoji (for doctor); empty when all is there."""
    missing = []
    if not _resolve(CJK_REGULAR, PACKAGED_CJK):
        missing.append("a CJK font (Noto Sans CJK, Microsoft YaHei, Hiragino Sans GB, …)")
    if not _resolve(EMOJI, PACKAGED_EMOJI):
        missing.append("an emoji font (Symbola, Noto Emoji, Segoe UI Emoji, …)")
    return missing


def reset() -> None:
    """Forget what was found and loaded (after ``OMG_FONT_DIRS`` changes in this process)."""
    for cached in (_host_files, _resolve, _load):
        cached.cache_clear()


@lru_cache(maxsize=128)
def _load(faces: tuple[Face, ...], size: int) -> Font:
    for path, index in faces:
        try:
            return ImageFont.truetype(path, size=size, index=index)
        except OSError as exc:  # a damaged file, or a bitmap-only font at this size
            log.warning("cannot load font %s: %s", path, exc)
    log.warning("no TrueType font found; using Pillow's default")
    return ImageFont.load_default(size=size)


def text_font(size: int, bold: bool = False) -> Font:
    return _load(text_faces(bold), size)


def emoji_font(size: int) -> Font:
    return _load(emoji_faces(), size)


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
