"""vphone behaves like a phone where uiautomator2's and adbutils' own device tests noticed it
did not: idle forwarded streams, time that passes (gestures, screen transitions, the busy
period after a launch), logcat, pids, ``android:id/content``, ``framebuffer:``/``reverse:``,
``ip``/``ifconfig``, settings and system packages, and ``vphone list``.

Everything goes through the real adb binary, adbutils or uiautomator2 against a vphone
served on a free port (the ``vphone`` fixture of the pytest plugin). Durations are checked
only from below (a gesture cannot be faster than its duration), never from above.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
import xml.etree.ElementTree as ET

import adbutils
import pytest
from adbtools import adb

from tests.integration.test_vphone_cli import free_port, omg

pytestmark = pytest.mark.skipif(shutil.which("adb") is None, reason="adb binary not installed")

NOTES = "com.omg.notes"
NOTES_MAIN = f"{NOTES}/.NotesListActivity"
FEED = "com.omg.feed"


def shell(serial: str, *args: str) -> subprocess.CompletedProcess[str]:
    return adb("-s", serial, "shell", *args, timeout=60)


def raw_frame(serial: str) -> bytes:
    result = subprocess.run(["adb", "-s", serial, "exec-out", "screencap"], capture_output=True,
                            timeout=60, stdin=subprocess.DEVNULL, check=True)
    return result.stdout


def content_left(xml: str) -> int:
    """The left edge of the app window's android:id/content frame in a hierarchy dump."""
    for node in ET.fromstring(xml.encode("utf-8")).iter("node"):
        if node.get("resource-id") == "android:id/content":
            return int(re.match(r"\[(-?\d+),", node.get("bounds", "")).group(1))  # type: ignore[union-attr]
    raise AssertionError("no android:id/content node in the dump")


# -- (1) forwarded streams stay open while idle ------------------------------------------------
def test_u2_wait_on_an_absent_element_runs_its_whole_timeout(vphone):
    u2 = pytest.importorskip("uiautomator2")
    d = u2.connect(vphone.serial)
    try:
        started = time.monotonic()
        assert d(text="Nothing is called this").wait(timeout=15) is False
        assert time.monotonic() - started >= 14  # the bridge stayed silent > 10 s and held
        assert d(text="Settings").exists  # and the next call on the same server works
    finally:
        d.stop_uiautomator(wait=False)


# -- (2) time that passes ----------------------------------------------------------------------
@pytest.mark.vphone(motion=True)
def test_input_swipe_lasts_its_duration_and_scrolls_on_the_way(vphone):
    vphone.phone.start_activity(FEED)
    before = vphone.phone.dump_xml()
    started = time.monotonic()
    result = shell(vphone.serial, "input", "swipe", "540", "1800", "540", "800", "1000")
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started >= 1.0
    assert vphone.phone.dump_xml() != before  # the feed scrolled
    assert "ViewPostIme pointer" in shell(vphone.serial, "logcat", "-d").stdout


@pytest.mark.vphone(motion=True)
def test_u2_swipe_and_long_click_spend_their_duration(vphone):
    u2 = pytest.importorskip("uiautomator2")
    d = u2.connect(vphone.serial)
    try:
        started = time.monotonic()
        d.swipe(540, 1800, 540, 900, duration=0.6)
        assert time.monotonic() - started >= 0.6
        started = time.monotonic()
        d.long_click(540, 1200, duration=0.8)
        assert time.monotonic() - started >= 0.8
    finally:
        d.stop_uiautomator(wait=False)


@pytest.mark.vphone(motion=False)
def test_without_motion_a_swipe_returns_at_once_and_still_scrolls(vphone):
    vphone.phone.start_activity(FEED)
    assert vphone.phone.motion.idle_in() == 0  # no transition, no busy period
    before = vphone.phone.dump_xml()
    shell(vphone.serial, "input", "swipe", "540", "1800", "540", "1000", "300")
    assert vphone.phone.dump_xml() != before


@pytest.mark.vphone(motion=True)
def test_frames_change_during_a_launch_transition_and_settle_after(vphone):
    serial = vphone.serial
    # Developer options allow up to 10x: slow the transition (3 s) so frames fall inside it.
    scale = shell(serial, "settings", "put", "global", "window_animation_scale", "10")
    assert scale.returncode == 0
    assert shell(serial, "am", "start", "-n", NOTES_MAIN).returncode == 0
    moving = [raw_frame(serial) for _ in range(3)]
    assert len(set(moving)) >= 2, "no two different frames during the transition"
    # uiautomator dump waits for the UI to go idle; from then on every frame is the final one.
    xml = shell(serial, "uiautomator", "dump", "/dev/tty").stdout
    assert content_left(xml.split("UI hierchary")[0]) == 0
    final = raw_frame(serial)
    assert raw_frame(serial) == final and final not in moving


@pytest.mark.vphone(motion=True)
def test_bounds_move_during_a_transition_in_the_u2_dump(vphone):
    u2 = pytest.importorskip("uiautomator2")
    d = u2.connect(vphone.serial)
    try:
        d.shell("settings put global window_animation_scale 10")
        d.shell(f"am start -n {NOTES_MAIN}")
        lefts = [content_left(d.dump_hierarchy())]
        while lefts[-1] != 0:
            lefts.append(content_left(d.dump_hierarchy()))
            assert len(lefts) < 200, "the window never arrived"
        assert lefts[0] > 0 and lefts == sorted(lefts, reverse=True)
    finally:
        d.stop_uiautomator(wait=False)


@pytest.mark.vphone(motion=True)
def test_window_animation_scale_zero_makes_the_first_frame_final(vphone):
    serial = vphone.serial
    shell(serial, "settings", "put", "global", "window_animation_scale", "0")
    shell(serial, "am", "start", "-n", NOTES_MAIN)
    first = raw_frame(serial)
    assert raw_frame(serial) == first
    assert content_left(vphone.phone.dump_xml()) == 0


# -- (3) logcat, pids, views, services, network, settings, packages ---------------------------
def test_logcat_clear_dump_and_formats(vphone):
    serial = vphone.serial
    shell(serial, "log", "-t", "RealismTest", "before the clear")
    assert adb("-s", serial, "logcat", "--clear", timeout=20).returncode == 0
    assert "before the clear" not in adb("-s", serial, "logcat", "-d", timeout=20).stdout
    assert adb("-s", serial, "logcat", "-c", timeout=20).returncode == 0
    shell(serial, "am", "start", "-n", NOTES_MAIN)
    shell(serial, "log", "-t", "RealismTest", "hello from the shell")
    dumped = adb("-s", serial, "logcat", "-d", timeout=20).stdout
    assert re.search(r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\s+\d+\s+\d+ I ActivityTaskManager: "
                     rf"START u0 .*cmp={re.escape(NOTES_MAIN)}", dumped, re.M)
    assert "Displayed com.omg.notes/.NotesListActivity" in dumped
    brief = adb("-s", serial, "logcat", "-d", "-v", "brief", "-s", "RealismTest",
                timeout=20).stdout
    assert re.fullmatch(r"I/RealismTest\(\s*\d+\): hello from the shell\n", brief)
    assert adb("-s", serial, "logcat", "-d", "-v", "bogus", timeout=20).returncode != 0
    vphone.phone.crash_foreground()
    crashed = adb("-s", serial, "logcat", "-d", "-v", "tag", "AndroidRuntime:E", "*:S",
                  timeout=20).stdout
    assert "E/AndroidRuntime: FATAL EXCEPTION: main" in crashed
    assert "Process: com.omg.notes" in crashed


def test_logcat_follows_new_lines_until_the_client_leaves(vphone):
    with subprocess.Popen(["adb", "-s", vphone.serial, "logcat", "-v", "raw", "-s", "Follow"],
                          stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL) as proc:
        try:
            shell(vphone.serial, "log", "-t", "Follow", "first")
            assert proc.stdout is not None and proc.stdout.readline() == "first\n"
        finally:
            proc.terminate()


def test_pid_changes_after_force_stop_and_relaunch(vphone):
    d = adbutils.AdbClient().device(vphone.serial)
    d.app_start(NOTES)
    first = d.shell("pidof com.omg.notes").strip()
    assert first.isdigit() and f" {first} " in d.shell("ps -A")
    assert d.shell("pidof com.omg.notes").strip() == first  # stable while it runs
    d.app_stop(NOTES)
    assert d.shell("pidof com.omg.notes").strip() == ""
    d.app_start(NOTES)
    second = d.shell("pidof com.omg.notes").strip()
    assert second.isdigit() and second != first
    assert f"Killing {first}:com.omg.notes" in d.shell("logcat -d")


def test_the_u2_server_is_an_app_process_the_shell_user_can_kill(vphone):
    u2 = pytest.importorskip("uiautomator2")
    d = u2.connect(vphone.serial)
    try:
        assert d.info["currentPackageName"]  # the server runs
        rows = [line.split() for line in d.shell("ps -u shell").output.splitlines()[1:]]
        pids = [int(r[1]) for r in rows if r[-1] == "app_process"]
        assert len(pids) == 1
        assert "Operation not permitted" in d.shell("kill 1007").output
        d.shell(f"kill {pids[0]}")
        still = [r for r in (line.split() for line in d.shell("ps -u shell").output.splitlines())
                 if r[-1] == "app_process"]
        assert still == []
        assert vphone.phone._u2 == {}
    finally:
        d.stop_uiautomator(wait=False)


def test_every_app_window_has_android_id_content(vphone):
    u2 = pytest.importorskip("uiautomator2")
    d = u2.connect(vphone.serial)
    try:
        assert d(resourceId="android:id/content").info["packageName"] == "com.android.launcher3"
        d.app_start(NOTES)
        content = d(resourceId="android:id/content")
        assert content.info["packageName"] == NOTES
        root = ET.fromstring(d.dump_hierarchy().encode("utf-8")).find("node")
        assert root is not None and root.get("package") == NOTES
        frame = root.find("node")
        assert frame is not None and frame.get("resource-id") == "android:id/content"
        assert len(frame) > 0  # the app's own views hang below it
    finally:
        d.stop_uiautomator(wait=False)


# adbutils' framebuffer() never closes its connection to the adb server (its own leak).
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_framebuffer_service_is_the_screen(vphone):
    d = adbutils.AdbClient().device(vphone.serial)
    image = d.framebuffer()
    assert image.size == (vphone.phone.profile.width, vphone.phone.profile.height)
    assert image.convert("RGBA").tobytes() == vphone.phone.screenshot().convert("RGBA").tobytes()


def test_reverse_forwards_are_kept_listed_and_removed(vphone):
    serial = vphone.serial
    listed = adb("-s", serial, "reverse", "--list", timeout=20)
    assert listed.returncode == 0 and listed.stdout.strip() == ""
    assert adb("-s", serial, "reverse", "tcp:7100", "tcp:7200", timeout=20).returncode == 0
    again = adb("-s", serial, "reverse", "--no-rebind", "tcp:7100", "tcp:7300", timeout=20)
    assert again.returncode != 0 and "cannot rebind" in again.stderr
    d = adbutils.AdbClient().device(serial)
    d.reverse("tcp:7101", "tcp:7201")
    assert [(r.remote, r.local) for r in d.reverse_list()] == [("tcp:7100", "tcp:7200"),
                                                              ("tcp:7101", "tcp:7201")]
    assert adb("-s", serial, "reverse", "--remove", "tcp:7100", timeout=20).returncode == 0
    missing = adb("-s", serial, "reverse", "--remove", "tcp:7100", timeout=20)
    assert missing.returncode != 0 and "not found" in missing.stderr
    d.reverse_remove_all()
    assert d.reverse_list() == []


def test_ip_and_ifconfig_show_loopback_and_wlan0(vphone):
    serial = vphone.serial
    addr = shell(serial, "ip", "addr").stdout
    assert "inet 127.0.0.1/8 scope host lo" in addr
    m = re.search(r"inet (\d+\.\d+\.\d+\.\d+)/24 .* wlan0", addr)
    assert m is not None
    assert f"inet addr:{m.group(1)}" in shell(serial, "ifconfig", "wlan0").stdout
    assert "inet addr:127.0.0.1" in shell(serial, "ifconfig").stdout
    shell(serial, "svc", "wifi", "disable")
    assert "inet " not in shell(serial, "ip", "addr", "show", "wlan0").stdout
    assert shell(serial, "ip", "addr", "show", "eth9").returncode != 0


def test_settings_and_system_packages(vphone):
    d = adbutils.AdbClient().device(vphone.serial)
    assert d.shell("settings get system screen_brightness_mode").strip() in ("0", "1")
    assert d.shell("settings get global window_animation_scale").strip() == "1.0"
    packages = d.list_packages()
    assert {"com.android.systemui", "android", "com.android.shell"} <= set(packages)
    assert d.shell("pm path com.android.systemui").startswith("package:/system/")
    assert "com.android.systemui" in d.shell("ps -A")


# -- (4) vphone list -------------------------------------------------------------------------
def test_vphone_list_shows_running_vphones(tmp_path):
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path), "COLUMNS": "200"}
    assert json.loads(omg("vphone", "list", "--json", env=env).stdout) == []
    port = free_port()
    started = omg("vphone", "start", "--port", str(port), "--seed", "5", "--profile", "compact",
                  "--json", env=env)
    assert started.returncode == 0, started.stdout + started.stderr
    record = json.loads(started.stdout)
    try:
        listed = json.loads(omg("vphone", "list", "--json", env=env).stdout)
        assert [(r["port"], r["pid"], r["seed"], r["profile"]) for r in listed] == [
            (port, record["pid"], 5, "compact")]
        table = omg("vphone", "list", env=env).stdout
        assert re.search(rf"^{port}\s+{record['pid']}\s+5\s+compact\s+off", table, re.M)
    finally:
        omg("vphone", "stop", "--port", str(port), env=env)
    deadline = time.monotonic() + 20
    while json.loads(omg("vphone", "list", "--json", env=env).stdout) and \
            time.monotonic() < deadline:
        time.sleep(0.1)
    assert json.loads(omg("vphone", "list", "--json", env=env).stdout) == []
