"""The vphone shell quotes, splits and expands command lines exactly like sh."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omg_agent.vphone.shell import Shell
from omg_agent.vphone.shell.commands.input_cmd import typable
from omg_agent.vphone.shell.context import Ctx
from omg_agent.vphone.shell.parse import parse
from omg_agent.vphone.shell.syntax import ShellSyntaxError

try:
    from .shell_fake_phone import FakePhone, run
except ImportError:
    from shell_fake_phone import FakePhone, run

NASTY = st.text(alphabet=st.sampled_from(list("'\"\\$`;&|<>()!*?[]{}~#% \t\nas%é中😀\r=")))
ANY_TEXT = st.one_of(st.text(), NASTY)


def argv_recorder():
    """A shell whose only command, ``rec``, records the argv it receives."""
    seen: list[list[str]] = []

    def rec(ctx: Ctx, args: list[str]) -> int:
        seen.append(args)
        return 0

    return Shell(FakePhone(), commands={"rec": rec}), seen


def all_paths(phone: FakePhone, root: str = "/") -> set[str]:
    found = set()
    for name, info in phone.fs.listdir(root):
        path = root.rstrip("/") + "/" + name
        found.add(path)
        if info.is_dir:
            found |= all_paths(phone, path)
    return found


def adb_quote(arg: str) -> str:
    """How the adb binary quotes each argument of ``adb shell a b c``."""
    return "'" + arg.replace("'", "'\\''") + "'"


# -- quoting round-trips -----------------------------------------------------------------------
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ANY_TEXT, min_size=1, max_size=5))
def test_shlex_quoted_arguments_arrive_verbatim(args: list[str]) -> None:
    shell, seen = argv_recorder()
    status, _, err = run(shell, "rec " + " ".join(shlex.quote(a) for a in args))
    assert (status, err) == (0, "")
    assert seen == [args]


@settings(max_examples=200)
@given(st.lists(ANY_TEXT, min_size=1, max_size=4))
def test_adb_binary_quoting_arrives_verbatim(args: list[str]) -> None:
    shell, seen = argv_recorder()
    status, _, _ = run(shell, "rec " + " ".join(adb_quote(a) for a in args))
    assert status == 0
    assert seen == [args]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(ANY_TEXT)
def test_input_text_types_exactly_the_quoted_text_and_runs_nothing_else(text: str) -> None:
    phone = FakePhone()
    shell = Shell(phone)
    status, out, err = run(shell, f"input text {shlex.quote(text)}")
    expected = text.replace("%s", " ")
    if all(ord(c) < 128 for c in expected):
        assert (status, out, err) == (0, "", "")
        assert phone.calls == ([("input_text", expected)] if expected else [])
    else:  # one character no key types and nothing is typed (see test_shell_input.py)
        assert (status, out) == (255, "") and "NullPointerException" in err
        assert phone.calls == []
    assert all_paths(phone) == all_paths(FakePhone())  # no redirection created a file


def test_typable_matches_android_percent_s_rule() -> None:
    assert typable("a%sb") == "a b"
    assert typable("%%s") == "% "
    assert typable("100%") == "100%"
    assert typable("héllo 中文") == "hllo "


# -- sh quoting rules ---------------------------------------------------------------------------
@pytest.mark.parametrize(("line", "argv"), [
    ("rec a  b\tc", ["a", "b", "c"]),
    ("rec 'a b' \"c d\" e\\ f", ["a b", "c d", "e f"]),
    ("rec '' \"\" x", ["", "", "x"]),
    ("rec 'it'\\''s'", ["it's"]),
    ("rec \"a\\\"b\" \"\\$HOME\" \"\\`x\\`\" \"back\\\\slash\" \"keep\\n\"",
     ['a"b', "$HOME", "`x`", "back\\slash", "keep\\n"]),
    ("rec '$HOME' \"$HOME\" $HOME ${HOME}x", ["$HOME", "/", "/", "/x"]),
    ("rec '$(id)' '`id`' \\$\\(id\\)", ["$(id)", "`id`", "$(id)"]),
    ("rec a\\\nb", ["ab"]),
    ("rec $'tab\\there' $'q\\'q' $'\\x41\\101'", ["tab\there", "q'q", "AA"]),
    ("rec *.png ? [a]", ["*.png", "?", "[a]"]),
    ("rec ~ ~/x a~", ["/", "//x", "a~"]),  # HOME=/ as on a device
    ("rec a#b # comment ; rec no", ["a#b"]),
    ("rec $UNSET_VAR \"$UNSET_VAR\"", [""]),
    ("rec 100% $ \"$\" a$", ["100%", "$", "$", "a$"]),
    ("rec 2>/dev/null x", ["x"]),
    ("rec a2>/dev/null", ["a2"]),
])
def test_words_split_and_unquote_like_sh(line: str, argv: list[str]) -> None:
    shell, seen = argv_recorder()
    status, _, err = run(shell, line)
    assert err == ""
    assert status == 0
    assert seen == [argv]


def test_unquoted_expansion_is_field_split_but_quoted_is_not() -> None:
    shell, seen = argv_recorder()
    run(shell, "X='a  b '; rec $X \"$X\" pre${X}post")
    assert seen == [["a", "b", "a  b ", "prea", "b", "post"]]


def test_status_parameter_follows_the_previous_command() -> None:
    shell, seen = argv_recorder()
    run(shell, "rec $?; nope 2>/dev/null; rec $? \"$?\"; rec $?")
    assert seen == [["0"], ["127", "127"], ["0"]]


def test_prefix_assignments_reach_the_command_environment_only() -> None:
    phone = FakePhone()
    envs: list[tuple[str | None, str]] = []

    def rec(ctx: Ctx, args: list[str]) -> int:
        envs.append((ctx.env.get("CLASSPATH"), " ".join(args)))
        return 0

    shell = Shell(phone, commands={"rec": rec})
    run(shell, "CLASSPATH=/data/local/tmp/u2.jar rec one; rec two; A=1 B=\"x y\"; rec $B")
    assert envs == [("/data/local/tmp/u2.jar", "one"), (None, "two"), (None, "x y")]


# -- syntax errors never run anything ---------------------------------------------------------
@pytest.mark.parametrize(("line", "message"), [
    ("rec 'open", "unterminated quoted string"),
    ('rec "open', "unterminated quoted string"),
    ("rec $(id)", "command substitution is not supported"),
    ("rec `id`", "command substitution is not supported"),
    ('rec "$(id)"', "command substitution is not supported"),
    ("rec $((1+2))", "command substitution is not supported"),
    ("rec ${HOME:-x}", "${HOME:-x}: bad substitution"),
    ("; rec", "';' unexpected"),
    ("rec &&", "unexpected end of file"),
    ("rec | | rec", "'|' unexpected"),
    ("rec >", "unexpected end of file"),
    ("rec (x)", "'(' unexpected"),
    ("rec ;; rec", "';;' unexpected"),
    ("rec << EOF", "here documents are not supported"),
    ("if true; then rec; fi", "'if' is not supported by this shell"),
])
def test_syntax_errors_exit_2_and_run_nothing(line: str, message: str) -> None:
    shell, seen = argv_recorder()
    status, out, err = run(shell, line)
    assert status == 2
    assert out == ""
    assert err == f"/system/bin/sh: syntax error: {message}\n"
    assert seen == []


def test_parse_raises_shell_syntax_error() -> None:
    with pytest.raises(ShellSyntaxError):
        parse("echo 'x")


def test_empty_and_blank_lines_succeed() -> None:
    shell, seen = argv_recorder()
    assert run(shell, "") == (0, "", "")
    assert run(shell, "  \n\t ") == (0, "", "")
    assert seen == []
