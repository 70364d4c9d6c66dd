"""Files (com.omg.files), in-process: it shows and changes the phone's own file system
(what ``adb shell ls`` lists), long-press multi-select, the per-row context menu, the
folder picker, the rename and delete dialogs, Chinese labels. Markor, on the same files:
``test_apps_markor.py``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from app_phone import labels, ls, started, view

from omg_agent.perception.uitree import parse_elements
from omg_agent.vphone.phone import VirtualPhone

FILES = "com.omg.files"


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    with started(None) as p:
        yield p


def more(phone: VirtualPhone, name: str) -> None:
    """Tap the "More options" button of ``name``'s row."""
    row = next(v for v in phone.view_tree().walk() if v.on_long_click and any(
        c.text == name for c in v.children))
    button = next(c for c in row.children if c.desc in ("More options", "更多选项"))
    phone.tap(*button.center)


def state(phone: VirtualPhone) -> dict:
    return phone.state()["apps"][FILES]


def download(phone: VirtualPhone) -> None:
    phone.start_activity(FILES)
    phone.tap(*view(phone, "Download").center)


def test_the_app_lists_the_files_adb_sees(phone) -> None:
    download(phone)
    names = [t for t in labels(phone) if "." in t and "›" not in t]
    assert names == ls(phone, "/sdcard/Download")
    phone.fs.write("/sdcard/Download/pushed.txt", b"hi")  # as adb push does
    assert "pushed.txt" in labels(phone)
    assert "1 item" not in labels(phone) and state(phone)["cwd"] == "/sdcard/Download"


def test_long_press_selects_and_move_goes_through_the_folder_picker(phone) -> None:
    download(phone)
    phone.long_press(*view(phone, "budget.xlsx").center, hold=False)
    phone.tap(*view(phone, "scan_0042.jpg").center)
    assert state(phone)["selection"] == ["Download/budget.xlsx", "Download/scan_0042.jpg"]
    assert "2 selected" in labels(phone)
    phone.tap_view(desc="Move to")
    assert state(phone)["screen"] == "picker"
    phone.tap(*view(phone, "Music").center)
    phone.tap_view(text="Move here")
    assert ls(phone, "/sdcard/Music") == ["budget.xlsx", "scan_0042.jpg"]
    assert "budget.xlsx" not in ls(phone, "/sdcard/Download")
    assert "2 items moved" in labels(phone) and not state(phone)["selecting"]


def test_tapping_the_last_selected_row_ends_the_selection_and_back_clears_it(phone) -> None:
    download(phone)
    phone.long_press(*view(phone, "budget.xlsx").center, hold=False)
    phone.tap(*view(phone, "budget.xlsx").center)
    assert not state(phone)["selecting"]
    phone.long_press(*view(phone, "budget.xlsx").center, hold=False)
    phone.key(4)
    assert not state(phone)["selecting"] and state(phone)["cwd"] == "/sdcard/Download"


def test_the_context_menu_renames_through_a_dialog(phone) -> None:
    download(phone)
    more(phone, "budget.xlsx")
    assert state(phone)["menu"] == "Download/budget.xlsx"
    phone.tap_view(text="Rename")
    assert state(phone)["dialog"] == "rename"
    field = next(e for e in parse_elements(phone.dump_xml()) if e.editable)
    assert field.text == "budget.xlsx" and field.hint == "File name"
    phone.apps[FILES].set_field("rename", "budget_2026.xlsx")
    phone.tap_view(text="OK")
    assert "budget_2026.xlsx" in ls(phone, "/sdcard/Download")
    assert "budget.xlsx" not in ls(phone, "/sdcard/Download")


def test_renaming_onto_an_existing_name_is_refused(phone) -> None:
    download(phone)
    more(phone, "budget.xlsx")
    phone.tap_view(text="Rename")
    phone.apps[FILES].set_field("rename", "scan_0042.jpg")
    phone.tap_view(text="OK")
    assert "scan_0042.jpg already exists" in labels(phone)
    assert "budget.xlsx" in ls(phone, "/sdcard/Download")


def test_delete_asks_and_cancel_keeps_the_files(phone) -> None:
    download(phone)
    phone.long_press(*view(phone, "holiday_photo.jpg").center, hold=False)
    phone.tap(*view(phone, "scan_0042.jpg").center)
    phone.tap_view(desc="Delete")
    assert "Delete 2 items?" in labels(phone)
    phone.tap_view(text="Cancel")
    assert "holiday_photo.jpg" in ls(phone, "/sdcard/Download")
    phone.tap_view(desc="Delete")
    delete = [v for v in phone.view_tree().walk() if v.text == "Delete"]
    phone.tap(*delete[-1].center)
    assert not {"holiday_photo.jpg", "scan_0042.jpg"} & set(ls(phone, "/sdcard/Download"))
    assert "2 items deleted" in labels(phone)


def test_copy_keeps_the_original_and_a_text_file_opens(phone) -> None:
    download(phone)
    more(phone, "setup_notes.txt")
    phone.tap_view(text="Copy to…")
    phone.tap(*view(phone, "Documents").center)
    phone.tap_view(text="Copy here")
    assert "setup_notes.txt" in ls(phone, "/sdcard/Download")
    assert "setup_notes.txt" in ls(phone, "/sdcard/Documents")
    phone.tap(*view(phone, "setup_notes.txt").center)
    assert state(phone)["screen"] == "viewer"
    assert any("Guest Wi-Fi" in t for t in labels(phone))


def test_chinese_labels(phone) -> None:
    phone.set_locale("zh-CN")
    download(phone)
    more(phone, "budget.xlsx")
    assert {"打开", "重命名", "移动到…", "删除"} <= set(labels(phone))
