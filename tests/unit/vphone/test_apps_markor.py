"""Markor (com.omg.markor), in-process: markdown notes that are files in
/sdcard/Documents/Markor (what ``adb shell ls`` lists), the new-file dialog, saving on
leaving the editor, rename and delete from the editor's menu, Chinese labels."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from app_phone import labels, ls, started, view

from omg_agent.perception.uitree import parse_elements
from omg_agent.vphone.phone import VirtualPhone

MARKOR = "com.omg.markor"


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    with started(None) as p:
        yield p


def state(phone: VirtualPhone, pkg: str = MARKOR) -> dict:
    return phone.state()["apps"][pkg]


def test_markor_notes_are_files(phone) -> None:
    phone.start_activity(MARKOR)
    assert {"ideas.md", "todo.md"} <= set(labels(phone))
    phone.tap_view(desc="Create a new file")
    phone.input_text("plans")
    phone.tap_view(text="OK")
    assert state(phone, MARKOR)["screen"] == "editor" and state(phone, MARKOR)["document"] == (
        "plans.md")
    phone.input_text("# Plans")
    phone.key(4)  # hide the keyboard
    phone.key(4)  # leave: Markor saves
    assert phone.fs.read("/sdcard/Documents/Markor/plans.md") == b"# Plans"
    assert "plans.md" in ls(phone, "/sdcard/Documents/Markor")


def test_markor_renames_and_deletes_from_the_editor_menu(phone) -> None:
    phone.start_activity(MARKOR)
    phone.tap(*view(phone, "ideas.md").center)
    phone.tap_view(desc="More options")
    phone.tap_view(text="Rename")
    phone.apps[MARKOR].set_field("name", "someday.md")
    phone.tap_view(text="OK")
    assert ls(phone, "/sdcard/Documents/Markor") == ["someday.md", "todo.md"]
    phone.tap_view(desc="More options")
    phone.tap_view(text="Delete")
    assert "Delete file?" in labels(phone)
    phone.tap_view(resource_id="android:id/button1")
    assert ls(phone, "/sdcard/Documents/Markor") == ["todo.md"]
    assert state(phone, MARKOR)["files"] == {"todo.md": phone.fs.read(
        "/sdcard/Documents/Markor/todo.md").decode()}


def test_a_note_pushed_over_adb_shows_and_typing_clears_saved(phone) -> None:
    phone.start_activity(MARKOR)
    phone.fs.write("/sdcard/Documents/Markor/pushed.md", b"# Pushed")
    assert "pushed.md" in labels(phone)
    phone.tap(*view(phone, "pushed.md").center)
    phone.tap_view(desc="Save")
    assert "Saved" in labels(phone)
    phone.tap(*view(phone, "# Pushed").center)
    phone.input_text("!")
    assert "Saved" not in labels(phone)


def test_chinese_labels(phone) -> None:
    phone.set_locale("zh-CN")
    phone.start_activity(MARKOR)
    assert "新建文件" in {e.desc for e in parse_elements(phone.dump_xml())}
