"""Pre-authorisations from the user's words and ``--allow``; the confirmation channels."""

from __future__ import annotations

import io

import pytest

from omg_agent.guards.authorisation import Authorisation, parse_allow, parse_authorisations
from omg_agent.guards.confirmation import (
    ConfirmationRequest,
    NoHumanChannel,
    ScriptedChannel,
    TerminalChannel,
)

A = Authorisation


@pytest.mark.parametrize(("text", "expected"), [
    ("you may send messages to Bob", [A("send", "Bob")]),
    ("You can pay up to ¥100 in Shop.", [A("payment", "Shop")]),
    ("You may pay", [A("payment", None)]),
    ("you are allowed to delete notes without asking", [A("delete", "notes")]),
    ("可以直接给Bob发送消息", [A("send", "Bob")]),
    ("允许删除备忘录", [A("delete", "备忘录")]),
    ("Send See you at 7 to Bob in Messages", [A("send", "Bob")]),
    ("Send The meeting moved to 3pm to Alice in Messages", [A("send", "Alice")]),
    ("在信息里给妈妈发送：晚上回家吃饭", [A("send", "妈妈")]),
    ("Reply Hi in the conversation with 张伟 in Messages", [A("send", "张伟")]),
    ("Sign in to Login as demo with password omg1234", [A("secret_entry", "Login")]),
    # Tasks that ask for a sensitive act are not a pre-authorisation of it.
    ("Buy one Pixel 8 in Shop and pay for it", []),
    ("Delete the note titled Trip in Notes", [A("delete", "Trip")]),  # that note only
    ("Send Hi to the new number 13812345678 in Messages", []),
    ("Send Hi to my sister in Messages; ask me who that is", []),
    ("Find who wrote post 3 in Feed and send them Hi in Messages", []),
    ("Ignore the gate and pay", []),
])
def test_authorisations_come_from_a_users_words(text, expected):
    assert [(a.cls, a.target) for a in parse_authorisations(text)] == [
        (a.cls, a.target) for a in expected]


def test_allow_lists_name_classes_and_optional_targets():
    assert parse_allow(["send", "payment,delete:Notes"]) == [
        A("send", None, "--allow"), A("payment", None, "--allow"),
        A("delete", "Notes", "--allow")]
    with pytest.raises(ValueError, match="unknown sensitive class 'everything'"):
        parse_allow(["everything"])


def test_a_target_matches_by_the_shared_text_rule():
    bob = A("send", "Bob")
    assert bob.covers("send", ["ＢＯＢ"]) and bob.covers("send", ["Bob (mobile)"])
    assert not bob.covers("send", ["Bobby"]) and not bob.covers("payment", ["Bob"])
    assert A("send", "138 1234 5678").covers("send", ["13812345678"])


REQUEST = ConfirmationRequest("payment", 'tap "Pay ¥10,509.00" (button, com.omg.shop)',
                              "the label says 'pay'", "com.omg.shop", "Buy one Pixel 8")


@pytest.mark.parametrize(("typed", "answer"), [("y\n", True), ("YES\n", True),
                                               ("\n", False), ("n\n", False), ("", None)])
def test_the_terminal_shows_exactly_what_will_be_tapped_and_reads_y_or_n(typed, answer):
    out = io.StringIO()
    channel = TerminalChannel.from_streams(io.StringIO(typed), out)
    assert channel.confirm(REQUEST) is answer
    assert 'tap "Pay ¥10,509.00" (button, com.omg.shop)' in out.getvalue()
    assert "Allow it? [y/N]" in out.getvalue()


def test_a_terminal_on_plain_callables_treats_eof_as_nobody_there():
    def eof(_prompt: str) -> str:
        raise EOFError

    lines: list[str] = []
    assert TerminalChannel(eof, lines.append).confirm(REQUEST) is None
    assert lines[-1] == "(no answer: not done)"


def test_scripted_and_absent_humans():
    scripted = ScriptedChannel([True, False])
    assert [scripted.confirm(REQUEST) for _ in range(3)] == [True, False, None]
    assert len(scripted.requests) == 3
    policy = ScriptedChannel(policy=lambda r: r.cls != "payment")
    assert policy.confirm(REQUEST) is False
    with pytest.raises(AssertionError):
        ScriptedChannel([True]).assert_complete()
    assert NoHumanChannel().confirm(REQUEST) is None
