"""File, screen and text commands work on the phone's MemFS with toybox's output formats."""

from __future__ import annotations

import base64
import hashlib

import pytest

from omg_agent.vphone.shell import Shell

try:
    from .shell_fake_phone import PNG_SCREEN, RAW_SCREEN, XML_DUMP, FakePhone, run, run_bytes
except ImportError:
    from shell_fake_phone import PNG_SCREEN, RAW_SCREEN, XML_DUMP, FakePhone, run, run_bytes




# -- screen ----------------------------------------------------------------------------------------
def test_screencap_to_stdout(shell: Shell, phone: FakePhone) -> None:
    assert run_bytes(shell, "screencap -p") == (0, PNG_SCREEN, b"")
    assert run_bytes(shell, "screencap") == (0, RAW_SCREEN, b"")
    assert phone.latency_asked == ["shell", "screencap_png", "shell", "screencap_raw"]


def test_screencap_to_file(shell: Shell, phone: FakePhone) -> None:
    assert run(shell, "screencap /sdcard/s.png && screencap -d 0 /sdcard/s.raw") == (0, "", "")
    assert phone.fs.read("/sdcard/s.png") == PNG_SCREEN
    assert phone.fs.read("/sdcard/s.raw") == RAW_SCREEN
    assert run(shell, "screencap -p /nope/s.png")[::2] == (
        1, "Error opening file: /nope/s.png (No such file or directory)\n")


def test_uiautomator_dump_default_and_custom_paths(shell: Shell, phone: FakePhone) -> None:
    assert run(shell, "uiautomator dump") == (
        0, "UI hierchary dumped to: /sdcard/window_dump.xml\n", "")
    assert phone.fs.read("/sdcard/window_dump.xml").decode() == XML_DUMP
    line = "rm -f /data/local/tmp/uidump.xml; uiautomator dump --compressed " \
           "/data/local/tmp/uidump.xml && echo success"
    assert run(shell, line) == (
        0, "UI hierchary dumped to: /data/local/tmp/uidump.xml\nsuccess\n", "")
    assert phone.latency_asked.count("dump") == 2


def test_uiautomator_dump_to_tty_streams_the_xml(shell: Shell, phone: FakePhone) -> None:
    assert run(shell, "uiautomator dump /dev/tty") == (
        0, XML_DUMP + "UI hierchary dumped to: /dev/tty\n", "")
    assert not phone.fs.exists("/sdcard/window_dump.xml")


def test_uiautomator_dump_failure_mentions_error(shell: Shell) -> None:
    status, out, err = run(shell, "uiautomator dump /no/dir/x.xml && echo success")
    assert status == 1 and "success" not in out and "ERROR" in err


# -- files -----------------------------------------------------------------------------------------
def test_ls_plain_long_and_all(shell: Shell, phone: FakePhone) -> None:
    phone.fs.write("/data/local/tmp/u2.jar", b"x" * 2000)
    phone.fs.mkdir("/data/local/tmp/dir")
    assert run(shell, "ls /data/local/tmp") == (0, "dir\nu2.jar\n", "")
    assert run(shell, "ls -a /data/local/tmp")[1] == ".\n..\ndir\nu2.jar\n"
    lines = run(shell, "ls -l /data/local/tmp")[1].splitlines()
    assert lines[0].startswith("total ")
    assert lines[1].startswith("drwxrwx--x ") and lines[1].endswith(" dir")
    fields = lines[2].split()
    assert fields[0] == "-rw-r--r--" and fields[4] == "2000" and fields[-1] == "u2.jar"
    assert run(shell, "ls /data/local/tmp/u2.jar") == (0, "/data/local/tmp/u2.jar\n", "")
    assert run(shell, "ls /nope") == (1, "", "ls: /nope: No such file or directory\n")


def test_cat_mkdir_touch_rm(shell: Shell, phone: FakePhone) -> None:
    assert run(shell, "mkdir /sdcard/a && mkdir -p /sdcard/a/b/c && touch /sdcard/a/f") == (
        0, "", "")
    assert phone.fs.is_dir("/sdcard/a/b/c") and phone.fs.read("/sdcard/a/f") == b""
    assert run(shell, "mkdir /sdcard/a")[::2] == (1, "mkdir: '/sdcard/a': File exists\n")
    assert run(shell, "rm /sdcard/a")[::2] == (1, "rm: /sdcard/a: Is a directory\n")
    assert run(shell, "rm -rf /sdcard/a /sdcard/missing") == (0, "", "")
    assert not phone.fs.exists("/sdcard/a")
    assert run(shell, "rm /sdcard/missing")[::2] == (
        1, "rm: /sdcard/missing: No such file or directory\n")
    assert run(shell, "cat /sdcard")[::2] == (1, "cat: /sdcard: Is a directory\n")


def test_cp_mv_chmod(shell: Shell, phone: FakePhone) -> None:
    phone.fs.write("/sdcard/a.txt", b"A")
    assert run(shell, "cp /sdcard/a.txt /sdcard/Download && mv /sdcard/a.txt /sdcard/b.txt") == (
        0, "", "")
    assert phone.fs.read("/sdcard/Download/a.txt") == b"A"
    assert phone.fs.read("/sdcard/b.txt") == b"A" and not phone.fs.exists("/sdcard/a.txt")
    assert run(shell, "chmod 755 /sdcard/b.txt") == (0, "", "")
    assert run(shell, "chmod 755 /sdcard/zz")[0] == 1


@pytest.mark.parametrize(("line", "out"), [
    ("echo a b  c", "a b c\n"),
    ("echo -n x", "x"),
    ("echo -e 'a\\tb\\nc'", "a\tb\nc\n"),
    ("echo -e 'stop\\cnot'", "stop"),
    ("echo -e '\\x41\\0102'", "AB\n"),
    ("echo 'a\\tb'", "a\\tb\n"),
    ("echo -ne 'q'", "q"),
    ("echo -- -n", "-- -n\n"),
    ("echo", "\n"),
])
def test_echo(shell: Shell, line: str, out: str) -> None:
    assert run(shell, line) == (0, out, "")


def test_md5sum_matches_uiautomator2_check(shell: Shell, phone: FakePhone) -> None:
    jar = bytes(range(256)) * 10
    phone.fs.write("/data/local/tmp/u2.jar", jar)
    expected = f"{hashlib.md5(jar).hexdigest()}  /data/local/tmp/u2.jar\n"
    assert run(shell, "toybox md5sum /data/local/tmp/u2.jar") == (0, expected, "")
    assert run(shell, "md5sum /data/local/tmp/u2.jar") == (0, expected, "")
    assert run(shell, "md5sum /data/local/tmp/none.jar") == (
        1, "", "md5sum: /data/local/tmp/none.jar: No such file or directory\n")
    assert run(shell, "echo -n abc | sha256sum")[1] == (
        f"{hashlib.sha256(b'abc').hexdigest()}  -\n")


def test_base64_round_trip_and_wrapping(shell: Shell, phone: FakePhone) -> None:
    data = bytes(range(256))
    phone.fs.write("/sdcard/bin", data)
    status, out, _ = run_bytes(shell, "base64 /sdcard/bin")
    assert status == 0
    assert all(len(line) <= 76 for line in out.splitlines())
    assert base64.b64decode(b"".join(out.split())) == data
    assert run_bytes(shell, "base64 /sdcard/bin | base64 -d") == (0, data, b"")
    assert run(shell, "echo '!!' | base64 -d")[::2] == (1, "base64: bad input\n")


# -- text filters ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("line", "status", "out"), [
    ("printf_x | grep b", 0, "b1\nab\n"),
    ("printf_x | grep -v b", 0, "a1\nc\n"),
    ("printf_x | grep -c b", 0, "2\n"),
    ("printf_x | grep -n '^a'", 0, "1:a1\n3:ab\n"),
    ("printf_x | grep -E 'a1|c'", 0, "a1\nc\n"),
    ("printf_x | grep 'a1|c'", 1, ""),
    ("printf_x | grep 'a1\\|c'", 0, "a1\nc\n"),
    ("printf_x | grep -i B1", 0, "b1\n"),
    ("printf_x | grep -F '.'", 1, ""),
    ("printf_x | grep -q a", 0, ""),
    ("printf_x | head -n 2", 0, "a1\nb1\n"),
    ("printf_x | head -1", 0, "a1\n"),
    ("printf_x | tail -n 1", 0, "c\n"),
    ("printf_x | tail -n +3", 0, "ab\nc\n"),
    ("printf_x | wc -l", 0, "4\n"),
])
def test_text_filters(shell: Shell, phone: FakePhone, line: str, status: int, out: str) -> None:
    phone.fs.write("/sdcard/lines", b"a1\nb1\nab\nc\n")
    assert run(shell, line.replace("printf_x", "cat /sdcard/lines")) == (status, out, "")


@pytest.mark.parametrize(("line", "status"), [
    ("[ -f /sdcard/lines ]", 0),
    ("[ -d /sdcard/lines ]", 1),
    ("test -d /sdcard && test -e /sdcard/lines", 0),
    ("[ ! -e /sdcard/nope ]", 0),
    ("[ -s /sdcard/lines ] && [ -z '' ] && [ -n x ]", 0),
    ("[ abc = abc ] && [ a != b ] && [ 10 -gt 9 ] && [ 2 -le 2 ]", 0),
    ("[ 1 -eq x ]", 2),
    ("[ -f /sdcard/lines", 2),
])
def test_test_builtin_conditions(shell: Shell, phone: FakePhone, line: str, status: int) -> None:
    phone.fs.write("/sdcard/lines", b"a1\n")
    assert run(shell, line)[0] == status
