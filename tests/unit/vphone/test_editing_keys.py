"""Ctrl+A/C/X/V through ``input keycombination`` edit the focused field as an EditText does
(issue 29): a selection is replaced by the next DEL or text, and forgotten by other input."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from omg_agent.vphone.phone import VirtualPhone

try:
    from .shell_fake_phone import run
except ImportError:
    from shell_fake_phone import run

NOTES = "com.omg.notes"
SELECT_ALL = "input keycombination KEYCODE_CTRL_LEFT KEYCODE_A"


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    p = VirtualPhone()
    p.start_activity(NOTES)
    p.tap_view(resource_id=f"{NOTES}:id/fab_new")  # the title field has focus
    p.input_text("Groceries")
    yield p
    p.close()


def title(phone: VirtualPhone) -> str:
    return phone.apps[NOTES].field("title")


def test_select_all_then_del_clears_the_field(phone):
    assert run(phone.shell, SELECT_ALL)[0] == 0
    assert title(phone) == "Groceries"  # selecting changes no text
    run(phone.shell, "input keyevent KEYCODE_DEL")
    assert title(phone) == ""


def test_without_a_selection_del_removes_one_character(phone):
    run(phone.shell, "input keyevent KEYCODE_DEL")
    assert title(phone) == "Grocerie"


def test_text_typed_over_a_selection_replaces_it(phone):
    run(phone.shell, SELECT_ALL)
    run(phone.shell, "input text Books")
    assert title(phone) == "Books"


def test_another_key_drops_the_selection(phone):
    run(phone.shell, SELECT_ALL)
    run(phone.shell, "input keyevent KEYCODE_DPAD_RIGHT")
    run(phone.shell, "input keyevent KEYCODE_DEL")
    assert title(phone) == "Grocerie"


def test_copy_and_paste_go_through_the_clipboard(phone):
    run(phone.shell, SELECT_ALL)
    run(phone.shell, "input keycombination KEYCODE_CTRL_LEFT KEYCODE_C")
    phone.tap_view(resource_id=f"{NOTES}:id/body_input")
    run(phone.shell, "input keycombination KEYCODE_CTRL_RIGHT KEYCODE_V")
    assert phone.apps[NOTES].field("body") == "Groceries"
    assert title(phone) == "Groceries"


def test_cut_empties_the_field_and_paste_puts_it_back(phone):
    run(phone.shell, SELECT_ALL)
    run(phone.shell, "input keycombination KEYCODE_CTRL_LEFT KEYCODE_X")
    assert title(phone) == ""
    run(phone.shell, "input keycombination KEYCODE_CTRL_LEFT KEYCODE_V")
    run(phone.shell, "input keycombination KEYCODE_CTRL_LEFT KEYCODE_V")
    assert title(phone) == "GroceriesGroceries"


def test_copy_without_a_selection_copies_nothing(phone):
    run(phone.shell, "input keycombination KEYCODE_CTRL_LEFT KEYCODE_C")
    run(phone.shell, "input keycombination KEYCODE_CTRL_LEFT KEYCODE_V")
    assert title(phone) == "Groceries"


def test_a_combination_without_ctrl_acts_as_its_last_key(phone):
    run(phone.shell, "input keycombination KEYCODE_SHIFT_LEFT KEYCODE_DEL")
    assert title(phone) == "Grocerie"


def test_cmd_clipboard_has_no_shell_commands_as_on_android_14(phone):
    assert run(phone.shell, "cmd clipboard get") == (0, "", "No shell command implementation.\n")
