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


def note_draft(phone: VirtualPhone) -> dict:
    return phone.state()["apps"][NOTES]["draft"]


@pytest.mark.parametrize("hide", ["KEYCODE_BACK", "KEYCODE_ESCAPE"])
def test_hiding_the_keyboard_leaves_the_field_focused_and_editable(phone, hide):
    # Midscene types, hides the keyboard (ESC, then BACK), then clears with DEL keys: on a
    # phone the field keeps focus when the keyboard goes, so the keys still reach it.
    phone.start_activity(NOTES)
    phone.tap_view(resource_id=f"{NOTES}:id/fab_new")
    run(phone.shell, "input text Groceries")
    run(phone.shell, f"input keyevent {hide}")
    assert input_shown(phone) == ["false"]
    assert note_draft(phone)["focus"] == "title"
    run(phone.shell, "input keyevent 67 112 67 112 67")  # DEL, FORWARD_DEL as appium-adb sends
    run(phone.shell, "input text s")
    assert note_draft(phone)["title"] == "Grocers"
    assert input_shown(phone) == ["false"]  # typing does not bring the keyboard back
    run(phone.shell, f"input keyevent {hide}")  # with the keyboard gone, BACK leaves the editor
    assert phone.state()["apps"][NOTES]["screen"] == "main"


def test_tapping_the_focused_field_shows_the_keyboard_again(phone):
    phone.start_activity(NOTES)
    phone.tap_view(resource_id=f"{NOTES}:id/fab_new")
    run(phone.shell, "input keyevent KEYCODE_BACK")
    phone.tap_view(resource_id=f"{NOTES}:id/title_input")
    assert input_shown(phone) == ["true"]
