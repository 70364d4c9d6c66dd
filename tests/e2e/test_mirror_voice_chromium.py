"""Voice on the mirror page in headless Chromium (issue 30): questions spoken only when the
toggle is on, the microphone only where the browser recognises speech, and a heard answer
shown for confirmation, never sent by itself.

``speechSynthesis.speak`` is replaced before the page's script runs by one that writes each
spoken text to the page's ``data-spoken`` attribute (headless Chromium has no voices); the
page, the mirror and its channel are real.
"""

from __future__ import annotations

import json
import threading

import pytest

from omg_agent.drivers.adb import AdbDriver
from omg_agent.guards.confirmation import ConfirmationRequest
from omg_agent.hitl.server import Mirror

playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = playwright.expect
WAIT_MS = 30_000
QUESTION = "Which note should I delete?"

RECORD_SPEECH = """
window.speechSynthesis.speak = utterance => {
  const said = JSON.parse(document.documentElement.dataset.spoken || "[]");
  said.push(utterance.text);
  document.documentElement.dataset.spoken = JSON.stringify(said);
};
"""
NO_RECOGNITION = "delete window.SpeechRecognition; delete window.webkitSpeechRecognition;"
HEARS_YES = """
window.SpeechRecognition = window.webkitSpeechRecognition = class {
  start() { setTimeout(() => this.onresult({results: [[{transcript: "yes"}]]}), 0); }
};
"""


def _ask(mirror: Mirror, question: str) -> threading.Thread:
    thread = threading.Thread(target=mirror.channel.ask, args=(question,), daemon=True)
    thread.start()
    return thread


def _spoken(page) -> list[str]:
    return json.loads(page.get_attribute("html", "data-spoken") or "[]")


def test_with_voice_on_a_question_is_spoken_with_its_text(vphone, chromium_page):
    page = chromium_page.page
    page.add_init_script(RECORD_SPEECH)
    with AdbDriver(vphone.serial) as driver, Mirror(driver) as mirror:
        page.goto(mirror.url)
        page.check("#voice")
        _ask(mirror, QUESTION)
        expect(page.locator("html")).to_have_attribute("data-spoken", json.dumps([QUESTION]),
                                                       timeout=WAIT_MS)
        mirror.channel.close()
    assert chromium_page.errors == []


def test_with_voice_off_a_question_is_shown_and_never_spoken(vphone, chromium_page):
    page = chromium_page.page
    page.add_init_script(RECORD_SPEECH)
    with AdbDriver(vphone.serial) as driver, Mirror(driver) as mirror:
        page.goto(mirror.url)
        expect(page.locator("#voice")).not_to_be_checked()  # off by default
        _ask(mirror, QUESTION)
        expect(page.locator(".req[data-kind=ask]")).to_contain_text(QUESTION, timeout=WAIT_MS)
        spoken = _spoken(page)  # the page speaks as it shows a request: after, or never
        mirror.channel.close()
    assert spoken == [] and chromium_page.errors == []


def test_without_speech_recognition_there_is_no_microphone(vphone, chromium_page):
    page = chromium_page.page
    page.add_init_script(NO_RECOGNITION)
    with AdbDriver(vphone.serial) as driver, Mirror(driver) as mirror:
        page.goto(mirror.url)
        expect(page.locator("#status")).to_contain_text("live", timeout=WAIT_MS)
        expect(page.locator("#mic")).to_be_hidden()
    assert chromium_page.errors == []


def test_a_spoken_yes_to_an_approval_is_shown_but_never_approves(vphone, chromium_page):
    page = chromium_page.page
    page.add_init_script(HEARS_YES)
    answers: list[bool | None] = []
    with AdbDriver(vphone.serial) as driver, Mirror(driver) as mirror:
        page.goto(mirror.url)
        request = ConfirmationRequest(cls="payment", describe="Pay now", reason="pays 9.99")
        asking = threading.Thread(target=lambda: answers.append(mirror.channel.confirm(request)),
                                  daemon=True)
        asking.start()
        expect(page.locator(".req[data-kind=confirm]")).to_contain_text("Pay now",
                                                                       timeout=WAIT_MS)
        page.click("#mic")
        expect(page.locator("#heard-text")).to_have_value("yes")  # shown to confirm
        page.click("#heard-use")
        expect(page.locator(".req[data-kind=confirm] button.approve")).to_be_visible()
        still_open = [r["kind"] for r in mirror.channel.pending()]
        page.click(".req[data-kind=confirm] button.approve")  # the one click that approves
        asking.join(30)
    assert still_open == ["confirm"] and answers == [True]
    assert chromium_page.errors == []
