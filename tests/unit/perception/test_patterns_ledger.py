"""Issue 36, family B: the list patterns come out of perception as elements a model can name
— a Spinner as a dropdown with its choice, its open dropdown as a popup of choices (the
chosen one checked, nothing beneath listed), swipe-to-delete rows as items with their
amount, the snackbar's UNDO as a button, the keypad's keys, CheckBox rows named by their
task, and multi-select's "N selected" bar with Delete."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from omg_agent.core.observation import UIElement
from omg_agent.perception.elementlist import render
from omg_agent.perception.uitree import parse_screen
from omg_agent.vphone.phone import VirtualPhone

EXPENSES, TODO = "com.omg.expenses", "com.omg.todo"


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    p = VirtualPhone(seed=1)
    try:
        yield p
    finally:
        p.close()


def seen(phone: VirtualPhone) -> tuple[list[UIElement], list[str]]:
    screen = parse_screen(phone.dump_xml())
    return list(screen.elements), render(screen.elements, screen.size).splitlines()


def one(elements: list[UIElement], **how: str) -> UIElement:
    found = [e for e in elements if all(getattr(e, k) == v for k, v in how.items())]
    assert len(found) == 1, (how, [(e.role, e.text, e.desc) for e in elements])
    return found[0]


def test_a_spinner_is_a_dropdown_showing_its_choice(phone) -> None:
    phone.start_activity(EXPENSES)
    elements, lines = seen(phone)
    spinner = one(elements, resource_id=f"{EXPENSES}:id/filter_spinner")
    assert (spinner.role, spinner.text, spinner.desc) == ("dropdown", "All categories",
                                                          "Filter by category")
    assert spinner.clickable
    assert any(line.startswith(f"[{spinner.id}] dropdown \"All categories\"") for line in lines)


def test_the_open_dropdown_is_a_popup_of_choices_and_hides_the_list(phone) -> None:
    phone.start_activity(EXPENSES)
    phone.tap_view(resource_id=f"{EXPENSES}:id/filter_spinner")
    elements, lines = seen(phone)
    assert lines[0] == f"-- popup: {EXPENSES} --"
    choices = [(e.text, e.checked) for e in elements if e.window == "popup"]
    assert choices[0] == ("All categories", True) and ("Food", False) in choices
    assert all(e.role == "checkbox" and e.clickable for e in elements if e.window == "popup")
    assert "Lunch with Sam" not in {e.text for e in elements}


def test_rows_the_snackbar_and_the_keypad(phone) -> None:
    phone.start_activity(EXPENSES)
    row = phone.find_view(text="Taxi home")
    y = row.center[1]
    phone.swipe(1000, y, 100, y)
    elements, _ = seen(phone)
    lunch = one(elements, text="Lunch with Sam")
    assert lunch.role == "item" and "¥32.50" in lunch.extra_texts
    assert one(elements, text="Deleted Taxi home").role == "text"
    assert one(elements, text="UNDO").role == "button"
    phone.tap_view(resource_id=f"{EXPENSES}:id/fab_add")
    elements, _ = seen(phone)
    assert one(elements, resource_id=f"{EXPENSES}:id/key_7").text == "7"
    back = one(elements, resource_id=f"{EXPENSES}:id/key_backspace")
    assert (back.role, back.desc) == ("button", "Backspace")
    amount = one(elements, resource_id=f"{EXPENSES}:id/amount_display")
    assert (amount.role, amount.text, amount.desc, amount.editable) == ("text", "¥0", "Amount",
                                                                        False)


def test_checkbox_rows_and_the_multi_select_bar(phone) -> None:
    phone.start_activity(TODO)
    elements, _ = seen(phone)
    box = one(elements, role="checkbox", desc="Renew passport")
    assert box.checkable and not box.checked
    row = one(elements, text="Renew passport")
    assert row.role == "item" and "Due next week · Medium priority" in row.extra_texts
    assert one(elements, desc="Expand").role == "button"
    phone.long_press(*phone.find_view(text="Renew passport").center)
    elements, _ = seen(phone)
    assert one(elements, text="1 selected").role == "text"
    assert one(elements, text="Delete").role == "button"
    picked = one(elements, text="Renew passport")
    assert picked.checkable and picked.checked and picked.selected
