"""Expenses and To-do (issue 36, family B) through the real adb server and uiautomator2:
the Spinner's dropdown window, swipe-to-delete with UNDO, CheckBox rows and long-press
multi-select, driven by ``adb shell input`` / ``uiautomator dump`` and by uiautomator2's
selectors, exactly as on a phone."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET

import pytest

uiautomator2 = pytest.importorskip("uiautomator2")

pytestmark = pytest.mark.skipif(shutil.which("adb") is None, reason="adb binary not installed")

EXPENSES, TODO = "com.omg.expenses", "com.omg.todo"


def dump(vphone) -> ET.Element:
    device = vphone.device
    device.shell("uiautomator dump /sdcard/window_dump.xml")
    return ET.fromstring(device.shell("cat /sdcard/window_dump.xml").encode())


def node(root: ET.Element, **attrs: str) -> ET.Element:
    for n in root.iter("node"):
        if all(n.get(k.replace("_", "-")) == v for k, v in attrs.items()):
            return n
    raise AssertionError(f"no node {attrs}")


def center(n: ET.Element) -> tuple[int, int]:
    left, top, right, bottom = (int(v) for v in n.get("bounds", "").replace(
        "][", ",").strip("[]").split(","))
    return (left + right) // 2, (top + bottom) // 2


def notes(vphone) -> list[str]:
    return [e["note"] for e in vphone.phone.state()["apps"][EXPENSES]["expenses"]]


def test_adb_spinner_dropdown_and_swipe_to_delete_with_undo(vphone) -> None:
    sh = vphone.device.shell
    sh(f"am start -n {EXPENSES}/.ExpenseListActivity")
    x, y = center(node(dump(vphone), resource_id=f"{EXPENSES}:id/filter_spinner",
                       **{"class": "android.widget.Spinner"}))
    sh(f"input tap {x} {y}")
    windows = dump(vphone).findall("node")
    assert len(windows) == 2  # the dropdown is a window of its own
    food = node(windows[1], text="Food", **{"class": "android.widget.CheckedTextView"})
    assert food.get("checkable") == "true" and food.get("checked") == "false"
    sh("input tap {} {}".format(*center(food)))
    root = dump(vphone)
    assert node(root, resource_id=f"{EXPENSES}:id/month_total").get("text", "").startswith(
        "Food this month: ¥")
    row = node(root, text="Groceries")
    _, ry = center(row)
    sh(f"input swipe 980 {ry} 100 {ry} 300")
    assert "Groceries" not in notes(vphone)
    x, y = center(node(dump(vphone), text="UNDO"))
    sh(f"input tap {x} {y}")
    assert "Groceries" in notes(vphone)


def test_adb_checkbox_and_long_press_multi_select(vphone) -> None:
    sh = vphone.device.shell
    sh(f"am start -n {TODO}/.TaskListActivity")
    box = node(dump(vphone), content_desc="Renew passport",
               **{"class": "android.widget.CheckBox"})
    assert (box.get("checkable"), box.get("checked")) == ("true", "false")
    sh("input tap {} {}".format(*center(box)))
    assert "Completed (3)" in {n.get("text") for n in dump(vphone).iter("node")}
    x, y = center(node(dump(vphone), text="Water the plants"))
    sh(f"input swipe {x} {y} {x} {y} 800")  # a long press
    root = dump(vphone)
    assert node(root, resource_id=f"{TODO}:id/selection_count").get("text") == "1 selected"
    x, y = center(node(root, resource_id=f"{TODO}:id/delete_selected"))
    sh(f"input tap {x} {y}")
    titles = [t["title"] for t in vphone.phone.state()["apps"][TODO]["tasks"]]
    assert "Water the plants" not in titles and len(titles) == 6


def test_uiautomator2_drives_the_keypad_spinner_and_checkboxes(vphone) -> None:
    d = uiautomator2.connect(vphone.serial)
    try:
        d.app_start(EXPENSES)
        d(resourceId=f"{EXPENSES}:id/fab_add").click()
        for key in ("key_4", "key_2", "key_dot", "key_5"):
            d(resourceId=f"{EXPENSES}:id/{key}").click()
        d(className="android.widget.Spinner", resourceId=f"{EXPENSES}:id/category_spinner"
          ).click()
        d(className="android.widget.CheckedTextView", text="Bills").click()
        d(resourceId=f"{EXPENSES}:id/note_input").set_text("Water bill")
        assert d(resourceId=f"{EXPENSES}:id/amount_display").get_text() == "¥42.5"
        d(resourceId=f"{EXPENSES}:id/save").click()
        added = vphone.phone.state()["apps"][EXPENSES]["expenses"][-1]
        assert (added["amount"], added["category"], added["note"]) == (4250, "Bills",
                                                                       "Water bill")
        d.app_start(TODO)
        d(className="android.widget.CheckBox", description="Plan weekend trip").click()
        d(resourceId=f"{TODO}:id/expand").click()
        box = d(className="android.widget.CheckBox", description="Plan weekend trip")
        assert box.info["checked"] is True
        d(text="Book flights to Lisbon").long_click()
        assert d(text="1 selected").exists
    finally:
        d.stop_uiautomator(wait=False)
