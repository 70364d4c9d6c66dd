"""Calendar and Clock through the real adb server (``am start``, ``input tap/text/swipe``,
``uiautomator dump``) and through uiautomator2, as a test harness drives a phone: the date
and time pickers, the alarm editor's chips, the stopwatch."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET

import pytest

from omg_agent.vphone.ui.pickers import full_date

uiautomator2 = pytest.importorskip("uiautomator2")

pytestmark = pytest.mark.skipif(shutil.which("adb") is None, reason="adb binary not installed")

CAL, CLOCK = "com.omg.calendar", "com.omg.clock"


def nodes(device) -> list[ET.Element]:
    device.shell("uiautomator dump /sdcard/window_dump.xml")
    xml = device.shell("cat /sdcard/window_dump.xml")
    return list(ET.fromstring(xml.encode("utf-8")).iter("node"))


def center(device, **attrs: str) -> tuple[int, int]:
    for node in nodes(device):
        if all(node.get(k) == v for k, v in attrs.items()):
            left, top, right, bottom = (int(v) for v in node.get("bounds", "").replace(
                "][", ",").strip("[]").split(","))
            return (left + right) // 2, (top + bottom) // 2
    raise AssertionError(f"no node with {attrs} in the dump")


def tap(device, **attrs: str) -> None:
    x, y = center(device, **attrs)
    device.shell(f"input tap {x} {y}")


def test_an_event_through_the_pickers_over_adb(vphone) -> None:
    device, phone = vphone.device, vphone.phone
    device.shell(f"am start -n {CAL}/.AllInOneActivity")
    today = phone.apps[CAL].today
    tap(device, **{"content-desc": "New event"})
    device.shell("input text Standup")
    tap(device, **{"resource-id": f"{CAL}:id/date_field"})
    day = today.replace(day=1 if today.day > 1 else 2)
    cell = [n for n in nodes(device) if n.get("content-desc") == full_date(day, False)]
    assert cell and cell[0].get("class") == "android.widget.TextView"
    tap(device, **{"content-desc": full_date(day, False)})
    tap(device, text="OK")
    tap(device, **{"resource-id": f"{CAL}:id/start_field"})
    picker = [n for n in nodes(device) if n.get("class") == "android.widget.NumberPicker"]
    assert [p.get("scrollable") for p in picker] == ["true", "true"]
    tap(device, **{"resource-id": f"{CAL}:id/hour_input"})
    device.shell("input keycombination KEYCODE_CTRL_LEFT KEYCODE_A")
    device.shell("input text 16")
    x, y = center(device, **{"resource-id": f"{CAL}:id/minute"})
    device.shell(f"input swipe {x} {y + 150} {x} {y - 150} 200")  # up: later minutes
    tap(device, text="OK")
    tap(device, **{"resource-id": f"{CAL}:id/save"})
    saved = phone.state()["apps"][CAL]["events"][-1]
    assert (saved["title"], saved["date"]) == ("Standup", day.isoformat())
    assert saved["start"].startswith("16:") and saved["start"] != "16:00"


def test_an_alarm_on_weekdays_and_the_stopwatch_with_uiautomator2(vphone) -> None:
    d = uiautomator2.connect(vphone.serial)
    try:
        d.app_start(CLOCK)
        d(description="Add alarm").click()
        d(resourceId=f"{CLOCK}:id/hour_input").set_text("7")
        d(description="Increase minute").click()
        for day in ("Mon", "Tue", "Wed", "Thu", "Fri"):
            d(text=day, className="com.google.android.material.chip.Chip").click()
        assert d(text="Wed").info["checked"] is True
        d(resourceId=f"{CLOCK}:id/save").click()
        assert {"time": "07:01", "label": "", "on": True,
                "days": ["Mon", "Tue", "Wed", "Thu", "Fri"]} in \
            vphone.phone.state()["apps"][CLOCK]["alarms"]
        d(text="Stopwatch").click()
        d(resourceId=f"{CLOCK}:id/sw_start").click()
        d(resourceId=f"{CLOCK}:id/lap").click()
        d(resourceId=f"{CLOCK}:id/sw_stop").click()
        sw = vphone.phone.state()["apps"][CLOCK]["stopwatch"]
        assert not sw["running"] and len(sw["laps"]) == 1
        assert d(textStartsWith="Lap 1").exists
    finally:
        d.stop_uiautomator(wait=False)
