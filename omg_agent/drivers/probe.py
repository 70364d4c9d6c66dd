"""Probe a phone at connect time and save what was measured as its device profile.

For a device no shipped profile describes well (or to replace a profile's estimates with
measurements), :func:`probe_profile` asks the phone, once, through adb: its identity
(``getprop``), screen size and density (``wm size`` / ``wm density``, an override winning),
the status/navigation bar bands, the installed and default IMEs (is an ADB keyboard there
for unicode typing?), whether ``input`` is allowed (MIUI and ColorOS refuse it until a
developer option is on), and how long a raw ``screencap`` takes. The result is written as
``<brand>-<model>.yaml`` in the directory the caller passes and loads back through
:func:`omg_agent.drivers.profiles.load_profile` with that directory.

Bar heights, best evidence first: the ``InsetsSource`` lines of ``dumpsys window``
(Android 11+), the frames of the ``STATUS_BAR`` / ``NAVIGATION_BAR`` windows (older
releases), the full-width content frame of the current screen's hierarchy, else 24 dp and
48 dp. The profile's ``bars_source`` says which one was used.
"""

from __future__ import annotations

import logging
import re
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import adbutils

from omg_agent.core.geometry import Bounds
from omg_agent.drivers.profiles import (
    NAV_BAR_DP,
    STATUS_BAR_DP,
    DeviceProfileSpec,
    default_profile_dir,
    match_profile,
    profile_fields,
    profile_name_for,
    save_profile,
)
from omg_agent.errors import DeviceError

log = logging.getLogger(__name__)

ADB_KEYBOARDS = ("com.android.adbkeyboard/.AdbIME", "com.github.uiautomator/.AdbKeyboard")
_INPUT_REFUSED = ("securityexception", "inject_events", "permission denial", "not allowed")
_SOURCE_RANK = ("insets", "windows", "hierarchy", "default")
_RECT = r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]"
# "InsetsSource type=ITYPE_STATUS_BAR frame=[..]" (12–13), "… id=… type=statusBars frame=[..]"
# (14+), "InsetsSource: {mType=ITYPE_STATUS_BAR, mFrame=[..]" (11).
_INSETS_RE = re.compile(r"InsetsSource\b[^\n]*?\bm?[Tt]ype=(?P<type>ITYPE_STATUS_BAR"
                        r"|ITYPE_NAVIGATION_BAR|statusBars|navigationBars)\b"
                        r"[^\n]*?\bm?[Ff]rame=" + _RECT)
_WINDOW_FRAME_RE = re.compile(r"(?:mFrame=|\bframe=)" + _RECT)
_PROP_RE = re.compile(r"^\[([^\]]+)\]: \[(.*)\]$", re.MULTILINE)
_SIZE_RE = re.compile(r"(Physical|Override) size: (\d+)x(\d+)")
_DENSITY_RE = re.compile(r"(Physical|Override) density: (\d+)")
_NAV_MODES = {"0": "buttons", "1": "buttons", "2": "gesture"}


@dataclass(frozen=True)
class Bars:
    status: int
    nav: int
    source: str


# -- parsing (pure) -------------------------------------------------------------------------
def parse_getprop(text: str) -> dict[str, str]:
    return dict(_PROP_RE.findall(text))


def parse_wm_size(text: str) -> tuple[int, int]:
    """``wm size`` output → (width, height); an override size wins over the physical one."""
    found = {kind: (int(w), int(h)) for kind, w, h in _SIZE_RE.findall(text)}
    size = found.get("Override") or found.get("Physical")
    if size is None:
        raise ValueError(f"no size in `wm size` output: {text.strip()[:80]!r}")
    return size


def parse_wm_density(text: str) -> int:
    found = {kind: int(d) for kind, d in _DENSITY_RE.findall(text)}
    density = found.get("Override") or found.get("Physical")
    if density is None:
        raise ValueError(f"no density in `wm density` output: {text.strip()[:80]!r}")
    return density


def _rect(groups: tuple[str, ...]) -> Bounds:
    return Bounds(*(int(g) for g in groups))


def _status_from(box: Bounds, width: int) -> int | None:
    return box.bottom if box.top <= 0 < box.bottom and box.width >= width * 0.9 else None


def _nav_from(box: Bounds, width: int, height: int) -> int | None:
    ok = box.bottom >= height > box.top > height // 2 and box.width >= width * 0.9
    return height - box.top if ok else None


def bars_from_dumpsys(text: str, width: int, height: int) -> tuple[int | None, int | None, str]:
    """Status and navigation bar heights from ``dumpsys window`` (``None`` when absent)."""
    status = nav = None
    m: re.Match[str] | None
    for m in _INSETS_RE.finditer(text):
        box = _rect(m.groups()[1:])
        if "STATUS" in m["type"].upper():
            status = status if status is not None else _status_from(box, width)
        else:
            nav = nav if nav is not None else _nav_from(box, width, height)
    if status is not None or nav is not None:
        return status, nav, "insets"
    for block in re.split(r"\n\s*Window #\d+ ", text):
        m = _WINDOW_FRAME_RE.search(block)
        if m is None:
            continue
        if re.search(r"\bty=STATUS_BAR\b", block) and status is None:
            status = _status_from(_rect(m.groups()), width)
        elif re.search(r"\bty=NAVIGATION_BAR\b", block) and nav is None:
            nav = _nav_from(_rect(m.groups()), width, height)
    return status, nav, "windows"


def bars_from_hierarchy(xml: str, width: int, height: int) -> tuple[int | None, int | None]:
    """Bars from where the app's full-width content frame starts and ends."""
    try:
        root = ET.fromstring(xml[: xml.rfind(">") + 1].encode("utf-8"))
    except ET.ParseError:
        return None, None
    tops, bottoms = [], []
    for node in root.iter("node"):
        try:
            box = Bounds.parse(node.get("bounds", ""))
        except ValueError:
            continue
        if box.left > 0 or box.right < width:
            continue
        if 0 < box.top <= height * 0.07:
            tops.append(box.top)
        if height * 0.9 <= box.bottom < height:
            bottoms.append(box.bottom)
    return (min(tops) if tops else None), (height - max(bottoms) if bottoms else None)


# -- asking the device --------------------------------------------------------------------
def _shell(device: adbutils.AdbDevice, cmd: str, timeout: float = 30) -> str:
    try:
        return device.shell(cmd, timeout=timeout)
    except adbutils.AdbError as e:
        raise DeviceError(str(e), serial=device.serial, command=cmd) from e


def probe_bars(device: adbutils.AdbDevice, width: int, height: int, density: int) -> Bars:
    status, nav, source = bars_from_dumpsys(_shell(device, "dumpsys window"), width, height)
    sources = [source if status is not None else "", source if nav is not None else ""]
    if status is None or nav is None:
        dump = _shell(device, "uiautomator dump /dev/tty")
        h_status, h_nav = bars_from_hierarchy(dump, width, height)
        if status is None and h_status is not None:
            status, sources[0] = h_status, "hierarchy"
        if nav is None and h_nav is not None:
            nav, sources[1] = h_nav, "hierarchy"
    if status is None:
        status, sources[0] = round(STATUS_BAR_DP * density / 160), "default"
    if nav is None:
        nav, sources[1] = round(NAV_BAR_DP * density / 160), "default"
    worst = max(sources, key=_SOURCE_RANK.index)
    return Bars(status, nav, worst)


def input_permission(device: adbutils.AdbDevice) -> tuple[bool, str]:
    """Whether ``input`` may inject events; KEYCODE_UNKNOWN (0) is a key no app reacts to."""
    out = _shell(device, "input keyevent 0 2>&1; echo __rc=$?")
    text, _, rc = out.rpartition("__rc=")
    refused = rc.strip() not in ("", "0") or any(w in text.lower() for w in _INPUT_REFUSED)
    return (not refused), (text.strip()[:300] if refused else "")


def time_screencap(device: adbutils.AdbDevice, tries: int = 2) -> tuple[float, int]:
    """Milliseconds (best of ``tries``) and bytes of a raw ``screencap`` read in big chunks."""
    best, size = float("inf"), 0
    for _ in range(tries):
        start = time.perf_counter()
        try:
            conn = device.shell("screencap", stream=True)
        except adbutils.AdbError as e:
            raise DeviceError(str(e), serial=device.serial, command="screencap") from e
        try:
            size = 0
            while chunk := conn.conn.recv(1 << 20):
                size += len(chunk)
            best = min(best, (time.perf_counter() - start) * 1000)
        finally:
            conn.conn.close()
    return round(best, 1), size


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _base_fields(model: str, brand: str, size: tuple[int, int],
                 density: int) -> dict[str, Any]:
    """The fields of the shipped profile this device matches (aliases, notes…), or none."""
    base = match_profile(model, brand, size, density)
    if base is None:
        return {}
    raw, _ = profile_fields(base.name)
    raw["based_on"] = base.name
    return raw


def probe_profile(device: adbutils.AdbDevice, save_dir: Path | None = None) -> DeviceProfileSpec:
    """Measure ``device`` and save its profile in ``save_dir`` (default: the user's config)."""
    save_dir = save_dir if save_dir is not None else default_profile_dir()
    props = parse_getprop(_shell(device, "getprop"))
    brand = props.get("ro.product.brand", "").strip().lower()
    model = props.get("ro.product.model", "").strip()
    width, height = parse_wm_size(_shell(device, "wm size"))
    density = parse_wm_density(_shell(device, "wm density"))
    bars = probe_bars(device, width, height, density)
    imes = tuple(line.strip() for line in _shell(device, "ime list -s").splitlines()
                 if line.strip())
    default_ime = _shell(device, "settings get secure default_input_method").strip()
    nav_mode = _shell(device, "settings get secure navigation_mode").strip()
    allowed, refusal = input_permission(device)
    screencap_ms, screencap_bytes = time_screencap(device)

    raw = _base_fields(model, brand, (width, height), density)
    models = list(raw.get("models", []))
    raw.update({
        "title": raw.get("title") or f"{props.get('ro.product.manufacturer', brand)} {model}",
        "brand": brand,
        "manufacturer": props.get("ro.product.manufacturer", ""),
        "models": models + [model] if model and model not in models else models,
        "width": width, "height": height, "density": density,
        "status_bar_height": bars.status, "nav_bar_height": bars.nav,
        "bars_source": bars.source,
        "navigation": _NAV_MODES.get(nav_mode, raw.get("navigation", "unknown")),
        "ime": {**raw.get("ime", {}),
                "default": (default_ime if default_ime not in ("", "null")
                            else raw.get("ime", {}).get("default", "")),
                "adb_keyboard": any(k in imes for k in ADB_KEYBOARDS),
                "installed": list(imes)},
        "probe": {"serial": device.serial, "sdk": int(props.get("ro.build.version.sdk") or 0),
                  "release": props.get("ro.build.version.release", ""), "probed_at": _now(),
                  "input_allowed": allowed, "input_error": refusal,
                  "screencap_ms": screencap_ms, "screencap_bytes": screencap_bytes},
    })
    raw.pop("driver", None)  # a new probe measures the drivers again
    name = profile_name_for(brand, model)
    log.info("probed %s (%s %s): %dx%d@%d, bars %d/%d from %s, input %s, screencap %.0f ms",
             device.serial, brand, model, width, height, density, bars.status, bars.nav,
             bars.source, "allowed" if allowed else "REFUSED", screencap_ms)
    return save_profile(raw, save_dir, name)
