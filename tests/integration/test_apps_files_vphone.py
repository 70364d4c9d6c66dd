"""Family C's apps (issue 36) through the real adb server and uiautomator2: Files' long
press, multi-select and folder picker with ``adb shell input``/``uiautomator dump`` (and
``ls`` agreeing with the app), Contacts' Compose tree (no ids) and phone field, Files'
context menu and rename dialog, and Markor, driven by uiautomator2 selectors.
"""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET

import pytest

uiautomator2 = pytest.importorskip("uiautomator2")
pytestmark = pytest.mark.skipif(shutil.which("adb") is None, reason="adb binary not installed")

FILES, CONTACTS, MARKOR = "com.omg.files", "com.omg.contacts", "com.omg.markor"


def dump(device) -> str:
    device.shell("uiautomator dump /sdcard/window.xml")
    return device.shell("cat /sdcard/window.xml")


def center(xml: str, *, text: str | None = None, desc: str | None = None) -> tuple[int, int]:
    """The centre of the clickable node labelled ``text`` (its own, or a child's) or
    ``desc``."""
    root = ET.fromstring(xml.encode("utf-8"))
    for node in root.iter("node"):
        own = node.get("text") == text if text is not None else node.get(
            "content-desc") == desc
        kids = text is not None and any(k.get("text") == text for k in node)
        if (own or kids) and node.get("clickable") == "true":
            left, top, right, bottom = (int(v) for v in node.get("bounds", "").replace(
                "][", ",").strip("[]").split(","))
            return (left + right) // 2, (top + bottom) // 2
    raise AssertionError(f"no clickable node {text or desc!r} in the dump")


def test_files_multi_select_and_move_over_adb_input(vphone) -> None:
    dev = vphone.device
    dev.shell(f"am start -n {FILES}/.FilesActivity")
    dev.shell("input tap {} {}".format(*center(dump(dev), text="Download")))
    x, y = center(dump(dev), text="budget.xlsx")
    dev.shell(f"input swipe {x} {y} {x} {y} 800")  # a long press
    xml = dump(dev)
    assert "1 selected" in xml and 'checked="true"' in xml
    dev.shell("input tap {} {}".format(*center(xml, text="scan_0042.jpg")))
    dev.shell("input tap {} {}".format(*center(dump(dev), desc="Move to")))
    dev.shell("input tap {} {}".format(*center(dump(dev), text="Music")))
    dev.shell("input tap {} {}".format(*center(dump(dev), text="Move here")))
    assert dev.shell("ls /sdcard/Music").split() == ["budget.xlsx", "scan_0042.jpg"]
    assert "budget.xlsx" not in dev.shell("ls /sdcard/Download").split()
    assert "2 items moved" in dump(dev)


def test_contacts_is_a_compose_tree_and_the_phone_field_takes_digits(vphone) -> None:
    dev = vphone.device
    dev.shell(f"am start -n {CONTACTS}/.PeopleActivity")
    xml = dump(dev)
    assert 'resource-id="com.omg.contacts' not in xml and "android.view.View" in xml
    assert 'text="Kevin Park, +1 650-555-0119"' in xml
    dev.shell("input tap {} {}".format(*center(xml, desc="Create contact")))
    dev.shell("input text Laura")
    root = ET.fromstring(dump(dev).encode("utf-8"))
    phone = next(n for n in root.iter("node") if n.get("hint") == "Phone")
    left, top, right, bottom = (int(v) for v in phone.get("bounds", "").replace(
        "][", ",").strip("[]").split(","))
    dev.shell(f"input tap {(left + right) // 2} {(top + bottom) // 2}")
    dev.shell("input text 415CALL5550199")
    state = vphone.phone.state()["apps"][CONTACTS]
    assert state["input_type"] == "phone" and state["draft"]["phone0"] == "4155550199"
    dev.shell("input tap {} {}".format(*center(dump(dev), text="Save")))
    assert vphone.phone.state()["apps"][CONTACTS]["contacts"][-1]["phones"] == ["4155550199"]


def test_uiautomator2_renames_through_the_context_menu_and_writes_markor(vphone) -> None:
    d = uiautomator2.connect(vphone.serial)
    try:
        d.app_start(FILES)
        d(text="Documents").click()
        rows = d(description="More options")
        assert rows.count == 3  # Markor, meeting_notes.txt, resume.docx: folders first
        rows[2].click()
        d(text="Rename").click()
        d(className="android.widget.EditText").set_text("cv.docx")
        d(text="OK").click()
        listed = vphone.device.shell("ls /sdcard/Documents").split()
        assert "cv.docx" in listed and "resume.docx" not in listed
        d.app_start(MARKOR)
        d(resourceId=f"{MARKOR}:id/fab_add").click()
        d(resourceId=f"{MARKOR}:id/new_file_dialog__name").set_text("u2")
        d(text="OK").click()
        d(className="android.widget.EditText").set_text("# from u2")
        d(description="Save").click()
        assert vphone.device.shell("cat /sdcard/Documents/Markor/u2.md") == "# from u2"
    finally:
        d.stop_uiautomator(wait=False)
