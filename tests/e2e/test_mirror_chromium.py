"""The mirror in real headless Chromium against a vphone (issue 16).

``omg-agent mirror --device SERIAL`` runs as a subprocess, as a user starts it; the page is
opened with the printed link; what a click or typed text did is read from the vphone's
state, never from the page.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from omg_agent.bench.durability import as_at_a_terminal
from omg_agent.drivers.adb import AdbDriver

playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = playwright.expect

ROOT = Path(__file__).resolve().parents[2]


def wait_for(condition: Callable[[], object], what: str, deadline_s: float = 20.0) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.05)
    assert condition(), f"never happened: {what}"


@dataclass
class MirrorProcess:
    proc: subprocess.Popen[str]
    url: str
    audit: Path

    def entries(self) -> list[dict]:
        """The audit's gesture records (sign-ins left out)."""
        if not self.audit.exists():
            return []
        lines = [json.loads(line) for line in self.audit.read_text("utf-8").splitlines()]
        return [e for e in lines if e["action"] != "sign_in"]


@pytest.fixture
def mirror_cli(vphone, tmp_path) -> Iterator[MirrorProcess]:
    audit = tmp_path / "audit.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "400"}
    proc = subprocess.Popen([sys.executable, "-m", "omg_agent.cli", "mirror", "--device",
                             vphone.serial, "--driver", "adb", "--audit", str(audit)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=tmp_path, preexec_fn=as_at_a_terminal)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert "open http://127.0.0.1:" in line, line + (proc.stderr.read()
                                                          if proc.stderr else "")
        yield MirrorProcess(proc, line.split("open ", 1)[1].strip(), audit)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def _open(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#screen[data-frames]")  # (no eval: the page's CSP forbids it)


def _click_element(page, driver: AdbDriver, text: str) -> None:
    """Click, on the page's picture of the screen, the middle of the element ``text``."""
    obs = driver.observe()
    element = next(e for e in obs.elements if e.text == text or e.desc == text)
    width, height = obs.screenshot.size
    cx = (element.bounds.left + element.bounds.right) / 2 / width
    cy = (element.bounds.top + element.bounds.bottom) / 2 / height
    box = page.locator("#screen").bounding_box()
    page.mouse.click(box["x"] + cx * box["width"], box["y"] + cy * box["height"])


def test_page_loads_with_the_token_and_shows_the_vphone_screen(mirror_cli, chromium_page):
    page = chromium_page.page
    _open(page, mirror_cli.url)
    assert "token" not in page.url  # the link is traded for a cookie at once
    size = page.eval_on_selector("#screen", "c => [c.width, c.height]")  # as drawn
    assert size[0] > 100 and size[1] > size[0]  # a portrait phone screen
    assert chromium_page.errors == [] and chromium_page.dialogs == []
    again = page.context.browser.new_page()  # another browser: the link works once only
    assert again.goto(mirror_cli.url).status == 401


def test_a_click_on_the_settings_icon_opens_settings(vphone, mirror_cli, chromium_page):
    page = chromium_page.page
    _open(page, mirror_cli.url)
    with AdbDriver(vphone.serial) as driver:
        _click_element(page, driver, "Settings")
    wait_for(lambda: vphone.phone.foreground == "com.android.settings", "Settings opened")
    before = page.get_attribute("#screen", "data-frames")
    expect(page.locator("#screen")).not_to_have_attribute("data-frames", before or "",
                                                           timeout=20_000)  # a new frame
    page.click("#home")
    wait_for(lambda: vphone.phone.foreground == "com.android.launcher3", "home pressed")
    wait_for(lambda: [e["action"] for e in mirror_cli.entries()] == ["tap", "key"],
             "both gestures audited")
    assert chromium_page.errors == []


def test_chinese_text_typed_on_the_page_reaches_the_notes_editor(vphone, mirror_cli,
                                                                  chromium_page):
    page = chromium_page.page
    notes = vphone.phone.apps["com.omg.notes"]
    _open(page, mirror_cli.url)
    with AdbDriver(vphone.serial) as driver:
        driver.launch("com.omg.notes")
        wait_for(lambda: notes.state()["screen"] == "main", "Notes open")
        _click_element(page, driver, "New note")  # the "+" button, clicked on the page
    wait_for(lambda: (notes.state()["draft"] or {}).get("focus") == "title", "editor open")
    page.fill("#text", "买牛奶和鸡蛋 🥚")
    page.click("#send")
    wait_for(lambda: notes.state()["draft"]["title"] == "买牛奶和鸡蛋 🥚", "text in the editor")
    wait_for(lambda: any(e["action"] == "type" for e in mirror_cli.entries()), "typing audited")
    typed = [e for e in mirror_cli.entries() if e["action"] == "type"]
    assert typed[0]["ok"] is True and typed[0]["chars"] == 8
    assert "牛奶" not in mirror_cli.audit.read_text("utf-8")  # typed text stays out of it


def test_the_element_under_the_cursor_is_outlined_with_its_text(vphone, mirror_cli,
                                                                 chromium_page):
    page = chromium_page.page
    _open(page, mirror_cli.url)
    with AdbDriver(vphone.serial) as driver:
        obs = driver.observe()
    element = next(e for e in obs.elements if e.text == "Settings")
    width, height = obs.screenshot.size
    box = page.locator("#screen").bounding_box()
    cx = (element.bounds.left + element.bounds.right) / 2 / width
    cy = (element.bounds.top + element.bounds.bottom) / 2 / height
    page.mouse.move(box["x"] + cx * box["width"], box["y"] + cy * box["height"])
    expect(page.locator("#hover")).to_contain_text("Settings")
    expect(page.locator("#outline")).to_be_visible()
    outline = page.locator("#outline").bounding_box()
    assert outline["x"] <= box["x"] + cx * box["width"] <= outline["x"] + outline["width"]
    assert vphone.phone.foreground == "com.android.launcher3"  # hovering taps nothing
    assert mirror_cli.entries() == [] and chromium_page.errors == []
