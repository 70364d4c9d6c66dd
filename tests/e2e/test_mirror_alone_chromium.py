"""A mirror no agent uses shows no agent widgets in a real browser (issue 37): no "The agent
asks" box, no Pause, no voice; a mirror a run uses shows them all."""

from __future__ import annotations

import pytest

from omg_agent.drivers.adb import AdbDriver
from omg_agent.hitl.server import Mirror

playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = playwright.expect

AGENT_WIDGETS = ("#asks", "#pause", "#voice")


@pytest.mark.parametrize("agent", [False, True], ids=["alone", "with-an-agent"])
def test_agent_widgets_show_only_with_an_agent(vphone, chromium_page, agent: bool) -> None:
    page = chromium_page.page
    with AdbDriver(vphone.serial) as adb, Mirror(adb, agent=agent, video=False) as mirror:
        page.goto(mirror.url)
        expect(page.locator("#who")).to_contain_text("viewer 1")  # the first state arrived
        for widget in AGENT_WIDGETS:
            if agent:
                expect(page.locator(widget)).to_be_visible()
            else:
                expect(page.locator(widget)).to_be_hidden()
        expect(page.locator("#invite")).to_be_visible()  # the human's own controls stay
        expect(page.locator("#back")).to_be_visible()
    assert chromium_page.errors == []
