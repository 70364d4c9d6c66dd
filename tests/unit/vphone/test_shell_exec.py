"""The vphone shell runs lists, pipelines, redirections and builtins like sh."""

from __future__ import annotations

import threading
import time

import pytest

from omg_agent.vphone.shell import Shell
from omg_agent.vphone.shell.commands import build_command_table
from omg_agent.vphone.shellio import CollectingIO

try:
    from .shell_fake_phone import FakePhone, run
except ImportError:
    from shell_fake_phone import FakePhone, run




# -- lists and exit codes -----------------------------------------------------------------------
@pytest.mark.parametrize(("line", "status", "out"), [
    ("true && echo yes", 0, "yes\n"),
    ("false && echo yes", 1, ""),
    ("false || echo rescued", 0, "rescued\n"),
    ("true || echo skipped", 0, ""),
    ("false; echo after", 0, "after\n"),
    ("echo a; false", 1, "a\n"),
    ("false && echo x || echo y", 0, "y\n"),
    ("true && false || echo z", 0, "z\n"),
    ("! false && echo negated", 0, "negated\n"),
    ("! true", 1, ""),
    ("exit 3; echo never", 3, ""),
    ("false; exit", 1, ""),
    ("echo one\necho two", 0, "one\ntwo\n"),
    ("true &&\n echo wrapped", 0, "wrapped\n"),
])
def test_and_or_lists_follow_exit_codes(shell: Shell, line: str, status: int, out: str) -> None:
    assert run(shell, line)[:2] == (status, out)


def test_unknown_command_is_127_with_the_device_message(shell: Shell) -> None:
    assert run(shell, "foo bar") == (127, "", "/system/bin/sh: foo: inaccessible or not found\n")
    assert run(shell, "/data/local/tmp/atx-agent server")[0] == 127


def test_absolute_system_paths_find_commands(shell: Shell) -> None:
    assert run(shell, "/system/bin/echo hi") == (0, "hi\n", "")


# -- redirection ---------------------------------------------------------------------------------
def test_stdout_redirection_truncates_and_appends(shell: Shell, phone: FakePhone) -> None:
    assert run(shell, "echo one > /sdcard/f.txt; echo two >> /sdcard/f.txt") == (0, "", "")
    assert phone.fs.read("/sdcard/f.txt") == b"one\ntwo\n"
    run(shell, "echo three >/sdcard/f.txt")
    assert phone.fs.read("/sdcard/f.txt") == b"three\n"


def test_stderr_redirection_and_dup(shell: Shell, phone: FakePhone) -> None:
    assert run(shell, "cat /nope 2>/sdcard/err.txt") == (1, "", "")
    assert phone.fs.read("/sdcard/err.txt") == b"cat: /nope: No such file or directory\n"
    assert run(shell, "cat /nope 2>&1") == (1, "cat: /nope: No such file or directory\n", "")
    assert run(shell, "cat /nope > /sdcard/both.txt 2>&1")[1:] == ("", "")
    assert phone.fs.read("/sdcard/both.txt") == b"cat: /nope: No such file or directory\n"
    assert run(shell, "echo loud >&2") == (0, "", "loud\n")
    assert run(shell, "echo gone &>/dev/null; cat /nope 2>/dev/null") == (1, "", "")


def test_stdin_redirection(shell: Shell, phone: FakePhone) -> None:
    phone.fs.write("/data/local/tmp/in.txt", b"aGVsbG8=\n")
    assert run(shell, "base64 -d < /data/local/tmp/in.txt") == (0, "hello", "")
    assert run(shell, "cat </dev/null") == (0, "", "")


def test_redirection_errors_are_reported_by_sh(shell: Shell) -> None:
    status, out, err = run(shell, "echo x > /no/such/dir/f; echo next")
    assert (status, out) == (0, "next\n")
    assert err == "/system/bin/sh: can't create /no/such/dir/f: No such file or directory\n"
    assert run(shell, "cat < /missing")[::2] == (
        1, "/system/bin/sh: can't open /missing: No such file or directory\n")


def test_redirection_targets_are_expanded_but_not_split(shell: Shell, phone: FakePhone) -> None:
    run(shell, "F='/sdcard/a b.txt'; echo hi > $F")
    assert phone.fs.read("/sdcard/a b.txt") == b"hi\n"


def test_relative_paths_follow_cd(shell: Shell, phone: FakePhone) -> None:
    assert run(shell, "cd /sdcard && echo x > rel.txt && pwd && cat ./rel.txt") == (
        0, "/sdcard\nx\n", "")
    assert phone.fs.read("/sdcard/rel.txt") == b"x\n"
    assert run(shell, "cd /nowhere")[::2] == (
        2, "/system/bin/sh: cd: /nowhere: No such file or directory\n")
    assert run(shell, "pwd") == (0, "/\n", "")  # every command line starts in /


# -- pipelines -----------------------------------------------------------------------------------
def test_pipelines_feed_stdout_to_stdin(shell: Shell) -> None:
    assert run(shell, "echo aGk= | base64 -d") == (0, "hi", "")
    assert run(shell, "echo hello | base64 | base64 -d") == (0, "hello\n", "")
    assert run(shell, "getprop | grep model") == (0, "[ro.product.model]: [vPhone 1]\n", "")
    assert run(shell, "getprop | grep -c nothing-here") == (1, "0\n", "")


def test_pipeline_status_is_the_last_commands(shell: Shell) -> None:
    assert run(shell, "false | true")[0] == 0
    assert run(shell, "true | false")[0] == 1


# -- builtins and wrappers ------------------------------------------------------------------------
def test_sh_c_runs_a_nested_line(shell: Shell) -> None:
    assert run(shell, "sh -c 'echo nested; exit 4'; echo $?") == (0, "nested\n4\n", "")


def test_export_and_unset(shell: Shell) -> None:
    assert run(shell, "export A=1; echo $A; unset A; echo \"[$A]\"") == (0, "1\n[]\n", "")


def test_wrappers_run_their_command(shell: Shell) -> None:
    assert run(shell, "nohup echo a; exec echo b") == (0, "a\nb\n", "")
    assert run(shell, "toybox echo c; toybox md5sum /nope")[1] == "c\n"
    assert run(shell, "cmd input keyevent 4")[0] == 0


def test_which_reports_system_paths(shell: Shell) -> None:
    assert run(shell, "which input screencap") == (
        0, "/system/bin/input\n/system/bin/screencap\n", "")
    assert run(shell, "which nosuchtool")[:2] == (1, "")


def test_command_bugs_become_stderr_not_crashes(phone: FakePhone) -> None:
    def broken(ctx, args):
        raise RuntimeError("kaboom")

    shell = Shell(phone, commands={**build_command_table(), "broken": broken})
    status, out, err = run(shell, "broken; echo still-here")
    assert (status, out) == (0, "still-here\n")
    assert "kaboom" in err


# -- time and cancellation ------------------------------------------------------------------------
def test_sleep_returns_when_the_stream_is_cancelled(shell: Shell) -> None:
    io = CollectingIO()
    done = threading.Event()
    result: list[int] = []

    def body() -> None:
        result.append(shell.run("sleep 30; echo never", io))
        done.set()

    started = time.monotonic()
    thread = threading.Thread(target=body)
    thread.start()
    io.cancelled.set()
    assert done.wait(5)
    thread.join(5)
    assert time.monotonic() - started < 5
    assert bytes(io.out) == b""
    assert result == [130]


def test_background_jobs_do_not_block_and_stop_on_close(phone: FakePhone) -> None:
    shell = Shell(phone)
    started = time.monotonic()
    assert run(shell, "sleep 30 & echo now") == (0, "now\n", "")
    assert time.monotonic() - started < 5
    shell.close()


def test_shell_latency_is_applied_once_per_command_line(shell: Shell, phone: FakePhone) -> None:
    run(shell, "echo a; echo b")
    assert phone.latency_asked == ["shell"]
