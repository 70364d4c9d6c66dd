"""mobilerun's ADB-only AndroidDriver, call by call, against one device (run in mobilerun's venv).

Started by ``mobilerun_check.py`` with the peer's own Python: it imports only mobilerun, never
omg_agent. Each call prints one JSON line ``{"call", "ok", "detail"}``; whether a call did what
it says is read from the device (the vphone's state provider, ``content query --uri
content://omg.vphone/state``, and the peer's own UI tree), never from the call returning.
Usage: python mobilerun_calls.py SERIAL
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from mobilerun_core_local.driver.android.adb import AndroidDriver

STATE_URI = "content://omg.vphone/state"
REAL_PHONE_ONLY = "real phone only"


def report(call: str, ok: bool | str, detail: str = "") -> None:
    print(json.dumps({"call": call, "ok": ok, "detail": detail}, ensure_ascii=False),
          flush=True)


async def state(driver: AndroidDriver) -> dict[str, Any]:
    out = await driver.device.shell(f"content query --uri {STATE_URI}")
    return json.loads(out.split("state=", 1)[1])


def nodes(tree: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    stack = tree if isinstance(tree, list) else [tree]
    while stack:
        node = stack.pop(0)
        found.append(node)
        stack[0:0] = node.get("children", [])
    return found


def center(node: dict[str, Any]) -> tuple[int, int]:
    b = node["boundsInScreen"]
    return (b["left"] + b["right"]) // 2, (b["top"] + b["bottom"]) // 2


async def tree_nodes(driver: AndroidDriver) -> list[dict[str, Any]]:
    return nodes((await driver.get_ui_tree())["a11y_tree"])


async def check(call: str, action: Callable[[], Awaitable[Any]],
                verify: Callable[[Any], Awaitable[str | None]]) -> None:
    """Run one call; ``verify`` gets its result and returns None or what is wrong."""
    try:
        result = await action()
    except Exception as exc:  # the peer's own error is the finding
        report(call, False, f"{type(exc).__name__}: {exc}")
        return
    try:
        wrong = await verify(result)
    except Exception as exc:
        wrong = f"could not check: {type(exc).__name__}: {exc}"
    report(call, wrong is None, wrong or "")


async def main(serial: str) -> None:
    driver = AndroidDriver(serial=serial, portal_mode="auto")

    async def connected(_: Any) -> str | None:
        return "the Portal answered on a vphone" if driver.portal_available else None

    await check("connect (ADB-only: no Portal APK)", driver.connect, connected)

    async def foreground(package: str, activity: str | None = None) -> str | None:
        st = await state(driver)
        if st["foreground"] != package or (activity and st["activity"] != activity):
            return f"foreground is {st['foreground']}/{st['activity']}"
        return None

    await check("start_app com.omg.notes (resolve-activity --brief)",
                lambda: driver.start_app("com.omg.notes"),
                lambda _: foreground("com.omg.notes", ".NotesListActivity"))

    found: dict[str, dict[str, Any]] = {}

    async def has_new_note(tree: Any) -> str | None:
        for node in nodes(tree["a11y_tree"]):
            if node.get("contentDescription") == "New note":
                found["fab"] = node
                return None
        return "no node described 'New note' in the tree"

    await check("get_ui_tree (uiautomator dump)", driver.get_ui_tree, has_new_note)
    if "fab" in found:
        await check("tap New note", lambda: driver.tap(*center(found["fab"])),
                    lambda _: foreground("com.omg.notes", ".NoteEditorActivity"))

    async def field_is(text: str) -> str | None:
        focused = [n for n in await tree_nodes(driver) if n.get("focused")]
        value = focused[0].get("text") if focused else None
        return None if value == text else f"the focused field reads {value!r}"

    await check("input_text 'Groceries'", lambda: driver.input_text("Groceries"),
                lambda _: field_is("Groceries"))
    await check("input_text 'milk' clear=True (Ctrl+A, DEL)",
                lambda: driver.input_text("milk", clear=True), lambda _: field_is("milk"))
    try:
        await driver.input_text("价格 ¥7,999")
        report("input_text Chinese", False, "accepted in ADB-only mode")
    except ValueError as exc:
        report("input_text Chinese", REAL_PHONE_ONLY,
               f"needs mobilerun's Portal keyboard APK, which a vphone cannot install ({exc})")

    async def back_twice() -> None:
        await driver.press_button("back")  # the first BACK closes the keyboard
        await driver.press_button("back")

    await check("press_button back", back_twice,
                lambda _: foreground("com.omg.notes", ".NotesListActivity"))

    await driver.start_app("com.omg.feed")
    before = [n.get("text") for n in await tree_nodes(driver) if n.get("text")]

    async def scrolled(_: Any) -> str | None:
        after = [n.get("text") for n in await tree_nodes(driver) if n.get("text")]
        return None if after != before else "the feed shows the same posts"

    await check("swipe up in Feed", lambda: driver.swipe(540, 1800, 540, 700, 400), scrolled)

    async def chrome_on(_: Any) -> str | None:
        st = await state(driver)
        url = st["apps"].get("com.android.chrome", {}).get("url")
        return None if url == "https://example.com/" else f"Chrome shows {url!r}"

    await check("open_deep_link https://example.com",
                lambda: driver.open_deep_link("https://example.com"), chrome_on)

    async def png(data: bytes) -> str | None:
        return None if data[:8] == b"\x89PNG\r\n\x1a\n" else "not a PNG"

    await check("screenshot", driver.screenshot, png)
    try:
        await driver.start_app("com.example.absent")
        report("start_app of a missing package fails", False, "it claimed to start")
    except RuntimeError as exc:
        report("start_app of a missing package fails", True, str(exc))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
