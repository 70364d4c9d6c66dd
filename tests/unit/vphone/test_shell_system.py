"""System commands print what Android 13 prints, so adbutils' own parsers understand them."""

from __future__ import annotations

import json
import re

import pytest
from adbutils._utils import list2cmdline
from adbutils.shell import ShellExtension

from omg_agent.vphone.shell import Shell
from omg_agent.vphone.shell.commands.pm_cmds import SYSTEM_PACKAGES

try:
    from .shell_fake_phone import ADB_IME, FakePhone, run
except ImportError:
    from shell_fake_phone import ADB_IME, FakePhone, run




class AdbutilsClient(ShellExtension):
    """adbutils' shell helpers, with ``shell()`` answered by the vphone shell directly."""

    def __init__(self, shell: Shell) -> None:
        self._shell = shell

    def shell(self, cmd):  # same quoting and stripping as AdbDevice.shell
        line = list2cmdline(cmd) if isinstance(cmd, list | tuple) else cmd
        return run(self._shell, line)[1].rstrip()

    @property
    def sync(self):
        raise NotImplementedError


# -- through adbutils' parsers ---------------------------------------------------------------------
def test_adbutils_app_current_reads_dumpsys_window(shell: Shell, phone: FakePhone) -> None:
    phone.front = ("com.android.settings", ".SubSettings")
    info = AdbutilsClient(shell).app_current()
    assert (info.package, info.activity) == ("com.android.settings",
                                             "com.android.settings.SubSettings")


def test_adbutils_fallback_parsers_match_activity_dumps(shell: Shell, phone: FakePhone) -> None:
    phone.front = ("com.omg.notes", ".NotesListActivity")
    activities = run(shell, "dumpsys activity activities")[1]
    resumed = re.search(r"mResumedActivity: ActivityRecord\{.*?\s+(?P<package>[^\s]+)/"
                        r"(?P<activity>[^\s]+)\s.*?\}", activities)
    assert resumed and resumed.group("package") == "com.omg.notes"
    top = run(shell, "dumpsys activity top")[1]
    m = re.search(r"ACTIVITY (?P<package>[^\s]+)/(?P<activity>[^/\s]+) \w+ pid=(?P<pid>\d+)", top)
    assert m and (m.group("package"), m.group("activity")) == ("com.omg.notes",
                                                               ".NotesListActivity")
    assert f" {m.group('pid')} " in run(shell, "ps -A | grep com.omg.notes")[1]


def test_adbutils_window_size_rotation_battery(shell: Shell) -> None:
    client = AdbutilsClient(shell)
    assert tuple(client.window_size()) == (1080, 2400)
    assert client.rotation() == 0
    battery = client.battery()
    assert (battery.level, battery.usb_powered, battery.temperature) == (100, True, 25.0)
    assert client.is_screen_on()


def test_adbutils_list_packages_getprop_keyevent(shell: Shell, phone: FakePhone) -> None:
    client = AdbutilsClient(shell)
    assert client.list_packages() == sorted([*SYSTEM_PACKAGES, "com.android.launcher3",
                                             "com.android.settings", "com.omg.notes"])
    assert client.list_packages(["-3"]) == ["com.omg.notes"]
    assert client.getprop("ro.product.model") == "vPhone 1"
    client.keyevent("KEYCODE_BACK")
    client.click(10, 20, display_id=0)
    client.send_keys("a b'c")
    assert phone.calls == [("key", 4), ("tap", 10, 20), ("input_text", "a b'c")]


def test_uiautomator2_pidof_sees_the_foreground_app(shell: Shell, phone: FakePhone) -> None:
    phone.front = ("com.omg.notes", ".NotesListActivity")
    rows = [line.split() for line in run(shell, "ps -A")[1].splitlines()]
    assert all(len(r) >= 9 for r in rows[1:])
    assert any(r[-1] == "com.omg.notes" and r[1].isdigit() for r in rows)


# -- props and settings ----------------------------------------------------------------------------
def test_getprop_and_setprop(shell: Shell, phone: FakePhone) -> None:
    assert run(shell, "getprop ro.serialno") == (0, "VPHONE0001\n", "")
    assert run(shell, "getprop no.such.prop") == (0, "\n", "")
    assert run(shell, "getprop no.such.prop fallback") == (0, "fallback\n", "")
    assert run(shell, "setprop debug.x 1 && getprop debug.x") == (0, "1\n", "")
    lines = run(shell, "getprop")[1].splitlines()
    assert lines == sorted(lines)
    assert "[ro.product.model]: [vPhone 1]" in lines


def test_settings_get_put_delete_list(shell: Shell, phone: FakePhone) -> None:
    assert run(shell, "settings get system screen_brightness") == (0, "153\n", "")
    assert run(shell, "settings get global nope") == (0, "null\n", "")
    assert run(shell, "settings put system pointer_location 1") == (0, "", "")
    assert phone.settings["system"]["pointer_location"] == "1"
    assert run(shell, "settings --user 0 list system") == (
        0, "pointer_location=1\nscreen_brightness=153\n", "")
    assert run(shell, "settings delete system pointer_location") == (0, "Deleted 1 rows\n", "")
    assert run(shell, "settings delete system pointer_location") == (0, "Deleted 0 rows\n", "")
    assert run(shell, "settings get bogus x")[0] == 255


# -- wm, dumpsys -----------------------------------------------------------------------------------
def test_wm_size_and_density_overrides(shell: Shell) -> None:
    assert run(shell, "wm size") == (0, "Physical size: 1080x2400\n", "")
    assert run(shell, "wm density") == (0, "Physical density: 440\n", "")
    assert run(shell, "wm size 720x1600 && wm density 320") == (0, "", "")
    assert run(shell, "wm size")[1] == "Physical size: 1080x2400\nOverride size: 720x1600\n"
    assert run(shell, "wm density")[1] == "Physical density: 440\nOverride density: 320\n"
    assert run(shell, "wm size reset; wm size")[1] == "Physical size: 1080x2400\n"
    assert run(shell, "wm size big")[::2] == (255, "Error: bad size big\n")


def test_dumpsys_window_has_the_exact_focus_lines(shell: Shell, phone: FakePhone) -> None:
    phone.front = ("com.android.settings", ".Settings")
    out = run(shell, "dumpsys window windows")[1]
    assert re.search(r"^  mCurrentFocus=Window\{[0-9a-f]{7} u0 "
                     r"com\.android\.settings/com\.android\.settings\.Settings\}$", out, re.M)
    assert re.search(r"^  mFocusedApp=ActivityRecord\{[0-9a-f]{7} u0 "
                     r"com\.android\.settings/\.Settings t\d+\}$", out, re.M)
    assert run(shell, "dumpsys window")[1] == out


def test_dumpsys_input_method_and_unknown_services(shell: Shell, phone: FakePhone) -> None:
    phone.set_ime(ADB_IME)
    assert f"  mCurMethodId={ADB_IME}\n" in run(shell, "dumpsys input_method")[1]
    assert run(shell, "dumpsys meminfo") == (0, "", "")
    assert run(shell, "dumpsys")[0] == 0
    assert phone.latency_asked.count("dumpsys") == 3


def test_dumpsys_package_versions(shell: Shell) -> None:
    out = run(shell, "dumpsys package com.omg.notes")[1]
    assert "versionName=1.0" in out and "versionCode=1 " in out
    assert run(shell, "dumpsys package com.nope") == (0, "", "")


# -- pm, content -----------------------------------------------------------------------------------
def test_pm_path_clear_list(shell: Shell, phone: FakePhone) -> None:
    system = sorted([*SYSTEM_PACKAGES, "com.android.launcher3", "com.android.settings"])
    assert run(shell, "pm list packages -s") == (
        0, "".join(f"package:{p}\n" for p in system), "")
    assert run(shell, "pm path com.android.systemui")[1].startswith("package:/system/")
    assert run(shell, "pm list packages notes") == (0, "package:com.omg.notes\n", "")
    path = run(shell, "pm path com.omg.notes")[1]
    assert re.fullmatch(r"package:/data/app/~~\w+==/com\.omg\.notes-\w+==/base\.apk\n", path)
    assert run(shell, "pm path com.nope") == (1, "", "")
    assert run(shell, "pm clear com.omg.notes") == (0, "Success\n", "")
    assert run(shell, "pm clear com.nope") == (0, "Failed\n", "")
    assert phone.calls == [("clear_app", "com.omg.notes")]


def test_content_query_state_is_one_json_row(shell: Shell, phone: FakePhone) -> None:
    status, out, err = run(shell, "content query --uri content://omg.vphone/state")
    assert (status, err) == (0, "")
    prefix = "Row: 0 state="
    assert out.startswith(prefix) and out.endswith("\n") and out.count("\n") == 1
    assert json.loads(out[len(prefix):]) == phone.state()


def test_content_query_settings_and_unknown(shell: Shell) -> None:
    assert run(shell, "content query --uri content://settings/global") == (
        0, "Row: 0 _id=1, name=wifi_on, value=1\n", "")
    status, _, err = run(shell, "content query --uri content://nope/x")
    assert status == 1 and "Error while accessing provider:nope" in err


# -- identity and misc -----------------------------------------------------------------------------
@pytest.mark.parametrize(("line", "out"), [
    ("whoami", "shell\n"),
    ("id -u", "2000\n"),
    ("getenforce", "Enforcing\n"),
    ("uname", "Linux\n"),
    ("date +%Y | wc -c", "5\n"),
])
def test_identity_commands(shell: Shell, line: str, out: str) -> None:
    assert run(shell, line) == (0, out, "")


def test_id_prints_the_shell_user(shell: Shell) -> None:
    out = run(shell, "id")[1]
    assert out.startswith("uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input)")
    assert out.endswith(" context=u:r:shell:s0\n")


def test_svc_wifi_and_reboot(shell: Shell, phone: FakePhone) -> None:
    assert run(shell, "svc wifi disable; svc wifi enable") == (0, "", "")
    assert phone.calls == [("set_wifi", False), ("set_wifi", True)]
    assert run(shell, "reboot") == (1, "", "reboot: Operation not permitted\n")


def test_pidof_agrees_with_ps(shell: Shell, phone: FakePhone) -> None:
    phone.front = ("com.omg.notes", ".NotesListActivity")
    pid = run(shell, "pidof com.omg.notes")[1].strip()
    assert pid.isdigit() and f" {pid} " in run(shell, "ps -A")[1]
    assert run(shell, "pidof com.android.settings") == (1, "", "")
