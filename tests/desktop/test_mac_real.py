"""The macOS backend on a real Mac (``pytest -m mac``): skipped everywhere else. Needs
Screen Recording and Accessibility granted to the terminal that runs pytest."""

from __future__ import annotations

import sys

import pytest

pytestmark = [pytest.mark.mac,
              pytest.mark.skipif(sys.platform != "darwin", reason="needs a real Mac")]


def test_a_real_mac_observes_its_screen_and_frontmost_app() -> None:
    from omg_agent.drivers.desktop import open_desktop

    with open_desktop("desktop=mac") as driver:
        obs = driver.observe(ocr=False)
        display = driver.display()
        assert obs.size == (display.width, display.height)
        assert obs.package  # the frontmost app's name
        assert driver.scale.factor in (1.0, 2.0, 3.0)
