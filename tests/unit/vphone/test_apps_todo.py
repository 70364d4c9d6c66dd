"""To-do (待办) on an in-process VirtualPhone driven like a user: CheckBox rows, the
Completed section collapsed by default, long-press multi-select with "N selected" and
Delete (undo on the phone's clock), and the New task form's due chips and priority
spinner."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from app_phone import Clock, started, texts

from omg_agent.vphone.apps.todo import TodoApp, task
from omg_agent.vphone.phone import VirtualPhone

PKG = "com.omg.todo"


@pytest.fixture
def clock() -> Clock:
    return Clock(1_000_000.0)


@pytest.fixture
def phone(clock: Clock) -> Iterator[VirtualPhone]:
    with started(PKG, clock, seed=1) as p:
        yield p


def app(phone: VirtualPhone) -> TodoApp:
    found = phone.apps[PKG]
    assert isinstance(found, TodoApp)
    return found


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


def done(phone: VirtualPhone, title: str) -> bool:
    return next(t["done"] for t in app(phone).tasks if t["title"] == title)


def test_a_checkbox_completes_a_task_into_the_collapsed_completed_section(phone) -> None:
    box = phone.find_view(resource_id=rid("task_checkbox"), desc="Renew passport")
    assert box is not None and box.cls == "android.widget.CheckBox" and box.checkable
    assert not box.checked
    assert "Return library books" not in texts(phone)  # collapsed by default
    phone.tap(*box.center)
    assert done(phone, "Renew passport") and "Renew passport" not in texts(phone)
    assert "Completed (3)" in texts(phone)
    phone.tap_view(resource_id=rid("expand"), desc="Expand")
    assert "Renew passport" in texts(phone) and "Return library books" in texts(phone)
    again = phone.find_view(resource_id=rid("task_checkbox"), desc="Renew passport")
    assert again.checked
    phone.tap(*again.center)
    assert not done(phone, "Renew passport")


def test_long_press_starts_multi_select_and_delete_has_undo(phone, clock) -> None:
    before = [dict(t) for t in app(phone).tasks]
    phone.long_press(*phone.find_view(text="Water the plants").center)
    assert "1 selected" in texts(phone)
    row = phone.find_view(resource_id=rid("task_item"))
    assert row.checkable and row.checked and row.long_clickable
    phone.tap(*phone.find_view(resource_id=rid("task_checkbox"),
                               desc="Plan weekend trip").center)  # toggles, not done
    assert "2 selected" in texts(phone) and not done(phone, "Plan weekend trip")
    assert phone.state()["apps"][PKG]["selected"] == [0, 4]
    phone.tap_view(resource_id=rid("delete_selected"))
    titles = [t["title"] for t in app(phone).tasks]
    assert "Water the plants" not in titles and "Plan weekend trip" not in titles
    assert "Deleted 2 tasks" in texts(phone)
    phone.tap_view(text="UNDO")
    assert app(phone).tasks == before
    phone.long_press(*phone.find_view(text="Water the plants").center)
    phone.tap_view(resource_id=rid("delete_selected"))
    clock.now += 5
    assert "UNDO" not in texts(phone)


def test_select_mode_ends_with_back_close_or_the_last_row_unselected(phone) -> None:
    for leave in ("back", "close", "untap"):
        phone.long_press(*phone.find_view(text="Renew passport").center)
        assert app(phone).selection.active
        if leave == "back":
            phone.key(4)
        elif leave == "close":
            phone.tap_view(resource_id=rid("close_selection"))
        else:
            phone.tap_view(text="Renew passport")
        assert not app(phone).selection.active and "To-do" in texts(phone), leave
    assert phone.foreground == PKG and app(phone).tasks[2]["title"] == "Renew passport"


def test_a_new_task_takes_a_due_chip_and_a_priority_from_the_spinner(phone) -> None:
    phone.tap_view(resource_id=rid("fab_add"))
    assert not phone.find_view(resource_id=rid("save")).enabled
    phone.input_text("Buy a gift")  # the title field has focus
    phone.tap_view(resource_id=rid("due_tomorrow"))
    chip = phone.find_view(resource_id=rid("due_tomorrow"))
    assert chip.checkable and chip.checked
    phone.tap_view(resource_id=rid("priority_spinner"))
    assert phone.state()["apps"][PKG]["menu"] == "priority"
    phone.tap_view(text="High")
    assert phone.find_view(resource_id=rid("priority_spinner")).children[0].text == "High"
    phone.tap_view(resource_id=rid("save"))
    assert app(phone).tasks[-1] == task("Buy a gift", False, "tomorrow", "high")
    assert "Due tomorrow · High priority" in texts(phone)


def test_a_row_opens_the_task_to_edit_its_priority(phone) -> None:
    phone.tap_view(text="Plan weekend trip")
    phone.tap_view(resource_id=rid("priority_spinner"))
    phone.tap_view(text="Medium")
    phone.tap_view(resource_id=rid("due_next_week"))
    phone.tap_view(resource_id=rid("save"))
    assert app(phone).tasks[4] == task("Plan weekend trip", False, "next_week", "medium")


def test_bad_seed_values_are_refused() -> None:
    with pytest.raises(ValueError, match="priority one of"):
        task("x", priority="urgent")


def test_chinese(phone) -> None:
    phone.set_locale("zh-CN")
    assert "待办" in texts(phone) and "已完成（2）" in texts(phone)
    assert "今天到期 · 低优先级" in texts(phone)
    phone.long_press(*phone.find_view(text="Renew passport").center)
    assert "已选择 1 项" in texts(phone) and "删除" in texts(phone)
