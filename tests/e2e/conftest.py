"""Headless Chromium for the e2e tests: one page, with every console error, page error,
failed request and dialog collected, on the system's Chromium (scripts/setup.sh installs it)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


@dataclass
class WatchedPage:
    """A playwright page and what went wrong on it."""

    page: Any
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)


@pytest.fixture
def chromium_page() -> Iterator[WatchedPage]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing (scripts/setup.sh installs it)")
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright is not installed (pip install playwright)")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            watched = WatchedPage(page)
            page.on("console", lambda m: watched.errors.append(m.text)
                    if m.type == "error" else None)
            page.on("pageerror", lambda exc: watched.errors.append(str(exc)))
            page.on("requestfailed", lambda r: watched.errors.append(f"request failed: {r.url}"))
            page.on("dialog", lambda d: (watched.dialogs.append(d.message), d.dismiss()))
            yield watched
        finally:
            browser.close()
