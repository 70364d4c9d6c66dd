"""Open-AutoGLM's ADB layer (``phone_agent.adb``), call by call (run in its own venv).

Started by ``autoglm_check.py`` with the peer's Python and its source on PYTHONPATH: it
imports only ``phone_agent`` (which shells out to the ``adb`` client), never omg_agent. Each
call prints one JSON line ``{"call", "ok", "detail"}``; whether a call did what it says is read
from the device (the vphone's state provider, ``content query --uri
content://omg.vphone/state``, and ``uiautomator dump``), never from the call returning.
Usage: python autoglm_calls.py SERIAL
"""

from __future__ import annotations

import base64
import io
import json
import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from device_state import NOTES, DeviceState
from phone_agent import adb as peer
from phone_agent.config.apps import APP_PACKAGES
from PIL import Image

CHINESE = "价格 ¥7,999"


def report(call: str, ok: bool | str, detail: str = "") -> None:
    print(json.dumps({"call": call, "ok": ok, "detail": detail}, ensure_ascii=False),
          flush=True)


def check(call: str, action: Callable[[], Any], verify: Callable[[Any], str | None]) -> Any:
    """Run one call; ``verify`` gets its result and returns None or what is wrong."""
    try:
        result = action()
    except Exception as exc:  # the peer's own error is the finding
        report(call, False, f"{type(exc).__name__}: {exc}"[:300])
        return None
    try:
        wrong = verify(result)
    except Exception as exc:
        wrong = f"could not check: {type(exc).__name__}: {exc}"
    report(call, wrong is None, wrong or "")
    return result


def main(serial: str) -> None:
    def sh(command: str) -> str:
        return subprocess.run(["adb", "-s", serial, "shell", command], capture_output=True,
                              text=True, check=True).stdout

    seen = DeviceState(sh)  # the outcome, read from the phone
    state, foreground, draft = seen.state, seen.foreground, seen.draft

    def centre(attr: str, value: str) -> tuple[int, int]:
        xml = sh("uiautomator dump /sdcard/window_dump.xml >/dev/null && "
                 "cat /sdcard/window_dump.xml")
        for node in re.findall(r"<node [^>]*>", xml):
            if f'{attr}="{value}"' in node:
                x1, y1, x2, y2 = map(int, re.findall(
                    r'bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', node)[0])
                return (x1 + x2) // 2, (y1 + y2) // 2
        raise LookupError(f'no node with {attr}="{value}"')

    width, height = map(int, re.findall(r"(\d+)x(\d+)", sh("wm size"))[0])
    conn = peer.ADBConnection()
    check("ADBConnection.list_devices (adb devices -l)", conn.list_devices,
          lambda devs: None if any(d.device_id == serial and d.status == "device"
                                   for d in devs) else f"{serial} not listed: {devs}")
    check("ADBConnection.is_connected", lambda: conn.is_connected(serial),
          lambda ok: None if ok else "said not connected")
    check("launch_app 'Settings' (monkey -p … -c LAUNCHER 1)",
          lambda: peer.launch_app("Settings", serial),
          lambda ok: (None if ok else "returned False") or foreground("com.android.settings"))
    check("get_current_app (dumpsys window)", lambda: peer.get_current_app(serial),
          lambda name: None if APP_PACKAGES.get(name) == "com.android.settings"  # its own
          else f"said {name!r}")  # first name for the package, "AndroidSystemSettings"
    check("home", lambda: peer.home(serial), lambda _: foreground("com.android.launcher3"))

    def real_screenshot(shot: Any) -> str | None:
        img = Image.open(io.BytesIO(base64.b64decode(shot.base64_data))).convert("L")
        if shot.is_sensitive or (shot.width, shot.height) != (width, height):
            return f"{shot.width}x{shot.height}, sensitive={shot.is_sensitive}"
        return None if img.getextrema()[1] > 0 else "its black fallback image"

    check("get_screenshot (screencap -p, pull)", lambda: peer.get_screenshot(serial),
          real_screenshot)
    check("tap the Notes icon", lambda: peer.tap(*centre("text", "Notes"), serial),
          lambda _: foreground(NOTES, ".NotesListActivity"))
    check("tap New note", lambda: peer.tap(*centre("content-desc", "New note"), serial),
          lambda _: foreground(NOTES, ".NoteEditorActivity"))
    before = state()["ime"]
    original = check("detect_and_set_adb_keyboard (ime set com.android.adbkeyboard/.AdbIME)",
                     lambda: peer.detect_and_set_adb_keyboard(serial),
                     lambda ime: None if ime == before and state()["ime"].startswith(
                         "com.android.adbkeyboard") else f"ime is {state()['ime']}")
    check(f"type_text '{CHINESE}' (ADB_INPUT_B64 broadcast)",
          lambda: peer.type_text(CHINESE, serial), lambda _: draft("title", CHINESE))
    check("clear_text (ADB_CLEAR_TEXT broadcast)", lambda: peer.clear_text(serial),
          lambda _: draft("title", ""))
    check("restore_keyboard", lambda: peer.restore_keyboard(original or before, serial),
          lambda _: None if state()["ime"] == before else f"ime is {state()['ime']}")
    body = centre("resource-id", f"{NOTES}:id/body_input")
    check("long_press the body field", lambda: peer.long_press(*body, device_id=serial),
          lambda _: draft("focus", "body"))
    title = centre("resource-id", f"{NOTES}:id/title_input")
    check("double_tap the title field", lambda: peer.double_tap(*title, device_id=serial),
          lambda _: draft("focus", "title"))

    def back_twice() -> None:
        peer.back(serial)  # the first BACK hides the keyboard
        peer.back(serial)

    check("back", back_twice, lambda _: foreground(NOTES, ".NotesListActivity"))
    sh("monkey -p com.omg.feed -c android.intent.category.LAUNCHER 1")
    offset = state()["apps"]["com.omg.feed"]["scroll_offset"]
    check("swipe up in Feed",
          lambda: peer.swipe(width // 2, height * 3 // 4, width // 2, height // 4,
                             device_id=serial),
          lambda _: None if state()["apps"]["com.omg.feed"]["scroll_offset"] > offset
          else "the feed did not move")


if __name__ == "__main__":
    main(sys.argv[1])
