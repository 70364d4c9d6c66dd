"""The dumpsys lines peers parse: the keyboard's visibility and the screen's orientation
(issue 29). Against the real VirtualPhone, so focus comes from a real edit field."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from omg_agent.vphone.phone import VirtualPhone

try:
    from .shell_fake_phone import run
except ImportError:
    from shell_fake_phone import run

NOTES = "com.omg.notes"


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    p = VirtualPhone()
    yield p
    p.close()


def input_shown(phone: VirtualPhone) -> list[str]:
    return re.findall(r"mInputShown=(\w+)", run(phone.shell, "dumpsys input_method")[1])


def test_input_shown_follows_the_focus_of_an_edit_field(phone):
    phone.start_activity(NOTES)
    assert input_shown(phone) == ["false"]
    phone.tap_view(resource_id=f"{NOTES}:id/fab_new")  # the new note's title takes focus
    assert input_shown(phone) == ["true"]
    run(phone.shell, "input keyevent KEYCODE_BACK")  # BACK first hides the keyboard
    assert input_shown(phone) == ["false"]


def test_orientation_lines_are_where_clients_grep_for_them(phone):
    surface = run(phone.shell, "dumpsys input | grep SurfaceOrientation")[1]
    assert re.fullmatch(r"\s+SurfaceOrientation: 0\n", surface)
    current = run(phone.shell, "dumpsys display | grep mCurrentOrientation")[1]
    assert re.fullmatch(r"\s+mCurrentOrientation=0\n", current)
    # adbutils' rotation() still reads the first `orientation=N` of dumpsys display
    display = run(phone.shell, "dumpsys display")[1]
    assert re.search(r"orientation=(\d+)", display).group(1) == "0"  # type: ignore[union-attr]
