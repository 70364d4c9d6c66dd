"""minitap's Android controller (``AndroidDeviceController``), call by call (run in its venv).

Started by ``minitap_check.py`` with the peer's own Python: it imports only minitap (and the
adbutils it pins), never omg_agent. Each call prints one JSON line ``{"call", "ok",
"detail"}``; whether a call did what it says is read from the device (the vphone's state
provider, ``content query --uri content://omg.vphone/state``), never from the call returning.
Usage: python minitap_calls.py SERIAL
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from adbutils import AdbClient
from device_state import NOTES, DeviceState
from minitap.mobile_use.clients.ui_automator_client import UIAutomatorClient
from minitap.mobile_use.controllers.android_controller import AndroidDeviceController
from minitap.mobile_use.controllers.types import CoordinatesSelectorRequest

CHINESE = "价格 ¥7,999"
REAL_PHONE_ONLY = "real phone only"


def report(call: str, ok: bool | str, detail: str = "") -> None:
    print(json.dumps({"call": call, "ok": ok, "detail": detail}, ensure_ascii=False),
          flush=True)


async def check(call: str, action: Callable[[], Awaitable[Any]],
                verify: Callable[[Any], str | None]) -> None:
    """Run one call; ``verify`` gets its result and returns None or what is wrong."""
    try:
        result = await action()
    except Exception as exc:  # the peer's own error is the finding
        report(call, False, f"{type(exc).__name__}: {exc}"[:300])
        return
    try:
        wrong = verify(result)
    except Exception as exc:
        wrong = f"could not check: {type(exc).__name__}: {exc}"
    report(call, wrong is None, wrong or "")


async def main(serial: str) -> None:
    adb = AdbClient(host="127.0.0.1", port=5037)
    device = adb.device(serial=serial)
    width, height = map(int, re.findall(r"(\d+)x(\d+)", device.shell("wm size"))[0])
    ctl = AndroidDeviceController(serial, adb, UIAutomatorClient(serial), width, height)

    seen = DeviceState(device.shell)  # the outcome, read from the phone
    state, foreground, draft = seen.state, seen.foreground, seen.draft

    def centre(elements: list[dict], **match: str) -> CoordinatesSelectorRequest:
        for element in elements:
            if all(element.get(k) == v for k, v in match.items()):
                x1, y1, x2, y2 = map(int, re.findall(r"\d+", element["bounds"]))
                return CoordinatesSelectorRequest(x=(x1 + x2) // 2, y=(y1 + y2) // 2)
        raise LookupError(f"no element {match}")

    def done(ok: Any) -> str | None:
        return None if ok in (True, None) or getattr(ok, "error", 0) is None else f"said {ok}"

    await check(f"launch_app {NOTES} (adbutils app_start: monkey)",
                lambda: ctl.launch_app(NOTES),
                lambda ok: done(ok) or foreground(NOTES, ".NotesListActivity"))
    screen: dict[str, Any] = {}

    def has_fab(data: Any) -> str | None:
        screen["elements"] = data.elements
        png = base64.b64decode(data.base64)[:8] == b"\x89PNG\r\n\x1a\n"
        if not png or (data.width, data.height) != (width, height):
            return f"screenshot {data.width}x{data.height}, PNG={png}"
        return None if any(e.get("accessibilityText") == "New note" for e in data.elements) \
            else "no element described 'New note'"

    await check("get_screen_data (uiautomator2 screenshot + hierarchy)",
                ctl.get_screen_data, has_fab)
    await check("tap New note",
                lambda: ctl.tap(centre(screen.get("elements", []), accessibilityText="New note")),
                lambda out: done(out) or foreground(NOTES, ".NoteEditorActivity"))
    await check("input_text 'Groceries'", lambda: ctl.input_text("Groceries"),
                lambda ok: done(ok) or draft("title", "Groceries"))
    await check("erase_text 3 (KEYCODE_DEL)", lambda: ctl.erase_text(3),
                lambda ok: done(ok) or draft("title", "Grocer"))
    u2_ime = "com.github.uiautomator/.AdbKeyboard"
    call = f"input_text '{CHINESE}'"
    await ctl.input_text(CHINESE)
    if draft("title", "Grocer" + CHINESE) is None:
        report(call, True)
    elif u2_ime not in device.shell("ime list -a -s") and draft("title", "Grocer") is None:
        report(call, REAL_PHONE_ONLY, "needs uiautomator2's keyboard APK (com.github.uiautomator"
               "), which a vphone cannot install; minitap's fallback `input text` types no "
               "non-ASCII text on a phone either (NullPointerException, nothing typed)")
    else:
        report(call, False, draft("title", "Grocer" + CHINESE) or "")
    body = centre(await ctl.get_ui_hierarchy(), **{"resource-id": f"{NOTES}:id/body_input"})
    await check("tap long_press the body field", lambda: ctl.tap(body, long_press=True),
                lambda out: done(out) or draft("focus", "body"))
    await ctl.input_text("milk")
    await check("press_enter (a new line in the body)", ctl.press_enter,
                lambda ok: done(ok) or draft("body", "milk\n"))

    async def back_twice() -> bool:
        await ctl.press_back()  # the first BACK hides the keyboard
        return await ctl.press_back()

    await check("press_back", back_twice,
                lambda ok: done(ok) or foreground(NOTES, ".NotesListActivity"))
    await ctl.launch_app("com.omg.feed")

    def offset() -> int:
        return int(state()["apps"]["com.omg.feed"]["scroll_offset"])

    before = offset()
    await check("swipe up in Feed (input touchscreen swipe)",
                lambda: ctl.swipe(CoordinatesSelectorRequest(x=width // 2, y=height * 3 // 4),
                                  CoordinatesSelectorRequest(x=width // 2, y=height // 4)),
                lambda err: done(err) or (None if offset() > before else "the feed did not move"))
    await check("terminate_app None (the foreground app, via dumpsys window)",
                lambda: ctl.terminate_app(None),
                lambda ok: done(ok) or foreground("com.android.launcher3"))

    def chrome_on(ok: Any) -> str | None:
        url = state()["apps"].get("com.android.chrome", {}).get("url")
        return done(ok) or (None if url == "https://example.com/" else f"Chrome shows {url!r}")

    await check("open_url https://example.com", lambda: ctl.open_url("https://example.com"),
                chrome_on)
    await check("press_home", ctl.press_home,
                lambda ok: done(ok) or foreground("com.android.launcher3"))
    await check("screenshot", ctl.screenshot,
                lambda b64: None if base64.b64decode(b64)[:4] == b"\x89PNG" else "not a PNG")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
