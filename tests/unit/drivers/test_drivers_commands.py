"""Actions as shell commands, batching into calls, and the device-output readers."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from omg_agent.core.geometry import Point, ScreenGeometry
from omg_agent.drivers import adbparse
from omg_agent.drivers import commands as cmds
from omg_agent.drivers.textinput import ADB_IME
from omg_agent.errors import FrameError, TruncatedFrame

PHONE = ScreenGeometry(1080, 2400, status_bar=110, nav_bar=66)


def test_touch_commands():
    p = Point(540, 1200)
    assert cmds.tap(p) == "input tap 540 1200"
    assert cmds.double_tap(p) == "input tap 540 1200 && input tap 540 1200"
    assert cmds.long_press(p, 800) == "input swipe 540 1200 540 1200 800"
    assert cmds.swipe(p, Point(540, 600), 300) == "input swipe 540 1200 540 600 300"


def test_keys_back_home_and_launch():
    assert cmds.keyevent(66) == "input keyevent 66"
    assert cmds.keyevent(67, 67) == "input keyevent 67 67"
    assert cmds.back() == "input keyevent 4" and cmds.home() == "input keyevent 3"
    assert cmds.launch("com.omg.notes") == (
        "monkey -p com.omg.notes -c android.intent.category.LAUNCHER 1 >/dev/null")
    with pytest.raises(ValueError):
        cmds.keyevent()


def test_swipe_directions_scale_with_their_axis_and_stay_in_the_safe_zone():
    start, end = cmds.swipe_points(PHONE, None, "up", 250)
    assert start == Point(540, 1200) and end == Point(540, 600)  # 250/1000 of 2400 px
    start, end = cmds.swipe_points(PHONE, None, "left", 250)
    assert end == Point(270, 1200)  # 250/1000 of 1080 px
    _, end = cmds.swipe_points(PHONE, None, "up", 1000)
    assert end == Point(540, 110)  # clamped below the status bar
    _, end = cmds.swipe_points(PHONE, Point(100, 2000), "down", 500)
    assert end == Point(100, 2333)  # clamped above the nav bar
    with pytest.raises(ValueError):
        cmds.swipe_points(PHONE, None, "sideways", 100)


def test_package_resolution_order():
    installed = ["com.android.settings", "com.omg.notes", "com.omg.notes2", "com.x.notes"]
    aliases = {"备忘录": "com.omg.notes", "We Chat": "com.tencent.mm"}
    assert cmds.resolve_package("com.omg.notes2", packages=installed) == "com.omg.notes2"
    assert cmds.resolve_package("备忘录", packages=installed, aliases=aliases) == "com.omg.notes"
    assert cmds.resolve_package("wechat", aliases=aliases) == "com.tencent.mm"
    assert cmds.resolve_package("Settings", packages=installed) == "com.android.settings"
    assert cmds.resolve_package("Notes", packages=installed) is None  # two packages end in it
    assert cmds.resolve_package("Shop", packages=installed) is None
    assert cmds.resolve_package("com.y.z") == "com.y.z"  # unverifiable: the device decides
    assert cmds.parse_package_list("package:com.a\npackage:com.b\n\njunk") == ["com.a", "com.b"]


def step(i, *fragments, ime=False):
    return cmds.Step(i, tuple(fragments), f"s{i}", ime)


def test_a_bundle_is_one_call_joined_with_and_and_marked_between_actions():
    calls = cmds.pack([step(0, "input text 'a'"), step(1, "input keyevent 67"),
                       step(2, "input tap 1 2")])
    assert len(calls) == 1
    assert calls[0].command == ("input text 'a' && echo OMG_OK:0 && input keyevent 67 && "
                                "echo OMG_OK:1 && input tap 1 2")
    assert calls[0].indices == (0, 1, 2)


def test_a_run_of_key_presses_shares_one_input_process():
    calls = cmds.pack([step(0, "input keyevent 67"), step(1, "input keyevent 67"),
                       step(2, "input keyevent 4"), step(3, "input tap 1 2"),
                       step(4, "input keyevent 66")])
    assert calls[0].command == ("input keyevent 67 67 4 && echo OMG_OK:2 && input tap 1 2 && "
                                "echo OMG_OK:3 && input keyevent 66")
    assert calls[0].indices == (0, 1, 2, 3, 4)
    assert cmds.completed_actions(calls[0], b"OMG_OK:2\n", 1) == 3


def test_the_ime_envelope_wraps_the_whole_call_once():
    calls = cmds.pack([step(0, "am broadcast x", ime=True), step(1, "input tap 1 2")],
                      ime=cmds.ImeSwitch("com.x/.Latin"))
    assert calls[0].command.startswith(f"ime set {ADB_IME} >/dev/null && am broadcast x && ")
    assert calls[0].command.endswith("ime set com.x/.Latin >/dev/null; exit $_omg_rc")
    with pytest.raises(ValueError):
        cmds.pack([step(0, "am broadcast x", ime=True)])


@given(st.lists(st.integers(1, 1500), min_size=1, max_size=12))
def test_long_steps_spread_over_calls_that_fit_in_order(sizes):
    steps = [step(i, *["input text '" + "x" * n + "'" for n in (size, size // 2 + 1)])
             for i, size in enumerate(sizes)]
    calls = cmds.pack(steps, max_bytes=4000)
    assert all(len(c.command) <= 4000 for c in calls)
    assert [i for c in calls for i in c.indices] == list(range(len(sizes)))
    fragments = [f for c in calls for f in c.command.split(" && ")
                 if not f.startswith("echo OMG_OK:")]
    assert fragments == [f for s in steps for f in s.fragments]


def test_completed_actions_reads_markers_of_a_failed_call():
    call = cmds.pack([step(3, "a"), step(4, "b"), step(5, "c")])[0]
    assert cmds.completed_actions(call, b"", 0) == 3
    assert cmds.completed_actions(call, b"OMG_OK:3\n", 1) == 1
    assert cmds.completed_actions(call, b"Broadcasting...\nOMG_OK:3\nOMG_OK:4\n", 255) == 2
    assert cmds.completed_actions(call, b"", 1) == 0


# -- device output readers ----------------------------------------------------------------
def test_raw_frames_decode_and_bad_ones_are_refused():
    pixels = bytes([10, 20, 30, 255]) * 6
    image = adbparse.decode_raw_frame(struct.pack("<IIII", 3, 2, 1, 0) + pixels)
    assert image.size == (3, 2) and image.mode == "RGB" and image.getpixel((2, 1)) == (10, 20, 30)
    legacy = adbparse.decode_raw_frame(struct.pack("<III", 2, 3, 1) + pixels)
    assert legacy.size == (2, 3)
    with pytest.raises(FrameError):
        adbparse.decode_raw_frame(b"\x89PNG\r\n" + bytes(100))
    with pytest.raises(FrameError):
        adbparse.decode_raw_frame(struct.pack("<IIII", 3, 2, 4, 0) + pixels)  # RGB_565


def test_hierarchy_is_cut_out_of_dump_output():
    out = b"<?xml version='1.0' ?><hierarchy rotation=\"0\"><node/></hierarchy>" \
          b"UI hierchary dumped to: /dev/tty\n"
    assert adbparse.extract_hierarchy(out).endswith("</hierarchy>")
    assert adbparse.extract_hierarchy(b"ERROR: could not get idle state.\n") is None


def test_focus_comes_from_current_focus_then_focused_app():
    text = ("  mCurrentFocus=Window{a1b2c3d u0 com.omg.notes/com.omg.notes.NoteEditorActivity}\n"
            "  mFocusedApp=ActivityRecord{1234567 u0 com.omg.notes/.NotesListActivity t12}\n")
    assert adbparse.parse_focus(text) == ("com.omg.notes", ".NoteEditorActivity")
    assert adbparse.parse_focus("mCurrentFocus=null\n  mFocusedApp=ActivityRecord{1 u0 "
                                "com.a/.Main t3}") == ("com.a", ".Main")
    assert adbparse.parse_focus("mCurrentFocus=Window{9 u0 NotificationShade}") == \
        ("NotificationShade", "")
    assert adbparse.parse_focus("") == ("", "")


def test_screen_info_prefers_overrides_and_reads_props_in_order():
    out = ("Physical size: 1080x2400\nOverride size: 720x1600\nPhysical density: 440\n"
           "34\nomg\nvPhone 1\n")
    info = adbparse.parse_screen_info(out)
    assert (info.width, info.height, info.density, info.sdk, info.brand, info.model) == \
        (720, 1600, 440, 34, "omg", "vPhone 1")
    bare = adbparse.parse_screen_info("Physical size: 10x20\nPhysical density: 160\n\n\n\n")
    assert (bare.sdk, bare.brand, bare.model) == (0, "", "")
    with pytest.raises(FrameError):
        adbparse.parse_screen_info("error: closed")


def test_ime_probe():
    out = f"a/.A\n{ADB_IME}\n@@\na/.A\n@@\na/.A\n"
    assert adbparse.parse_ime_probe(out, "@@") == ({"a/.A", ADB_IME}, {"a/.A"}, "a/.A")
    assert adbparse.parse_ime_probe("junk", "@@") == (set(), set(), "")


def test_a_raw_frame_cut_short_is_a_broken_stream_not_a_format_problem():
    header = struct.pack("<4I", 4, 2, 1, 1)
    with pytest.raises(TruncatedFrame):
        adbparse.decode_raw_frame(header + bytes(10))
    assert adbparse.decode_raw_frame(header + bytes(32)).size == (4, 2)
    with pytest.raises(FrameError) as info:
        adbparse.decode_raw_frame(b"garbage that is not a frame")
    assert not isinstance(info.value, TruncatedFrame)
