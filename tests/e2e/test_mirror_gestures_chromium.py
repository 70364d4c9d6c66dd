"""Gestures on the mirror page in headless Chromium become the driver's actions (issue 16):
a drag a swipe from where the mouse went down to where it came up, a held press a long
press, the buttons their keys. A spy around the vphone's AdbDriver notes what the page
asked for; the vphone still carries it out."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from omg_agent.core.actions import Key, LongPress, Swipe
from omg_agent.drivers.adb import AdbDriver
from omg_agent.hitl.audit import AuditLog
from omg_agent.hitl.server import Mirror

playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = playwright.expect


class SpyDriver:
    """Notes each action (waking ``changed``) and hands it to the vphone's driver."""

    def __init__(self, driver: AdbDriver, changed: threading.Condition) -> None:
        self.driver = driver
        self.changed = changed
        self.actions: list[Any] = []

    def execute(self, actions: Sequence[Any], observation: Any = None, *,
                review: Any = None) -> Any:
        with self.changed:
            self.actions.extend(actions)
            self.changed.notify_all()
        return self.driver.execute(actions, observation, review=review)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.driver, name)


def wait_for(changed: threading.Condition, condition: Callable[[], bool], what: str,
             deadline_s: float = 60.0) -> None:
    """Wait (woken by ``changed``, no polling) until ``condition`` holds; a busy machine
    only makes it slower."""
    with changed:
        assert changed.wait_for(condition, timeout=deadline_s), f"never happened: {what}"


def test_drag_long_press_and_keys_reach_the_driver(vphone, chromium_page):
    page = chromium_page.page
    changed = threading.Condition()

    def audited(entry: dict[str, Any]) -> None:
        with changed:
            changed.notify_all()

    with AdbDriver(vphone.serial) as adb:
        spy = SpyDriver(adb, changed)
        with Mirror(spy, audit=AuditLog(sink=audited)) as mirror:
            page.goto(mirror.url)
            page.wait_for_selector("#screen[data-frames]")
            box = page.locator("#screen").bounding_box()

            def at(x: float, y: float) -> tuple[float, float]:
                return box["x"] + x * box["width"], box["y"] + y * box["height"]

            page.mouse.move(*at(0.5, 0.8))
            page.mouse.down()
            page.mouse.move(*at(0.5, 0.5), steps=5)
            page.mouse.move(*at(0.5, 0.3), steps=5)
            page.mouse.up()
            wait_for(changed, lambda: len(spy.actions) == 1, "the drag")
            page.mouse.move(*at(0.25, 0.6))
            page.mouse.down()
            page.wait_for_timeout(800)  # the gesture itself: a press held 800 ms
            page.mouse.up()
            wait_for(changed, lambda: len(spy.actions) == 2, "the long press")
            page.click("#recents")
            wait_for(changed, lambda: len(spy.actions) == 3, "recents")
            page.click("#back")
            wait_for(changed, lambda: len(mirror.audit.entries) == 5, "all four audited")
            audited = [e["action"] for e in mirror.audit.entries]
    swipe, press, recents, back = spy.actions
    assert isinstance(swipe, Swipe)
    assert abs(swipe.from_.x - 500) <= 5 and abs(swipe.from_.y - 800) <= 5
    assert abs(swipe.to.x - 500) <= 5 and abs(swipe.to.y - 300) <= 5
    assert isinstance(press, LongPress) and abs(press.target.y - 600) <= 5
    assert recents == Key(key="recents") and back == Key(key="back")
    assert audited == ["sign_in", "swipe", "long_press", "key", "key"]
    assert chromium_page.errors == []


def test_an_invited_viewer_watches_until_it_takes_control(vphone, chromium_page):
    first = chromium_page.page
    with AdbDriver(vphone.serial) as adb, Mirror(adb) as mirror:
        first.goto(mirror.url)
        first.wait_for_selector("#screen[data-frames]")
        expect(first.locator("#take")).to_be_hidden()  # the first viewer has control
        first.click("#invite")
        link = first.locator("#invite-link")
        expect(link).to_have_value(re.compile(r"^http://127\.0\.0\.1:\d+/\?token="))
        second = first.context.browser.new_context().new_page()  # another browser
        second.goto(link.input_value())
        second.wait_for_selector("#screen[data-frames]")
        expect(second.locator("#who")).to_contain_text("viewer 2 · watching")
        second.click("#take")
        expect(second.locator("#take")).to_be_hidden()
        expect(first.locator("#take")).to_be_visible()  # the first one now watches
        expect(first.locator("#who")).to_contain_text("watching")
        actions = [e["action"] for e in mirror.audit.entries]
    assert actions == ["sign_in", "invite", "sign_in", "take_control"]
    assert chromium_page.errors == []


def test_pause_and_continue_on_the_page_flip_the_takeover(vphone, chromium_page):
    page = chromium_page.page
    with AdbDriver(vphone.serial) as adb, Mirror(adb) as mirror:
        page.goto(mirror.url)
        page.wait_for_selector("#screen[data-frames]")
        page.click("#pause")
        expect(page.locator("#pause")).to_contain_text("Continue")
        assert mirror.takeover.active
        page.click("#pause")
        expect(page.locator("#pause")).to_contain_text("Pause the agent")
        assert not mirror.takeover.active
        actions = [e["action"] for e in mirror.audit.entries]
    assert actions == ["sign_in", "takeover", "continue"]
