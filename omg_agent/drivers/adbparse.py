"""Readers for what Android's shell commands print: frames, dumps, focus, sizes, IMEs.

Pure functions used by the ADB driver (:mod:`omg_agent.drivers.adb`); each takes the bytes or
text a command printed and returns values, raising :class:`~omg_agent.errors.FrameError` (or
returning ``None``) when the output is not what the command prints on a healthy phone.
"""

from __future__ import annotations

import io
import re
import struct
from dataclasses import dataclass

from PIL import Image

from omg_agent.errors import FrameError, TruncatedFrame

RAW_HEADER = struct.Struct("<IIII")  # width, height, pixel format, colour space (Android 9+)
LEGACY_HEADER = struct.Struct("<III")  # before Android 9 there is no colour space
PIXEL_FORMATS = {1: "RGBX", 2: "RGBX"}  # RGBA_8888, RGBX_8888 (alpha is always opaque)
_FOCUS = re.compile(r"mCurrentFocus=Window\{\S+ \S+ ([^\s/}]+)/([^\s}]+)\}")
_FOCUSED_APP = re.compile(r"mFocusedApp=\S*?\{\S+ \S+ ([^\s/}]+)/([^\s}]+)")
_POPUP = re.compile(r"mCurrentFocus=Window\{\S+ \S+ ([^\s/}]+)\}")
_SIZE = re.compile(r"(Physical|Override) size: (\d+)x(\d+)")
_DENSITY = re.compile(r"(Physical|Override) density: (\d+)")
_DUMP_END = "</hierarchy>"


@dataclass(frozen=True)
class ScreenInfo:
    width: int
    height: int
    density: int
    sdk: int
    brand: str
    model: str


def decode_raw_frame(data: bytes) -> Image.Image:
    """An RGB image from raw ``screencap`` output (header + w*h*4 pixel bytes)."""
    if len(data) >= RAW_HEADER.size:
        width, height, fmt = RAW_HEADER.unpack_from(data)[:3]
        expected = RAW_HEADER.size + width * height * 4
        if (0 < width <= 16384 and 0 < height <= 16384 and fmt in PIXEL_FORMATS
                and len(data) < expected and len(data) != LEGACY_HEADER.size + width * height * 4):
            raise TruncatedFrame(f"raw frame cut short: {len(data)} of {expected} bytes")
    for header in (RAW_HEADER, LEGACY_HEADER):
        if len(data) < header.size:
            continue
        width, height, fmt = header.unpack_from(data)[:3]
        if width <= 0 or height <= 0 or len(data) != header.size + width * height * 4:
            continue
        rawmode = PIXEL_FORMATS.get(fmt)
        if rawmode is None:
            raise FrameError(f"raw screencap pixel format {fmt} is not supported")
        return Image.frombytes("RGB", (width, height), memoryview(data)[header.size:],
                               "raw", rawmode)
    raise FrameError(f"not a raw screencap frame ({len(data)} bytes)")


def decode_png(data: bytes) -> Image.Image:
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (OSError, ValueError) as exc:
        raise FrameError(f"screencap -p gave no PNG: {exc}") from None
    return image.convert("RGB") if image.mode != "RGB" else image


def extract_hierarchy(output: bytes) -> str | None:
    """The XML of ``uiautomator dump`` output, without its trailing status line."""
    text = output.decode("utf-8", "replace")
    start = text.find("<?xml")
    if start < 0:
        start = text.find("<hierarchy")
    end = text.rfind(_DUMP_END)
    if start < 0 or end < start:
        return None
    return text[start:end + len(_DUMP_END)]


def short_activity(package: str, activity: str) -> str:
    """``com.x/com.x.Main`` style activity names shortened to ``.Main``."""
    return activity[len(package):] if activity.startswith(package + ".") else activity


def parse_focus(output: str) -> tuple[str, str]:
    """(package, activity) of the focused window from ``dumpsys window`` lines.

    ``mCurrentFocus`` (the window with input focus: a dialog counts) wins over
    ``mFocusedApp`` (the top activity); a system popup without an activity gives its name
    and an empty activity. ("", "") when neither line is there (screen off, keyguard).
    """
    m = _FOCUS.search(output)
    if m is not None:
        return m.group(1), short_activity(m.group(1), m.group(2))
    m = _FOCUSED_APP.search(output)
    if m is not None:
        return m.group(1), short_activity(m.group(1), m.group(2))
    m = _POPUP.search(output)
    if m is not None:
        return m.group(1), ""
    return "", ""


def parse_screen_info(output: str) -> ScreenInfo:
    """Read ``wm size; wm density; getprop sdk; getprop brand; getprop model`` output."""
    sizes = {kind: (int(w), int(h)) for kind, w, h in _SIZE.findall(output)}
    densities = {kind: int(d) for kind, d in _DENSITY.findall(output)}
    size = sizes.get("Override") or sizes.get("Physical")
    density = densities.get("Override") or densities.get("Physical")
    if size is None or density is None:
        raise FrameError(f"wm size/density printed nothing usable: {output[:200]!r}")
    # The three getprop lines come last, in order; an unset prop prints an empty line.
    props = [line.strip() for line in output.splitlines()
             if not _SIZE.search(line) and not _DENSITY.search(line)]
    sdk, brand, model = ([""] * 3 + props)[-3:]
    return ScreenInfo(size[0], size[1], density, int(sdk) if sdk.isdigit() else 0, brand, model)


def parse_ime_probe(output: str, separator: str) -> tuple[set[str], set[str], str]:
    """(installed IMEs, enabled IMEs, current IME) from the driver's IME probe."""
    parts = output.split(separator)
    if len(parts) != 3:
        return set(), set(), ""
    installed, enabled = ({line.strip() for line in p.splitlines() if line.strip()}
                          for p in parts[:2])
    return installed, enabled, parts[2].strip()
