"""``omg-agent doctor``'s checks of the host and the devices: what works, and how to fix what
does not.

Each check returns :class:`Check` lines: a name, a status (``ok`` green, ``warn`` yellow —
works with a limitation or was skipped, ``fail`` red — OMG-Agent will not work until fixed)
and, when not ok, the fix to apply. The checks ask the real tools, as a user would: the
``adb`` binary (found, its version), the adb server (listening; started here when it is
not, and said so), the attached devices (state: unauthorized / offline / no permissions,
each with its fix), per device the IME that types unicode (ADB Keyboard) and whether
``input`` may inject events, and the fonts the vphone renders with. The model endpoint is
checked in :mod:`omg_agent.doctor_model`.
"""

from __future__ import annotations

import logging
import os
import platform
import socket
import subprocess
from dataclasses import asdict, dataclass
from typing import Any, Literal

import adbutils

from omg_agent.errors import AdbNotFound, DeviceError, OmgError
from omg_agent.vphone import adbhost

log = logging.getLogger(__name__)

Status = Literal["ok", "warn", "fail"]
DEFAULT_SERVER_PORT = 5037
# How to get adb, per platform.system(); one line each, facts only.
INSTALL_ADB = {
    "Linux": "install adb: `sudo apt-get install -y adb` (Debian/Ubuntu), `sudo dnf install "
             "android-tools` (Fedora), or Android SDK Platform-Tools for Linux on PATH",
    "Darwin": "install adb: `brew install android-platform-tools` (Homebrew), or Android SDK "
              "Platform-Tools for Mac on PATH",
    "Windows": "install adb: `winget install Google.PlatformTools`, `scoop install adb`, or "
               "unzip Android SDK Platform-Tools for Windows and add its folder to PATH",
}
INSTALL_ADB_OTHER = "install adb: Android SDK Platform-Tools for your OS, with `adb` on PATH"
STATE_FIXES = {
    "unauthorized": "unlock the phone and accept 'Allow USB debugging?' (tick 'Always allow'); "
                    "no prompt? revoke USB debugging authorisations in Developer options "
                    "and replug",
    "offline": "replug the cable (or `adb reconnect offline`); a network device: "
               "`adb disconnect {serial} && adb connect {serial}`",
    "no permissions": "add a udev rule for the phone's USB vendor id (Debian: "
                      "`apt-get install android-sdk-platform-tools-common`), then replug",
}


@dataclass(frozen=True)
class Check:
    """One doctor line. ``fix`` says what to do when ``status`` is not ``ok``."""

    name: str
    status: Status
    detail: str
    fix: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- adb ---------------------------------------------------------------------------------
def install_adb_hint(system: str | None = None) -> str:
    """How to get adb on this OS (``platform.system()`` names it), in one line."""
    return INSTALL_ADB.get(system or platform.system(), INSTALL_ADB_OTHER)


def check_adb() -> Check:
    """The ``adb`` binary: where it is and its version."""
    try:
        path = adbhost.adb_path()
    except AdbNotFound:
        return Check("adb", "fail", "adb is not on PATH (nor bundled with adbutils)",
                     install_adb_hint())
    try:
        out = subprocess.run([path, "version"], capture_output=True, text=True, timeout=20,
                             stdin=subprocess.DEVNULL, check=False).stdout
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Check("adb", "fail", f"{path} does not run: {exc}", install_adb_hint())
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    version = ", ".join(lines[:2]) or "no version printed"
    if adbhost.is_bundled(path):
        return Check("adb", "ok", f"{path} ({version}), the copy bundled with adbutils: no "
                     "adb on PATH, so `adb` in your shell will not find it")
    return Check("adb", "ok", f"{path} ({version})")


def server_port() -> int:
    """The adb server's port: ``ANDROID_ADB_SERVER_PORT`` (as adb itself reads it) or 5037."""
    text = os.environ.get("ANDROID_ADB_SERVER_PORT", "").strip()
    return int(text) if text.isdigit() else DEFAULT_SERVER_PORT


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=3):
            return True
    except OSError:
        return False


def check_server() -> Check:
    """The adb server listens (it is started with ``adb start-server`` when it does not)."""
    port = server_port()
    started = False
    if not _listening(port):
        try:
            adbhost.ensure_server()
        except OmgError as exc:
            return Check("adb server", "fail", f"not running on port {port}, and "
                         f"`adb start-server` failed: {exc}", "run `adb start-server` and read "
                         "its error; another program may hold the port")
        started = True
    try:
        version = adbutils.AdbClient(port=port).server_version()
    except (adbutils.AdbError, OSError) as exc:
        return Check("adb server", "fail", f"port {port} does not answer as an adb server: {exc}",
                     f"free port {port} (or set ANDROID_ADB_SERVER_PORT) and run "
                     "`adb start-server`")
    how = "was not running: started it with `adb start-server`" if started else "running"
    return Check("adb server", "ok", f"{how} on 127.0.0.1:{port} (protocol version {version})")


# -- devices -----------------------------------------------------------------------------
def check_devices(serial: str | None = None) -> tuple[list[Check], list[str]]:
    """The attached devices' states; returns the lines and the serials ready to check."""
    client = adbutils.AdbClient(port=server_port())
    try:
        listed = {item.serial: item.state for item in client.list()}
    except (adbutils.AdbError, OSError) as exc:
        return [Check("devices", "fail", f"cannot list devices: {exc}",
                      "run `adb start-server`, then `adb devices`")], []
    wanted = {serial: listed.get(serial, "")} if serial else listed
    if not wanted:
        return [Check("devices", "warn", "no device attached",
                      "plug in a phone with USB debugging on, or start a virtual one: "
                      "`omg-agent vphone start --connect` (`omg-agent demo` starts its own)")], []
    if serial and not wanted[serial]:
        return [Check("devices", "fail", f"{serial} is not attached (attached: "
                      f"{', '.join(listed) or 'none'})",
                      f"check the cable / `adb connect {serial}`, or pick one from `adb "
                      "devices`")], []
    summary = ", ".join(f"{s} ({state})" for s, state in wanted.items())
    lines = [Check("devices", "ok", f"{len(wanted)} checked: {summary}")]
    ready = []
    for s, state in wanted.items():
        if state == "device":
            ready.append(s)
            continue
        fix = STATE_FIXES.get(state, "replug it; see `adb devices -l`").format(serial=s)
        lines.append(Check(f"{s} state", "fail", f"{s} is {state}", fix))
    if len(lines) > 1:
        lines[0] = Check("devices", "fail", f"{len(wanted)} checked: {summary}",
                         "see the device lines below")
    return lines, ready


def check_device(serial: str) -> list[Check]:
    """One ready device: the IME for unicode text, and injected input."""
    device = adbutils.AdbClient(port=server_port()).device(serial)
    try:
        return [_check_ime(device), _check_input(device)]
    except (DeviceError, adbutils.AdbError, OSError) as exc:
        return [Check(f"{serial} shell", "fail", f"{serial} stopped answering: {exc}",
                      "replug it (or reconnect it) and run `omg-agent doctor` again")]


def _ime_ids(device: adbutils.AdbDevice, *flags: str) -> list[str]:
    out = device.shell(["ime", "list", *flags, "-s"], timeout=20)
    return [line.strip() for line in out.splitlines() if "/" in line]


def _check_ime(device: adbutils.AdbDevice) -> Check:
    from omg_agent.drivers.adbport import ADB_KEYBOARD_FIX
    from omg_agent.drivers.probe import ADB_KEYBOARDS

    name = f"{device.serial} IME"
    enabled = _ime_ids(device)
    usable = [k for k in ADB_KEYBOARDS if k in enabled]
    if usable:
        return Check(name, "ok", f"{usable[0]} enabled: unicode text (中文, emoji) can be "
                     "typed")
    installed = [k for k in ADB_KEYBOARDS if k in _ime_ids(device, "-a")]
    if installed:
        return Check(name, "fail", f"{installed[0]} is installed but disabled: unicode text "
                     "cannot be typed", f"adb -s {device.serial} shell ime enable {installed[0]}")
    shown = ", ".join(enabled) or "none"
    return Check(name, "warn", f"no ADB Keyboard (enabled IMEs: {shown}): only ASCII text can "
                 "be typed", ADB_KEYBOARD_FIX)


def _check_input(device: adbutils.AdbDevice) -> Check:
    from omg_agent.drivers.adbio import INJECT_HINT
    from omg_agent.drivers.probe import input_permission

    allowed, refusal = input_permission(device)
    name = f"{device.serial} input"
    if allowed:
        return Check(name, "ok", "`input keyevent 0` was accepted: taps, swipes and keys can be "
                     "injected")
    return Check(name, "fail", f"`input keyevent 0` was refused: {refusal}", INJECT_HINT)


# -- fonts -------------------------------------------------------------------------------
def check_fonts() -> Check:
    """The fonts the vphone renders with (CJK and emoji)."""
    from omg_agent.vphone.ui.fonts import emoji_faces, missing_fonts, text_faces

    missing = missing_fonts()
    if not missing:
        return Check("vphone fonts", "ok", f"text: {text_faces()[0][0]}, emoji: "
                     f"{emoji_faces()[0][0]}")
    return Check("vphone fonts", "warn", "missing " + " and ".join(missing) + ": the vphone "
                 "draws Chinese or emoji with a fallback font",
                 "`pip install noto-cjk-sans-otc manimgx-fonts` (omg-agent's dependencies that "
                 "ship the fonts), or set OMG_FONT_DIRS to folders holding such fonts")


# -- extras ------------------------------------------------------------------------------
def check_extras() -> list[Check]:
    """OCR (without it, a target the tree does not name is picked on the labelled grid),
    then which of the other optional extras are installed."""
    from omg_agent.errors import ExtraMissing
    from omg_agent.extras import GIVES, installed

    if installed("ocr"):
        ocr = Check("OCR", "ok", "installed: text the accessibility tree does not show is "
                    "read from the screen")
    else:
        ocr = Check("OCR", "warn", "not installed: a target the accessibility tree does not "
                    "name is picked on the labelled grid", str(ExtraMissing("OCR", "ocr")))
    others = [extra for extra in GIVES if extra != "ocr"]
    have = [extra for extra in others if installed(extra)]
    lacking = [f"{extra} ({GIVES[extra]})" for extra in others if extra not in have]
    detail = "installed: " + (", ".join(have) or "none")
    if lacking:
        detail += "; not installed: " + ", ".join(lacking) + " — each says how to install "\
                  "it when used"
    return [ocr, Check("extras", "ok", detail)]


def host_checks(serial: str | None = None, *, devices: bool = True) -> list[Check]:
    """adb, the server and (with ``devices``) every device or just ``serial``."""
    found = check_adb()
    lines = [found]
    if found.status == "fail":
        return lines
    server = check_server()
    lines.append(server)
    if server.status == "fail" or not devices:
        return lines
    device_lines, ready = check_devices(serial)
    lines += device_lines
    for s in ready:
        lines += check_device(s)
    return lines
