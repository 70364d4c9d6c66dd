"""Typing plans: every text arrives exactly, through sh quoting and Android's ``input text``."""

from __future__ import annotations

import base64
import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omg_agent.drivers.textinput import (
    ADB_IME,
    decode_input_text,
    ime_envelope,
    input_text_args,
    needs_ime,
    plan_typing,
    sh_quote,
)

SHELL_NASTIES = list(" '\"`$\\;&|<>()%s\t*?!#~{}[]=^")


def typed_by(fragment: str) -> str:
    """What one fragment types, read back the way sh and Android read it."""
    argv = shlex.split(fragment.removesuffix(" >/dev/null"))  # POSIX sh quoting, as mksh
    match argv:
        case ["input", "text", arg]:
            return decode_input_text(arg)
        case ["input", "keyevent", *codes]:
            assert set(codes) == {"66"}
            return "\n" * len(codes)
        case ["am", "broadcast", "-a", "ADB_INPUT_B64", "--es", "msg", payload]:
            return base64.b64decode(payload, validate=True).decode("utf-8")
        case ["am", "broadcast", "-a", "ADB_CLEAR_TEXT"]:
            return ""
    raise AssertionError(f"unexpected fragment {fragment!r}")


def typed(text: str, **kw) -> str:
    plan = plan_typing(text, **kw)
    return "".join(typed_by(f) for f in plan.fragments)


ascii_text = st.text(st.sampled_from(SHELL_NASTIES + list("abcsS%\n09")), max_size=60)
any_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)


@settings(max_examples=500)
@given(ascii_text)
def test_ascii_text_goes_through_input_text_and_arrives_exactly(text):
    plan = plan_typing(text, ime_available=False)
    assert not plan.needs_ime
    assert all(f.startswith("input ") for f in plan.fragments)
    assert typed(text, ime_available=False) == text


@settings(max_examples=500)
@given(any_text)
def test_any_text_arrives_exactly_with_the_ime(text):
    assert typed(text, ime_available=True) == text


@given(st.text(st.sampled_from(list("%s ")), max_size=30))
def test_no_input_text_argument_carries_a_literal_percent_s(text):
    for arg in input_text_args(text) if text else []:
        # every "%s" in an argument is an encoded space, so decoding is exact
        assert decode_input_text(arg).count(" ") == arg.count("%s")


def test_literal_percent_s_is_split_across_two_calls():
    assert input_text_args("100%sure") == ["100%", "sure"]
    assert input_text_args("a %s") == ["a%s%", "s"]
    assert typed("%s", ime_available=False) == "%s"


def test_spaces_and_quotes_are_encoded():
    assert input_text_args("it's a b") == ["it's%sa%sb"]
    assert sh_quote("it's") == "'it'\\''s'"


def test_newlines_become_enter_keys_and_runs_of_them_one_call():
    plan = plan_typing("a\n\n\nb", ime_available=False)
    assert plan.fragments == ("input text 'a'", "input keyevent 66 66 66", "input text 'b'")


def test_a_line_with_unicode_is_sent_whole_through_the_ime():
    plan = plan_typing("Hi 世界 %s!\nok", ime_available=True)
    assert plan.needs_ime
    assert plan.fragments[0].startswith("am broadcast -a ADB_INPUT_B64 --es msg ")
    assert plan.fragments[1:] == ("input keyevent 66", "input text 'ok'")


def test_unicode_without_the_ime_is_refused():
    with pytest.raises(ValueError):
        plan_typing("你好", ime_available=False)
    assert needs_ime("你好") and needs_ime("a\rb") and not needs_ime("a\tb\n")


def test_lone_surrogates_are_refused():
    with pytest.raises(UnicodeEncodeError):
        plan_typing("a\ud800", ime_available=True)


def test_long_unicode_is_cut_into_broadcasts_that_fit_a_call():
    text = "汉" * 3000  # 9000 UTF-8 bytes
    plan = plan_typing(text, ime_available=True)
    assert len(plan.fragments) >= 4
    assert all(len(f) < 3500 for f in plan.fragments)
    assert typed(text, ime_available=True) == text


def test_clear_uses_the_ime_broadcast_or_delete_keys():
    with_ime = plan_typing("x", ime_available=True, clear=True, field_chars=5)
    assert with_ime.fragments[0] == "am broadcast -a ADB_CLEAR_TEXT >/dev/null"
    assert with_ime.needs_ime
    without = plan_typing("x", ime_available=False, clear=True, field_chars=3)
    assert without.fragments[0] == "input keyevent 123 67 67 67"
    assert not without.needs_ime
    only_clear = plan_typing("", ime_available=False, clear=True, field_chars=0)
    assert only_clear.fragments == ()


def test_secrets_never_reach_the_label():
    plan = plan_typing("hunter2", ime_available=False, secret=True)
    assert plan.label == "type <redacted 7 chars>"
    assert "hunter2" not in repr(plan.label) and plan.text_preview == ""
    assert "hunter2" in plan_typing("hunter2", ime_available=False).label


def test_the_envelope_restores_the_users_ime_and_keeps_the_status():
    cmd = ime_envelope("input text 'a'", user_ime="com.x/.Latin")
    assert cmd == (f"ime set {ADB_IME} >/dev/null && input text 'a'; _omg_rc=$?; "
                   "ime set com.x/.Latin >/dev/null; exit $_omg_rc")
    assert ime_envelope("B", user_ime=ADB_IME) == "B"
    assert ime_envelope("B", user_ime="null", settle_s=0.2) == \
        f"ime set {ADB_IME} >/dev/null && sleep 0.2 && B"
