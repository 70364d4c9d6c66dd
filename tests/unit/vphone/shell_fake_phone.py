"""A recording stand-in for VirtualPhone, for the shell's unit tests.

It has the attributes and methods the shell uses (``test_shell_phone.py`` checks that the real
VirtualPhone has every one of them) and records each UI call in ``calls`` so tests can assert
exactly what a command line did to the phone.
"""

from __future__ import annotations

import threading
import time

from omg_agent.vphone.logbuf import LogBuffer, Processes
from omg_agent.vphone.memfs import MemFS
from omg_agent.vphone.motion import Motion
from omg_agent.vphone.profile import get_profile
from omg_agent.vphone.shell import Shell
from omg_agent.vphone.shellio import CollectingIO

LATIN_IME = "com.android.inputmethod.latin/.LatinIME"
ADB_IME = "com.android.adbkeyboard/.AdbIME"
RAW_SCREEN = b"RAW\x00screen"
PNG_SCREEN = b"\x89PNG\r\n\x1a\nfake"
XML_DUMP = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\" />"

# Methods the shell may call; the recorded ones change UI state.
RECORDED = ("tap", "long_press", "swipe", "drag", "key", "key_combo", "input_text", "clear_text",
            "force_stop", "clear_app", "set_wifi", "start_uiautomator_server",
            "stop_uiautomator_server")


class FakePhone:
    def __init__(self) -> None:
        self.profile = get_profile("default")
        self.fs = MemFS()
        self.lock = threading.RLock()
        self.props = {"ro.product.model": "vPhone 1", "ro.build.version.sdk": "33",
                      "ro.serialno": "VPHONE0001"}
        self.settings: dict[str, dict[str, str]] = {
            "system": {"screen_brightness": "153"},
            "secure": {"default_input_method": LATIN_IME},
            "global": {"wifi_on": "1"},
        }
        self.ime_ids = [LATIN_IME, ADB_IME]
        self.activities = {"com.android.launcher3": [".Launcher"],
                           "com.android.settings": [".Settings", ".SubSettings"],
                           "com.omg.notes": [".NotesListActivity", ".NoteEditorActivity"]}
        self.front = ("com.android.launcher3", ".Launcher")
        self.latency: dict[str, float] = {}
        self.latency_asked: list[str] = []
        self.calls: list[tuple] = []
        self.started: list[tuple[str, str | None]] = []
        self.u2_started = threading.Event()
        self.clock = time.time
        self.log = LogBuffer()
        self.procs = Processes(self.log)
        self.motion = Motion(self, enabled=False)

    # -- recorded UI calls ------------------------------------------------------------------
    def tap(self, x: int, y: int) -> None:
        self.calls.append(("tap", x, y))

    def long_press(self, x: int, y: int, duration_ms: int = 600, *, hold: bool = True) -> None:
        self.calls.append(("long_press", x, y, duration_ms))

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300, *,
              hold: bool = True) -> None:
        self.calls.append(("swipe", x1, y1, x2, y2, duration_ms))

    def drag(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 600, *,
             hold: bool = True) -> None:
        self.calls.append(("drag", x1, y1, x2, y2, duration_ms))

    def key(self, keycode: int) -> None:
        self.calls.append(("key", keycode))

    def key_combo(self, keycodes: list[int]) -> None:
        self.calls.append(("key_combo", *keycodes))

    def input_text(self, text: str) -> None:
        self.calls.append(("input_text", text))

    def clear_text(self) -> None:
        self.calls.append(("clear_text",))

    def force_stop(self, package: str) -> None:
        self.calls.append(("force_stop", package))
        if self.front[0] == package:
            self.front = ("com.android.launcher3", ".Launcher")

    def clear_app(self, package: str) -> bool:
        self.calls.append(("clear_app", package))
        return package in self.activities

    def set_wifi(self, on: bool) -> None:
        self.calls.append(("set_wifi", on))

    def start_uiautomator_server(self, port: int = 9008) -> None:
        self.calls.append(("start_uiautomator_server", port))
        self.u2_started.set()

    def stop_uiautomator_server(self, port: int = 9008) -> None:
        self.calls.append(("stop_uiautomator_server", port))

    # -- queries ------------------------------------------------------------------------------
    @property
    def ime_current(self) -> str:
        return self.settings["secure"]["default_input_method"]

    def set_ime(self, ime_id: str) -> bool:
        if ime_id not in self.ime_ids:
            return False
        self.settings["secure"]["default_input_method"] = ime_id
        return True

    def screencap_raw(self) -> bytes:
        return RAW_SCREEN

    def screencap_png(self) -> bytes:
        return PNG_SCREEN

    def dump_xml(self) -> str:
        return XML_DUMP

    def focus(self) -> tuple[str, str]:
        return self.front

    def start_activity(self, package: str, activity: str | None = None) -> bool:
        self.started.append((package, activity))
        acts = self.activities.get(package)
        if acts is None or (activity is not None and activity not in acts):
            return False
        self.front = (package, activity or acts[0])
        return True

    def packages(self) -> list[str]:
        return sorted(self.activities)

    browser_package = "com.android.chrome"

    def open_url(self, url: str) -> bool:
        self.calls.append(("open_url", url))
        return False  # the fake has no browser

    def keyboard_shown(self) -> bool:
        return False

    def launchable(self) -> dict[str, str]:
        return {p: acts[0] for p, acts in self.activities.items()
                if p != "com.android.launcher3"}

    def state(self) -> dict:
        return {"foreground": self.front[0], "activity": self.front[1],
                "apps": {"com.omg.notes": {"notes": ["héllo \"quoted\"\nline"]}}}

    def command_latency(self, kind: str) -> float:
        self.latency_asked.append(kind)
        return self.latency.get(kind, 0.0)


def run(shell: Shell, cmdline: str, stdin: bytes = b"") -> tuple[int, str, str]:
    """Run a command line; return (exit status, stdout, stderr) as text."""
    io = CollectingIO(stdin)
    status = shell.run(cmdline, io)
    return status, io.out.decode("utf-8", "replace"), io.err.decode("utf-8", "replace")


def run_bytes(shell: Shell, cmdline: str, stdin: bytes = b"") -> tuple[int, bytes, bytes]:
    io = CollectingIO(stdin)
    status = shell.run(cmdline, io)
    return status, bytes(io.out), bytes(io.err)
