"""Notes' "Note deleted" message and Settings' Bluetooth subtitle, on a real VirtualPhone
driven host-side like a user (tap the views, read the screen)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from omg_agent.vphone.phone import VirtualPhone

NOTES, SETTINGS = "com.omg.notes", "com.android.settings"


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    p = VirtualPhone(seed=2)
    try:
        yield p
    finally:
        p.close()


def texts(phone: VirtualPhone) -> list[str]:
    from omg_agent.perception.uitree import parse_elements

    return [t for e in parse_elements(phone.dump_xml()) for t in (e.text, *e.extra_texts)]


def test_deleting_a_note_says_so_until_a_note_is_opened(phone) -> None:
    phone.apps[NOTES].notes = [{"title": "Trip", "body": "tent"},
                               {"title": "Books", "body": "Dune"}]
    phone.start_activity(NOTES)
    assert "Note deleted" not in texts(phone)
    phone.tap_view(text="Trip")
    phone.tap_view(resource_id=f"{NOTES}:id/delete")
    assert phone.apps[NOTES].notes == [{"title": "Books", "body": "Dune"}]
    assert "Note deleted" in texts(phone) and phone.state()["apps"][NOTES]["toast"]
    phone.tap_view(text="Books")
    phone.key(4)  # back to the list without saving
    assert "Note deleted" not in texts(phone)


def test_the_deleted_message_follows_the_locale(phone) -> None:
    phone.set_locale("zh-CN")
    phone.apps[NOTES].notes = [{"title": "Trip", "body": "tent"}]
    phone.start_activity(NOTES)
    phone.tap_view(text="Trip")
    phone.tap_view(resource_id=f"{NOTES}:id/delete")
    assert "备忘录已删除" in texts(phone) and "No notes yet" not in texts(phone)


@pytest.mark.parametrize(("locale", "on", "off"), [("en-US", "On, discoverable", "Off"),
                                                   ("zh-CN", "已开启，可被发现", "已关闭")])
def test_bluetooth_on_has_a_subtitle_no_other_row_shows(phone, locale, on, off) -> None:
    phone.set_locale(locale)
    phone.start_activity(SETTINGS)
    assert off in texts(phone) and on not in texts(phone)
    phone.tap_view(resource_id=f"{SETTINGS}:id/bluetooth_switch")
    assert phone.apps[SETTINGS].bluetooth
    shown = texts(phone)
    assert on in shown and off not in shown  # Wi-Fi is on: "Connected" / "已连接"
