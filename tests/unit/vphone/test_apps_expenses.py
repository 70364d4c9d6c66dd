"""Expenses (记账) on an in-process VirtualPhone driven like a user: the amount keypad, the
category spinner and its dropdown window, swipe-to-delete with the undo snackbar timed by
the phone's injected clock, Recently deleted, the filter and the monthly total."""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from collections.abc import Iterator

import pytest
from app_phone import Clock, started, texts

from omg_agent.vphone.apps.expenses import ExpensesApp, keyed, parse_amount
from omg_agent.vphone.phone import VirtualPhone

PKG = "com.omg.expenses"
NOON = dt.datetime(2026, 3, 18, 12, 0).timestamp()


@pytest.fixture
def clock() -> Clock:
    return Clock(NOON)


@pytest.fixture
def phone(clock: Clock) -> Iterator[VirtualPhone]:
    with started(PKG, clock, seed=1) as p:
        yield p


def app(phone: VirtualPhone) -> ExpensesApp:
    found = phone.apps[PKG]
    assert isinstance(found, ExpensesApp)
    return found


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


def swipe_row(phone: VirtualPhone, note: str, share: float) -> None:
    row = phone.find_view(text=note)
    assert row is not None, note
    y = row.center[1]
    width = phone.profile.width
    phone.swipe(int(width * 0.9), y, int(width * (0.9 - share)), y)


def key_in(phone: VirtualPhone, amount: str) -> None:
    for k in amount:
        phone.tap_view(resource_id=rid({".": "key_dot"}.get(k, f"key_{k}")))


@pytest.mark.parametrize(("keys", "entry"), [
    ("12.5", "12.5"), ("12.505", "12.50"), ("..5", "0.5"), ("007", "7"),
    ("12345678", "1234567"), ("9⌫⌫", ""), ("0.0", "0.0")])
def test_the_keypad_keeps_an_amount_well_formed(keys: str, entry: str) -> None:
    got = ""
    for k in keys:
        got = keyed(got, k)
    assert got == entry


@pytest.mark.parametrize(("entry", "cents"), [("12.5", 1250), ("3", 300), ("0.05", 5),
                                              ("", 0), (".", 0), ("7.", 700)])
def test_an_entry_is_read_in_cents(entry: str, cents: int) -> None:
    assert parse_amount(entry) == cents


def test_seeded_expenses_of_last_month_are_not_in_this_months_list_or_total(phone) -> None:
    a = app(phone)
    month = "2026-03"
    assert {e["date"][:7] for e in a.expenses} == {month, "2026-02"}
    this = [e for e in a.expenses if e["date"].startswith(month)]
    assert phone.state()["apps"][PKG]["total"] == sum(e["amount"] for e in this)
    assert "Pizza night" not in texts(phone) and "Lunch with Sam" in texts(phone)


def test_an_expense_is_added_with_the_keypad_the_category_spinner_and_a_note(phone) -> None:
    before = app(phone).total()
    phone.tap_view(resource_id=rid("fab_add"))
    save = phone.find_view(resource_id=rid("save"))
    assert save is not None and not save.enabled  # no amount yet
    phone.tap_view(resource_id=rid("amount_display"))
    phone.input_text("99")  # the amount is no edit field: the keyboard cannot type it
    assert app(phone).entry == "" and phone.app.focus is None
    key_in(phone, "45.8")
    phone.tap_view(resource_id=rid("key_backspace"))
    key_in(phone, "9")
    phone.tap_view(resource_id=rid("category_spinner"))
    phone.tap_view(text="Transport")
    phone.tap_view(resource_id=rid("note_input"))
    phone.input_text("Train ticket")
    assert phone.find_view(resource_id=rid("amount_display")).text == "¥45.9"
    phone.tap_view(resource_id=rid("save"))
    added = app(phone).expenses[-1]
    assert {k: added[k] for k in ("amount", "category", "note", "date")} == {
        "amount": 4590, "category": "Transport", "note": "Train ticket", "date": "2026-03-18"}
    assert phone.state()["apps"][PKG]["total"] == before + 4590
    assert "This month: ¥" + f"{(before + 4590) / 100:,.2f}" in texts(phone)


def test_the_spinner_dropdown_is_a_window_of_its_own_and_choosing_closes_it(phone) -> None:
    phone.tap_view(resource_id=rid("filter_spinner"))
    windows = ET.fromstring(phone.dump_xml().encode()).findall("node")
    assert len(windows) == 2
    options = [(n.get("text"), n.get("checked")) for n in windows[1].iter("node")
               if n.get("class") == "android.widget.CheckedTextView"]
    assert options[0] == ("All categories", "true") and ("Food", "false") in options
    phone.tap_view(text="Food")
    assert app(phone).menu == "" and app(phone).filter == "Food"
    assert len(ET.fromstring(phone.dump_xml().encode()).findall("node")) == 1
    food = sum(e["amount"] for e in app(phone).this_month("Food"))
    assert f"Food this month: ¥{food / 100:,.2f}" in texts(phone)
    assert "Taxi home" not in texts(phone) and "Groceries" in texts(phone)


def test_a_touch_outside_or_back_dismisses_the_dropdown_choosing_nothing(phone) -> None:
    phone.tap_view(resource_id=rid("filter_spinner"))
    phone.tap(20, phone.profile.height - 300)
    assert app(phone).menu == "" and app(phone).filter == ""
    phone.tap_view(resource_id=rid("filter_spinner"))
    phone.key(4)
    assert app(phone).menu == "" and phone.foreground == PKG


def test_a_long_swipe_deletes_with_undo_and_a_short_one_springs_back(phone) -> None:
    n = len(app(phone).expenses)
    swipe_row(phone, "Taxi home", 0.3)
    assert len(app(phone).expenses) == n
    index = next(i for i, e in enumerate(app(phone).expenses) if e["note"] == "Taxi home")
    swipe_row(phone, "Taxi home", 0.5)
    assert "Taxi home" not in [e["note"] for e in app(phone).expenses]
    assert "Deleted Taxi home" in texts(phone)
    assert phone.state()["apps"][PKG]["snackbar"] == "Taxi home"
    phone.tap_view(text="UNDO")
    assert app(phone).expenses[index]["note"] == "Taxi home" and not app(phone).deleted
    assert "Deleted Taxi home" not in texts(phone)


def test_the_snackbar_goes_after_four_seconds_and_recently_deleted_restores(phone,
                                                                           clock) -> None:
    swipe_row(phone, "Phone bill", 0.6)  # a swipe to the left
    clock.now += 3.5
    assert "UNDO" in texts(phone)
    clock.now += 1.0
    assert "UNDO" not in texts(phone) and phone.state()["apps"][PKG]["snackbar"] == ""
    phone.tap_view(resource_id=rid("overflow"))
    item = ET.fromstring(phone.dump_xml().encode()).find(".//node[@text='Recently deleted']")
    assert item is not None and item.get("checkable") == "false"  # a menu item, no checkbox
    phone.tap_view(text="Recently deleted")
    assert app(phone).screen.name == "trash" and "Phone bill" in texts(phone)
    phone.tap_view(resource_id=rid("restore"), desc="Restore Phone bill")
    assert "Phone bill" in [e["note"] for e in app(phone).expenses]
    assert not app(phone).deleted


def test_a_right_swipe_deletes_too(phone) -> None:
    row = phone.find_view(text="Groceries")
    y = row.center[1]
    phone.swipe(100, y, 100 + int(phone.profile.width * 0.45), y)
    assert "Groceries" not in [e["note"] for e in app(phone).expenses]


def test_a_row_opens_its_expense_to_change_the_category(phone) -> None:
    phone.tap_view(text="Running shoes")
    assert phone.find_view(resource_id=rid("amount_display")).text == "¥129.99"
    phone.tap_view(resource_id=rid("category_spinner"))
    phone.tap_view(text="Other")
    phone.tap_view(resource_id=rid("save"))
    shoes = next(e for e in app(phone).expenses if e["note"] == "Running shoes")
    assert (shoes["category"], shoes["amount"]) == ("Other", 12999)


def test_back_from_the_form_discards_it(phone) -> None:
    n = len(app(phone).expenses)
    phone.tap_view(resource_id=rid("fab_add"))
    key_in(phone, "5")
    phone.key(4)
    assert len(app(phone).expenses) == n and app(phone).screen.name == "main"


def test_chinese_labels_and_categories(phone) -> None:
    phone.set_locale("zh-CN")
    assert "记账" in texts(phone) and "全部分类" in texts(phone)
    phone.tap_view(resource_id=rid("filter_spinner"))
    phone.tap_view(text="餐饮")
    assert app(phone).filter == "Food"
    assert any(t.startswith("餐饮本月：¥") for t in texts(phone))
    swipe_row(phone, "Groceries", 0.5)
    assert "已删除「Groceries」" in texts(phone) and "撤销" in texts(phone)
