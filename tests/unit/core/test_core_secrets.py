"""The SecretVault masks every held value, reveals placeholders for typing, and finds the
secrets a task, a user's answer or an option names."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from omg_agent.core.secrets import (
    SecretVault,
    asks_for_secret,
    parse_assignments,
    task_secrets,
)


def test_mask_and_reveal_round_trip() -> None:
    vault = SecretVault({"pw": "omg5865"})
    masked = vault.mask("typed omg5865 twice: omg5865")
    assert masked == "typed {{secret:pw}} twice: {{secret:pw}}"
    assert vault.reveal(masked) == "typed omg5865 twice: omg5865"


def test_a_secret_containing_another_is_masked_whole_and_never_inside_a_placeholder() -> None:
    vault = SecretVault({"short": "1234", "long": "x1234y"})
    assert vault.mask("a x1234y b 1234") == "a {{secret:long}} b {{secret:short}}"
    # a value that happens to be spelled inside a placeholder leaves the placeholder alone
    vault.add("word", "secret")
    assert vault.mask("{{secret:short}} and secret") == "{{secret:short}} and {{secret:word}}"


def test_overlapping_secrets_leave_no_fragment() -> None:
    vault = SecretVault({"a": "abcd", "b": "cdef"})
    masked = vault.mask("abcdef")
    assert "abcd" not in masked and masked.startswith("{{secret:a}}")


def test_cjk_secrets_and_text() -> None:
    vault = SecretVault({"密码": "芝麻开门42"})
    masked = vault.mask("请输入芝麻开门42。")
    assert "芝麻" not in masked and vault.reveal(masked) == "请输入芝麻开门42。"


def test_reveal_keeps_unknown_placeholders_and_names_them() -> None:
    vault = SecretVault({"pw": "hunter22"})
    assert vault.reveal("{{secret:pw}}/{{secret:other}}") == "hunter22/{{secret:other}}"
    assert vault.unknown("{{secret:pw}}/{{secret:other}}") == ["other"]


def test_the_same_value_keeps_its_name_and_a_taken_name_gets_a_number() -> None:
    vault = SecretVault()
    assert vault.add("password", "aaa111") == "password"
    assert vault.add("other", "aaa111") == "password"
    assert vault.add("password", "bbb222") == "password2"
    assert vault.names == ["password", "password2"] and len(vault) == 2


def test_values_too_short_to_mask_safely_are_not_held() -> None:
    vault = SecretVault({"x": "a", "blank": "   "})
    assert len(vault) == 0 and vault.mask("a b a") == "a b a"


@dataclass(frozen=True)
class _Result:
    answer: str
    done: list[str]
    steps: int


def test_scrub_goes_through_dicts_keys_lists_tuples_and_dataclasses() -> None:
    vault = SecretVault({"pw": "s3cret!"})
    data = {"s3cret!": ["x s3cret!", ("s3cret!", 3)], "n": 1.5, "none": None,
            "result": _Result("used s3cret!", ["typed s3cret!"], 4)}
    clean = vault.scrub(data)
    assert "s3cret!" not in repr(clean)
    assert clean["{{secret:pw}}"][1] == ("{{secret:pw}}", 3)
    assert clean["result"] == _Result("used {{secret:pw}}", ["typed {{secret:pw}}"], 4)
    assert data["s3cret!"][0] == "x s3cret!"  # the original is untouched


def test_an_inline_definition_is_masked_even_before_it_is_registered() -> None:
    task = "Sign in with {{secret:pw=omg5865}} now"
    assert SecretVault().mask(task) == "Sign in with {{secret:pw}} now"


@pytest.mark.parametrize(("task", "expected"), [
    ("Sign in to Login as demo with password omg5865", [("password", "omg5865")]),
    ("log in, password: hunter two", [("password", "hunter")]),
    ('password is "open sesame"', [("password", "open sesame")]),
    ("unlock with PIN 4711.", [("pin", "4711")]),
    ("my pin is 4711", [("pin", "4711")]),
    ("pin 100 notes to the top", []),
    ("登录账号 demo，密码是 芝麻开门", [("password", "芝麻开门")]),
    ("输入验证码 864210 完成登录", [("code", "864210")]),
    ("use {{secret:pw=x y z}} here", [("pw", "x y z")]),
    ("Sign in to Login as demo; ask me for the password", []),
    ("tap the password field then type it", []),
    ("open the password manager", []),
    ("the password {{secret:pw}} is in the vault", []),
])
def test_task_wording_names_its_secrets(task: str, expected: list[tuple[str, str]]) -> None:
    assert task_secrets(task) == expected


def test_add_from_task_then_the_model_sees_placeholders_only() -> None:
    vault = SecretVault()
    vault.add_from_task("Sign in as demo with password omg5865 and PIN 2468")
    assert vault.mask("Sign in as demo with password omg5865 and PIN 2468") == \
        "Sign in as demo with password {{secret:password}} and PIN {{secret:pin}}"


@pytest.mark.parametrize(("question", "secret"), [
    ("What is the password for demo?", True),
    ("Please give me the 6-digit code from the SMS", True),
    ("What's your PIN?", True),
    ("请告诉我验证码", True),
    ("请输入支付密码", True),
    ("Which colour do you want?", False),
    ("Should I pin this note?", True),  # over-eager on purpose: masking too much is safe
])
def test_questions_about_passwords_and_codes(question: str, secret: bool) -> None:
    assert asks_for_secret(question) is secret


def test_an_answer_is_a_secret_only_when_the_question_was_flagged_and_never_a_short_one(
) -> None:
    vault = SecretVault()
    vault.note_answer("Which colour?", "blue-green", secret=False)
    vault.note_answer("What is the password for demo?", "hunter-22", secret=False)
    vault.note_answer("Try again with the password? (yes / no)", "yes", secret=True)
    vault.note_answer("What is the password for demo?", " omg5865 ", secret=True)
    assert vault.names == ["password"] and vault.value("password") == "omg5865"


def test_assignments_from_the_command_line() -> None:
    assert parse_assignments(["pw=a=b", "pin=1234"]) == {"pw": "a=b", "pin": "1234"}
    with pytest.raises(ValueError, match="NAME=VALUE") as err:
        parse_assignments(["hunter22"])
    assert "hunter22" not in str(err.value)


def test_names_ignore_case_in_options_placeholders_and_lookups() -> None:
    vault = SecretVault(parse_assignments(["PW=hunter22", "User=demo-7"]))
    assert vault.names == ["pw", "user"]
    assert vault.reveal("{{secret:pw}} {{secret:PW}} {{secret:uSeR}}") == \
        "hunter22 hunter22 demo-7"
    assert vault.unknown("{{secret:Pw}} {{secret:NOPE}} {{secret:NOPE}}") == ["NOPE"]
    assert "PW" in vault and vault.value("USER") == "demo-7"
    assert vault.mask("{{secret:Memo=K7-tulip}}") == "{{secret:memo}}"


def test_a_name_given_twice_in_any_case_is_refused_without_its_values() -> None:
    with pytest.raises(ValueError, match="PW is given twice") as err:
        parse_assignments(["pw=hunter22", "PW=other-9"])
    assert "hunter22" not in str(err.value) and "other-9" not in str(err.value)


def test_placeholders_in_what_a_reply_points_at_name_the_on_screen_text() -> None:
    from omg_agent.core.contracts import DecisionBundle

    vault = SecretVault({"pw": "Settings"})
    bundle = DecisionBundle.model_validate({
        "thought": "open {{secret:pw}}", "last_action_result": "none",
        "execute_now": {"intent": "open it", "actions": [
            {"type": "launch", "app": "{{secret:pw}}"},
            {"type": "tap", "target": {"kind": "anchor", "text": "{{secret:pw}}"}},
            {"type": "type", "target": {"kind": "anchor", "desc": "{{secret:PW}} box"},
             "text": "{{secret:pw}}"}]},
        "end_checks": [{"kind": "element", "text": "{{secret:pw}}", "shows": "{{secret:pw}}"}]})
    shown = vault.reveal_targets(bundle)
    launch, tap, typed = shown.execute_now.actions
    assert launch.app == "Settings" and tap.target.text == "Settings"
    assert typed.target.desc == "Settings box"
    assert typed.text == "{{secret:pw}}"  # typed text is revealed by the driver, at the end
    assert shown.thought == "open {{secret:pw}}"  # words are not pointing at anything
    assert shown.end_checks[0].text == "Settings" and shown.end_checks[0].shows == "Settings"
    assert bundle.execute_now.actions[1].target.text == "{{secret:pw}}"  # a copy
    assert SecretVault().reveal_targets(bundle) is bundle


def test_a_regex_anchor_gets_the_value_as_literal_text() -> None:
    from omg_agent.core.actions import AnchorTarget

    vault = SecretVault({"pw": "a.b+c"})
    anchor = AnchorTarget(text="^{{secret:pw}}$", match="regex")
    assert vault.reveal_targets(anchor).text == r"^a\.b\+c$"
    assert vault.reveal_targets(AnchorTarget(text="{{secret:pw}}")).text == "a.b+c"
