"""The mirror's H.264 path in real headless Chromium on a vphone (issue 30).

The mirror runs in this process on an AdbDriver; the vphone records with its
``screenrecord`` (PyAV's libx264) and the page decodes with WebCodecs. What a click or a key
did is read from the vphone's state. Debian's Chromium answers
``VideoDecoder.isConfigSupported({codec: "avc1.42E01E"})`` with ``supported: true``, so the
H.264 path is asserted, not only the fallback.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from omg_agent.drivers.adb import AdbDriver
from omg_agent.hitl.server import Mirror

playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = playwright.expect
WAIT_MS = 30_000


def _more_frames_after(page, change: Callable[[], object]) -> None:
    """``change`` the screen, then await a frame drawn after it."""
    before = page.get_attribute("#screen", "data-frames") or ""
    change()
    expect(page.locator("#screen")).not_to_have_attribute("data-frames", before,
                                                           timeout=WAIT_MS)


def _click_element(page, driver, text: str) -> None:
    obs = driver.observe()
    element = next(e for e in obs.elements if text in (e.text, e.desc))
    width, height = obs.screenshot.size
    box = page.locator("#screen").bounding_box()
    page.mouse.click(box["x"] + (element.bounds.left + element.bounds.right) / 2 / width
                     * box["width"],
                     box["y"] + (element.bounds.top + element.bounds.bottom) / 2 / height
                     * box["height"])


def _wait(condition: Callable[[], object], what: str, page) -> None:
    """Await ``condition`` on the vphone, polled from the page's clock (no sleeps here)."""
    for _ in range(600):
        if condition():
            return
        page.wait_for_timeout(50)
    assert condition(), f"never happened: {what}"


def _soon(condition: Callable[[], object], page) -> bool:
    """Whether ``condition`` holds within about five seconds of the page's clock."""
    for _ in range(100):
        if condition():
            return True
        page.wait_for_timeout(50)
    return bool(condition())


def test_the_page_plays_h264_and_a_click_still_taps_the_right_element(vphone,
                                                                       chromium_page):
    page = chromium_page.page
    with AdbDriver(vphone.serial) as driver, Mirror(driver) as mirror:
        page.goto(mirror.url)
        expect(page.locator("#path")).to_contain_text("H.264 video (WebCodecs)",
                                                      timeout=WAIT_MS)
        page.wait_for_selector("#screen[data-frames]", timeout=WAIT_MS)
        assert mirror.frames.watchers == 0  # no screenshots taken: the video alone
        with AdbDriver(vphone.serial) as other:
            for change in (lambda: other.launch("com.omg.notes"),
                           lambda: other.launch("com.android.settings"),
                           lambda: vphone.device.shell("input keyevent 3")):
                _more_frames_after(page, change)  # frames keep coming as the screen changes
            _wait(lambda: vphone.phone.foreground == "com.android.launcher3", "home", page)
            _more_frames_after(page, lambda: _click_element(page, other, "Settings"))
        _wait(lambda: vphone.phone.foreground == "com.android.settings", "Settings", page)
        size = page.eval_on_selector("#screen", "c => [c.width, c.height]")
        units = len(mirror.video.units) if mirror.video else 0
    assert size[0] > 100 and size[1] > size[0] and units >= 1
    assert chromium_page.errors == []


def test_without_screenrecord_the_jpeg_frames_take_over(vphone, chromium_page):
    del vphone.phone.shell.commands["screenrecord"]  # a phone older than Android 4.4
    page = chromium_page.page
    with AdbDriver(vphone.serial) as driver, Mirror(driver) as mirror:
        page.goto(mirror.url)
        expect(page.locator("#path")).to_contain_text("JPEG frames", timeout=WAIT_MS)
        expect(page.locator("#path")).to_contain_text("screenrecord")  # and why
        page.wait_for_selector("#screen[data-frames]", timeout=WAIT_MS)
        with AdbDriver(vphone.serial) as other:
            _more_frames_after(page, lambda: _click_element(page, other, "Settings"))
        _wait(lambda: vphone.phone.foreground == "com.android.settings", "Settings", page)
    assert chromium_page.errors == []


def test_keys_typed_on_the_page_reach_the_notes_body_byte_exact(vphone, chromium_page):
    page = chromium_page.page
    notes = vphone.phone.apps["com.omg.notes"]
    with AdbDriver(vphone.serial) as driver, Mirror(driver) as mirror:
        page.goto(mirror.url)
        page.wait_for_selector("#screen[data-frames]", timeout=WAIT_MS)
        with AdbDriver(vphone.serial) as other:
            other.launch("com.omg.notes")
            _wait(lambda: notes.state()["screen"] == "main", "Notes open", page)
            _more_frames_after(page, lambda: _click_element(page, other, "New note"))
            _wait(lambda: (notes.state()["draft"] or {}).get("focus") == "title", "editor",
                  page)
            body = next(e for e in other.observe().elements
                        if e.resource_id == "com.omg.notes:id/body_input")
            width, height = other.observe().screenshot.size
        box = page.locator("#screen").bounding_box()

        def click_body() -> None:
            page.mouse.click(box["x"] + body.bounds.center[0] / width * box["width"],
                             box["y"] + body.bounds.center[1] / height * box["height"])
        # the page shows the editor before the click (a frame drawn after it opened)
        _more_frames_after(page, lambda: None)
        click_body()
        focused = lambda: notes.state()["draft"]["focus"] == "body"  # noqa: E731
        if not _soon(focused, page):  # a loaded machine: click again, as a person would
            click_body()
        _wait(focused, "body focused", page)
        expect(page.locator("#kbd")).to_contain_text("typing goes to the phone")
        page.keyboard.type("Milk 牛奶")
        page.keyboard.press("Enter")
        page.keyboard.type("eggs🥚x")
        page.keyboard.press("Backspace")
        page.eval_on_selector("#keys", """(k, text) => {
            const data = new DataTransfer(); data.setData("text/plain", text);
            k.dispatchEvent(new ClipboardEvent("paste", {clipboardData: data, bubbles: true,
                                                         cancelable: true}));
        }""", " 和面包")
        want = "Milk 牛奶\neggs🥚 和面包"
        _wait(lambda: notes.state()["draft"]["body"] == want, "the typed body", page)
        kinds = [e["action"] for e in mirror.audit.entries if e["action"] != "sign_in"]
    assert "key" in kinds and "type" in kinds and chromium_page.errors == []


def test_an_approval_answered_on_the_page_settles_the_request(vphone, chromium_page):
    from omg_agent.guards.confirmation import ConfirmationRequest

    page = chromium_page.page
    answers: list[bool | None] = []
    with AdbDriver(vphone.serial) as driver, Mirror(driver) as mirror:
        page.goto(mirror.url)
        request = ConfirmationRequest(describe="Pay now", cls="payment", reason="pays 9.99")
        asking = threading.Thread(target=lambda: answers.append(mirror.channel.confirm(request)))
        asking.start()
        approval = page.locator(".req[data-kind=confirm]")
        expect(approval).to_contain_text("Pay now", timeout=WAIT_MS)
        approval.locator("button.approve").click()
        asking.join(30)
    assert answers == [True] and chromium_page.errors == []
