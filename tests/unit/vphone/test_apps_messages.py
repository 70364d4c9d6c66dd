"""Messages / 信息 on a real VirtualPhone: reading threads, sending from a thread and from
"New message", recency order, long threads and seeded history."""

from __future__ import annotations

import pytest

from omg_agent.vphone.apps.messages import CONTACTS
from omg_agent.vphone.phone import VirtualPhone
from omg_agent.vphone.ui.view import View

PKG = "com.omg.messages"
KEY_BACK, KEY_ENTER = 4, 66


def find(phone: VirtualPhone, *, text: str | None = None, rid: str | None = None,
         desc: str | None = None) -> View | None:
    return phone.find_view(text=text, resource_id=rid and f"{PKG}:id/{rid}", desc=desc)


def tap(phone: VirtualPhone, **how: str) -> None:
    view = find(phone, **how)
    assert view is not None, f"no view matching {how}"
    phone.tap(*view.center)


def msg_state(phone: VirtualPhone) -> dict:
    return phone.state()["apps"][PKG]


@pytest.fixture
def phone() -> VirtualPhone:
    ph = VirtualPhone(seed=3)
    assert ph.start_activity(PKG)
    return ph


def test_conversation_list_shows_every_contact(phone):
    xml = phone.dump_xml()
    assert len(CONTACTS) >= 5
    for name in CONTACTS:
        assert f'content-desc="{name}"' in xml
    assert "妈妈" in xml and "张伟" in xml
    assert phone.focus() == (PKG, ".ConversationListActivity")


def test_send_in_a_thread_records_the_message(phone):
    tap(phone, desc="妈妈")
    assert phone.focus() == (PKG, ".ConversationActivity")
    before = len(msg_state(phone)["threads"]["妈妈"])
    tap(phone, rid="compose")
    phone.input_text("今晚七点到家 See you at 7")
    assert msg_state(phone)["sent"] == []  # typing alone sends nothing
    tap(phone, rid="send")
    state = msg_state(phone)
    assert state["sent"] == [{"to": "妈妈", "text": "今晚七点到家 See you at 7"}]
    assert state["threads"]["妈妈"][-1] == {"from_me": True, "text": "今晚七点到家 See you at 7"}
    assert len(state["threads"]["妈妈"]) == before + 1
    assert state["draft"] == ""
    assert 'text="今晚七点到家 See you at 7"' in phone.dump_xml()
    phone.key(KEY_BACK)
    phone.key(KEY_BACK)
    assert msg_state(phone)["order"][0] == "妈妈"  # most recent conversation first


def test_empty_compose_sends_nothing(phone):
    tap(phone, desc="Bob")
    tap(phone, rid="send")
    assert msg_state(phone)["sent"] == []


def test_long_messages_wrap_and_keep_their_full_text_in_the_tree(phone):
    tap(phone, desc="Alice")
    long = "This is a rather long message that cannot possibly fit on one line of a bubble"
    tap(phone, rid="compose")
    phone.input_text(long)
    tap(phone, rid="send")
    node = [v for v in phone.view_tree().walk() if v.text == long and v.kind != "edit"][-1]
    assert len(node.children) >= 2  # drawn as several lines
    assert phone.dump_xml().count(f'text="{long}"') == 1  # one node with the whole text


def test_thread_keeps_the_newest_message_in_view(phone):
    tap(phone, desc="David")
    for i in range(15):
        tap(phone, rid="compose")
        phone.input_text(f"note {i}")
        tap(phone, rid="send")
    xml = phone.dump_xml()
    assert 'text="note 14"' in xml and 'text="note 0"' not in xml
    lst = find(phone, rid="messages")
    w = phone.profile.width // 2
    phone.swipe(w, lst.bounds[1] + 100, w, lst.bounds[3] - 100)  # drag down: older ones
    phone.swipe(w, lst.bounds[1] + 100, w, lst.bounds[3] - 100)
    assert 'text="note 0"' in phone.dump_xml()


def test_new_message_to_existing_and_new_recipients(phone):
    tap(phone, rid="fab_new")
    assert phone.focus() == (PKG, ".NewMessageActivity")
    phone.input_text("bob")  # the recipient field has focus on open
    phone.key(KEY_ENTER)  # moves to the message field
    phone.input_text("Lunch?")
    tap(phone, rid="send")
    assert msg_state(phone)["sent"] == [{"to": "Bob", "text": "Lunch?"}]
    assert msg_state(phone)["open_thread"] == "Bob"
    phone.key(KEY_BACK)
    assert msg_state(phone)["screen"] == "main"
    tap(phone, rid="fab_new")
    phone.input_text("13800138000")
    tap(phone, rid="body")
    phone.input_text("你好")
    tap(phone, rid="send")
    assert msg_state(phone)["threads"]["13800138000"] == [{"from_me": True, "text": "你好"}]


def test_new_message_needs_a_recipient_and_a_body(phone):
    tap(phone, rid="fab_new")
    tap(phone, rid="send")
    assert find(phone, rid="error").text == "Enter a recipient"
    phone.input_text("Alice")
    tap(phone, rid="send")
    assert find(phone, rid="error").text == "Message is empty"
    assert msg_state(phone)["sent"] == []


def test_history_follows_the_seed():
    def history(seed: int) -> dict:
        return VirtualPhone(seed=seed).state()["apps"][PKG]["threads"]

    assert history(4) == history(4)
    assert history(4) != history(5)


def test_clear_data_restores_the_seeded_history(phone):
    original = msg_state(phone)["threads"]
    tap(phone, desc="Alice")
    tap(phone, rid="compose")
    phone.input_text("hi")
    tap(phone, rid="send")
    phone.clear_app(PKG)
    assert msg_state(phone)["threads"] == original
    assert msg_state(phone)["sent"] == []
