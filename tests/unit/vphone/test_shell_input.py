"""``input``, ``am``, ``monkey`` and ``ime`` drive the phone as on an Android 13 device."""

from __future__ import annotations

import shlex
import threading

import pytest

from omg_agent.vphone.shell import Shell
from omg_agent.vphone.shellio import CollectingIO

try:
    from .shell_fake_phone import ADB_IME, LATIN_IME, FakePhone, run
except ImportError:
    from shell_fake_phone import ADB_IME, LATIN_IME, FakePhone, run




# -- input ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("line", "calls"), [
    ("input tap 100 200", [("tap", 100, 200)]),
    ("input tap 10.7 20.2", [("tap", 10, 20)]),
    ("input -d 0 tap 1 2", [("tap", 1, 2)]),
    ("input touchscreen tap 1 2", [("tap", 1, 2)]),
    ("input touchscreen -d 0 tap 1 2", [("tap", 1, 2)]),
    ("input swipe 1 2 3 4", [("swipe", 1, 2, 3, 4, 300)]),
    ("input swipe 1 2 3 4 800", [("swipe", 1, 2, 3, 4, 800)]),
    ("input swipe 500 500 500 500 1000", [("swipe", 500, 500, 500, 500, 1000)]),
    ("input draganddrop 1 2 3 4 900", [("drag", 1, 2, 3, 4, 900)]),
    ("input keyevent 4", [("key", 4)]),
    ("input keyevent KEYCODE_HOME BACK 66", [("key", 3), ("key", 4), ("key", 66)]),
    ("input keyevent --longpress KEYCODE_POWER", [("key", 26)]),
    ("input keyevent --doubletap 24", [("key", 24), ("key", 24)]),
    ("input keyevent KEYCODE_DPAD_UP KEYCODE_MOVE_END KEYCODE_FORWARD_DEL",
     [("key", 19), ("key", 123), ("key", 112)]),
    ("input keyevent KEYCODE_A KEYCODE_Z KEYCODE_0 KEYCODE_9",
     [("key", 29), ("key", 54), ("key", 7), ("key", 16)]),
    ("input keyevent APP_SWITCH WAKEUP SLEEP ESCAPE",
     [("key", 187), ("key", 224), ("key", 223), ("key", 111)]),
    ("input keyevent home NOT_A_KEY 9999", []),  # KEYCODE_UNKNOWN, as on a device
    ("input text 'hello world'", [("input_text", "hello world")]),
    ("input text hello%sworld", [("input_text", "hello world")]),
    ("input text first second", [("input_text", "first")]),  # only the first argument
    ("input roll 1 1; input press", []),
    ("input keycombination KEYCODE_CTRL_LEFT KEYCODE_A", [("key_combo", 113, 29)]),
])
def test_input_commands_call_the_phone(shell: Shell, phone: FakePhone, line: str,
                                       calls: list[tuple]) -> None:
    status, out, err = run(shell, line)
    assert (status, out, err) == (0, "", "")
    assert phone.calls == calls


def test_motionevent_down_up_replays_the_gesture(shell: Shell, phone: FakePhone) -> None:
    run(shell, "input motionevent DOWN 10 20; input motionevent MOVE 15 25")
    assert phone.calls == []
    run(shell, "input motionevent UP 300 400")
    assert [c[:5] for c in phone.calls] == [("swipe", 10, 20, 300, 400)]


def test_input_waits_out_the_input_latency_first(shell: Shell, phone: FakePhone) -> None:
    run(shell, "input tap 1 1; input keyevent 4")
    assert phone.latency_asked == ["shell", "input", "input"]


@pytest.mark.parametrize(("line", "message"), [
    ("input tap 1", 'Argument expected after "1"'),
    ("input tap x 1", "Error: Invalid arguments for command: tap"),
    ("input swipe 1 2 3", 'Argument expected after "3"'),
    ("input -d x tap 1 1", "Error: Invalid arguments for display ID."),
])
def test_bad_input_arguments_raise_like_the_java_command(shell: Shell, phone: FakePhone,
                                                        line: str, message: str) -> None:
    status, out, err = run(shell, line)
    assert status == 255
    assert f"java.lang.IllegalArgumentException: {message}\n" in err
    assert err.startswith("\nException occurred while executing '")
    assert phone.calls == []


@pytest.mark.parametrize("text", ["héllo 中文", "中文", "价格%s¥7,999"])
def test_input_text_with_a_character_no_key_types_types_nothing(shell: Shell, phone: FakePhone,
                                                                text: str) -> None:
    # Android's KeyCharacterMap.getEvents returns null for the whole text, and
    # InputShellCommand reads its length: a NullPointerException, nothing typed.
    status, out, err = run(shell, f"input text '{text}'")
    assert status == 255 and out == ""
    assert err == ("\nException occurred while executing 'text':\n"
                   "java.lang.NullPointerException: Attempt to get length of null array\n")
    assert phone.calls == []


def test_input_usage_and_unknown_subcommand(shell: Shell) -> None:
    status, out, _ = run(shell, "input")
    assert status == 0 and out.startswith("Usage: input [<source>] [-d DISPLAY_ID]")
    assert run(shell, "input longpress 1 2") == (0, "Unknown command: longpress\n", "")


# -- am start / force-stop -------------------------------------------------------------------------
def test_am_start_component(shell: Shell, phone: FakePhone) -> None:
    assert run(shell, "am start -n com.android.settings/.Settings") == (
        0, "Starting: Intent { cmp=com.android.settings/.Settings }\n", "")
    assert phone.front == ("com.android.settings", ".Settings")


def test_am_start_full_class_name_is_shortened(shell: Shell, phone: FakePhone) -> None:
    line = ("am start -a android.intent.action.MAIN -c android.intent.category.LAUNCHER "
            "-n com.omg.notes/com.omg.notes.NoteEditorActivity")
    assert run(shell, line)[1] == (
        "Starting: Intent { act=android.intent.action.MAIN "
        "cat=[android.intent.category.LAUNCHER] cmp=com.omg.notes/.NoteEditorActivity }\n")
    assert phone.started == [("com.omg.notes", ".NoteEditorActivity")]


def test_am_start_wait_reports_launch(shell: Shell) -> None:
    status, out, _ = run(shell, "am start -W -n com.android.settings/.Settings")
    assert status == 0
    assert out.splitlines()[1:4] == ["Status: ok", "LaunchState: COLD",
                                     "Activity: com.android.settings/.Settings"]
    assert out.endswith("Complete\n")


def test_am_start_unknown_activity_errors_like_android(shell: Shell) -> None:
    assert run(shell, "am start -n com.foo/.Bar") == (
        0, "Starting: Intent { cmp=com.foo/.Bar }\n",
        "Error type 3\nError: Activity class {com.foo/com.foo.Bar} does not exist.\n")


def test_am_start_unresolvable_intent(shell: Shell) -> None:
    status, out, err = run(shell, "am start -a android.intent.action.VIEW -d https://x.org/a?b")
    assert out == "Starting: Intent { act=android.intent.action.VIEW dat=https://x.org/... }\n"
    assert err == ("Error: Activity not started, unable to resolve Intent { "
                   "act=android.intent.action.VIEW dat=https://x.org/... flg=0x10000000 }\n")
    assert status == 0


def test_am_start_same_activity_only_brings_it_to_front(shell: Shell, phone: FakePhone) -> None:
    run(shell, "am start -n com.android.settings/.Settings")
    run(shell, "am start -n com.android.settings/.Settings")
    assert phone.started == [("com.android.settings", ".Settings")]


def test_am_force_stop(shell: Shell, phone: FakePhone) -> None:
    assert run(shell, "am force-stop --user 0 com.omg.notes") == (0, "", "")
    assert phone.calls == [("force_stop", "com.omg.notes")]


def test_am_unknown_option(shell: Shell) -> None:
    assert run(shell, "am start --bogus") == (255, "", "Error: Unknown option: --bogus\n")


# -- broadcasts / ADB Keyboard ---------------------------------------------------------------------
def test_broadcast_prints_like_android_and_ignores_other_imes(shell: Shell,
                                                              phone: FakePhone) -> None:
    assert run(shell, "am broadcast -a ADB_INPUT_TEXT --es msg hello") == (
        0, "Broadcasting: Intent { act=ADB_INPUT_TEXT flg=0x400000 (has extras) }\n"
           "Broadcast completed: result=0\n", "")
    assert phone.calls == []  # LatinIME is current: nobody receives it


@pytest.mark.parametrize(("line", "calls"), [
    ("am broadcast -a ADB_INPUT_TEXT --es msg '你好 world'", [("input_text", "你好 world")]),
    ("am broadcast -a ADB_INPUT_B64 --es msg 5L2g5aW9IPCfmIA=", [("input_text", "你好 😀")]),
    ("am broadcast -a ADB_CLEAR_TEXT", [("clear_text",)]),
    ("am broadcast -a ADB_INPUT_CODE --ei code 67", [("key", 67)]),
    ("am broadcast -a ADB_EDITOR_CODE --ei code 3", [("key", 66)]),
    ("am broadcast -a ADB_INPUT_CHARS --eia chars 72,105", [("input_text", "Hi")]),
    ("am broadcast -a ADB_INPUT_B64 --es msg '!!notbase64'", []),
])
def test_adb_keyboard_broadcasts(shell: Shell, phone: FakePhone, line: str,
                                 calls: list[tuple]) -> None:
    assert run(shell, f"ime set {ADB_IME}")[0] == 0
    status, out, _ = run(shell, line)
    assert status == 0
    assert out.endswith("Broadcast completed: result=0\n")
    assert phone.calls == calls


# -- monkey ----------------------------------------------------------------------------------------
def test_monkey_launches_the_package(shell: Shell, phone: FakePhone) -> None:
    status, out, _ = run(shell, "monkey -p com.omg.notes -c android.intent.category.LAUNCHER 1")
    assert status == 0
    assert "  bash arg: com.omg.notes\n" in out
    assert "Events injected: 1\n" in out
    assert phone.front[0] == "com.omg.notes"


def test_monkey_unknown_package_aborts(shell: Shell) -> None:
    status, _, err = run(shell, "monkey -p com.nope -c android.intent.category.LAUNCHER 1")
    assert status == 251
    assert err.endswith("** No activities found to run, monkey aborted.\n")


# -- ime -------------------------------------------------------------------------------------------
def test_ime_list_enable_set(shell: Shell, phone: FakePhone) -> None:
    assert run(shell, "ime list -s -a") == (0, f"{LATIN_IME}\n{ADB_IME}\n", "")
    assert run(shell, f"ime enable {ADB_IME}")[1] == f"Input method {ADB_IME}: already enabled\n"
    assert run(shell, f"ime set {ADB_IME}") == (
        0, f"Input method {ADB_IME} selected for user #0\n", "")
    assert phone.ime_current == ADB_IME
    assert run(shell, "settings get secure default_input_method")[1] == ADB_IME + "\n"
    assert run(shell, "ime set com.nope/.Ime")[0] == 255
    assert phone.ime_current == ADB_IME


# -- app_process: the uiautomator2 server ----------------------------------------------------------
def _serve_u2(shell: Shell, phone: FakePhone, line: str) -> tuple[list[int], bytes]:
    io = CollectingIO()
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(shell.run(line, io)))
    thread.start()
    assert phone.u2_started.wait(5)
    assert thread.is_alive()  # the server process lives as long as its stream
    io.cancelled.set()
    thread.join(5)
    return result, bytes(io.out)


def test_app_process_runs_the_u2_server_until_cancelled(shell: Shell, phone: FakePhone) -> None:
    line = "CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p 9123"
    result, out = _serve_u2(shell, phone, line)
    assert result == [0]
    assert out == b"[server] INFO: [UiAutomator2Server] Starting Server\n"
    assert phone.calls == [("start_uiautomator_server", 9123), ("stop_uiautomator_server", 9123)]


def test_app_process_default_port(shell: Shell, phone: FakePhone) -> None:
    _serve_u2(shell, phone, "app_process / com.wetest.uia2.Main")
    assert phone.calls == [("start_uiautomator_server", 9008), ("stop_uiautomator_server", 9008)]


def test_app_process_other_classes_fail(shell: Shell, phone: FakePhone) -> None:
    status, _, err = run(shell, "app_process / com.example.Other")
    assert status == 1 and "com.example.Other" in err
    assert phone.calls == []


def test_am_start_settings_action_opens_settings(shell: Shell, phone: FakePhone) -> None:
    assert run(shell, "am start -a android.settings.WIFI_SETTINGS") == (
        0, "Starting: Intent { act=android.settings.WIFI_SETTINGS }\n", "")
    assert phone.front[0] == "com.android.settings"


def test_very_long_text_is_typed_whole(shell: Shell, phone: FakePhone) -> None:
    text = "it's a \"long\" $text; " * 20000
    assert run(shell, "input text " + shlex.quote(text))[0] == 0
    assert phone.calls == [("input_text", text)]
