"""Contacts (com.omg.contacts), in-process: the alphabetical list with letter headers and
search, the multi-field form with its phone-number field, favourites, the delete dialog,
Chinese labels, and state() as the host reads it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from omg_agent.perception.uitree import parse_elements
from omg_agent.vphone.phone import VirtualPhone

PKG = "com.omg.contacts"


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    p = VirtualPhone(seed=1)
    p.start_activity(PKG)
    try:
        yield p
    finally:
        p.close()


def labels(phone: VirtualPhone) -> list[str]:
    return [e.text or e.desc for e in parse_elements(phone.dump_xml())]


def descs(phone: VirtualPhone) -> set[str]:
    return {e.desc for e in parse_elements(phone.dump_xml())}


def field(phone: VirtualPhone, hint: str):
    return next(e for e in parse_elements(phone.dump_xml()) if e.hint == hint)


def type_in(phone: VirtualPhone, hint: str, text: str) -> None:
    phone.tap(*field(phone, hint).bounds.center)
    phone.input_text(text)


def state(phone: VirtualPhone) -> dict:
    return phone.state()["apps"][PKG]


def test_the_list_is_alphabetical_under_letter_headers(phone) -> None:
    shown = labels(phone)
    names = [t.split(",")[0] for t in shown if ", " in t]
    assert names == sorted(names) and names[0] == "Emma Wilson"
    assert shown.index("E") < shown.index(next(t for t in shown if t.startswith("Emma")))
    assert shown.index("K") == shown.index(next(t for t in shown if t.startswith("Kevin"))) - 1


def test_search_filters_the_list(phone) -> None:
    type_in(phone, "Search contacts", "nina")
    rows = [t for t in labels(phone) if ", " in t]
    assert rows == ["Nina Patel, +44 20 7946 0958"]


def test_the_form_creates_a_contact_and_the_phone_field_drops_letters(phone) -> None:
    phone.tap_view(desc="Create contact")
    assert state(phone)["focus"] == "first" and state(phone)["input_type"] == "text"
    phone.input_text("Laura")
    type_in(phone, "Last name", "Chen")
    type_in(phone, "Phone", "415-555-CALL 0199")  # a dial pad has no letters
    assert state(phone)["input_type"] == "phone"
    assert state(phone)["draft"]["phone0"] == "415-555- 0199"
    type_in(phone, "Email", "laura@example.org")
    assert state(phone)["input_type"] == "textEmailAddress"
    phone.tap_view(text="Save")
    laura = state(phone)["contacts"][-1]
    assert laura == {"first": "Laura", "last": "Chen", "phones": ["415-555- 0199"],
                     "email": "laura@example.org", "notes": "", "favorite": False}
    assert state(phone)["screen"] == "detail" and "Laura Chen" in labels(phone)
    phone.key(4)
    assert any(t.startswith("Laura Chen, ") for t in labels(phone))


def test_a_form_without_a_name_is_not_saved_and_back_discards(phone) -> None:
    phone.tap_view(desc="Create contact")
    phone.tap_view(text="Save")
    assert "Enter a name" in labels(phone) and len(state(phone)["contacts"]) == 8
    phone.input_text("Ghost")
    phone.key(4)  # hide the keyboard
    phone.key(4)  # leave the form
    assert state(phone)["screen"] == "main" and len(state(phone)["contacts"]) == 8


def _open(phone: VirtualPhone, name: str) -> None:
    view = next(v for v in phone.view_tree().walk() if v.text.startswith(f"{name}, "))
    phone.tap(*view.center)


def test_edit_adds_a_second_phone(phone) -> None:
    _open(phone, "Marco Rossi")
    phone.tap_view(desc="Edit")
    phone.tap_view(text="+ Add phone")
    assert state(phone)["focus"] == "phone1"
    phone.input_text("+39 333 000 1111")
    phone.tap_view(text="Save")
    marco = next(c for c in state(phone)["contacts"] if c["first"] == "Marco")
    assert marco["phones"] == ["+39 06 5550 1234", "+39 333 000 1111"]
    phone.key(4)
    assert state(phone)["screen"] == "main"  # the saved page replaced the one it came from


def test_the_star_toggles_a_favourite(phone) -> None:
    _open(phone, "Hannah Lee")
    phone.tap_view(desc="Add to favorites")
    assert next(c for c in state(phone)["contacts"] if c["first"] == "Hannah")["favorite"]
    star = phone.find_view(desc="Remove from favorites")
    assert star is not None and star.selected
    phone.tap_view(desc="Remove from favorites")
    assert not any(c["favorite"] for c in state(phone)["contacts"])


def test_delete_goes_through_the_menu_and_a_dialog(phone) -> None:
    _open(phone, "Oliver Brown")
    phone.tap_view(desc="More options")
    assert state(phone)["menu"] and "Delete" in labels(phone)
    phone.tap_view(text="Delete")
    assert state(phone)["confirm"] and "Delete this contact?" in labels(phone)
    phone.tap_view(text="Cancel")
    assert len(state(phone)["contacts"]) == 8
    phone.tap_view(desc="More options")
    phone.tap_view(text="Delete")
    delete = [v for v in phone.view_tree().walk() if v.text == "Delete"]
    phone.tap(*delete[-1].center)
    assert state(phone)["deleted"] == ["Oliver Brown"] and state(phone)["screen"] == "main"
    assert "Contact deleted" in labels(phone)


def test_a_touch_outside_the_menu_closes_it(phone) -> None:
    _open(phone, "Emma Wilson")
    phone.tap_view(desc="More options")
    phone.tap(540, 1800)
    assert not state(phone)["menu"] and state(phone)["screen"] == "detail"


def test_chinese_labels(phone) -> None:
    phone.set_locale("zh-CN")
    assert "通讯录" in labels(phone) and "新建联系人" in descs(phone)
    type_in(phone, "搜索联系人", "王")
    _open(phone, "王芳")
    assert {"收藏", "编辑", "更多选项"} <= descs(phone) and "手机" in labels(phone)
