"""The shell against the real VirtualPhone: the fake's contract holds and commands change state."""

from __future__ import annotations

import inspect
import json

import pytest

from omg_agent.vphone.phone import VirtualPhone

try:
    from .shell_fake_phone import RECORDED, FakePhone, run
except ImportError:
    from shell_fake_phone import RECORDED, FakePhone, run

QUERIES = ("set_ime", "screencap_raw", "screencap_png", "dump_xml", "focus", "start_activity",
           "packages", "launchable", "keyboard_shown", "open_url", "state", "command_latency")
ATTRIBUTES = ("browser_package", "profile", "fs", "props", "settings", "lock", "ime_ids",
              "ime_current")


@pytest.fixture
def phone() -> VirtualPhone:
    p = VirtualPhone()
    yield p
    p.close()


def test_the_fake_phone_matches_the_real_one() -> None:
    for name in RECORDED + QUERIES:
        real = getattr(VirtualPhone, name)
        fake = getattr(FakePhone, name)
        assert list(inspect.signature(fake).parameters) == \
            list(inspect.signature(real).parameters), name
    real_phone = VirtualPhone()
    try:
        for name in ATTRIBUTES:
            assert hasattr(real_phone, name), name
    finally:
        real_phone.close()


def test_am_start_and_dumpsys_track_the_real_foreground(phone: VirtualPhone) -> None:
    shell = phone.shell
    assert run(shell, "am start -n com.android.settings/.Settings")[0] == 0
    assert phone.focus() == ("com.android.settings", ".Settings")
    assert "u0 com.android.settings/com.android.settings.Settings}" in \
        run(shell, "dumpsys window | grep mCurrentFocus")[1]
    run(shell, "input keyevent KEYCODE_HOME")
    assert phone.focus()[0] == "com.android.launcher3"


def test_monkey_and_force_stop(phone: VirtualPhone) -> None:
    shell = phone.shell
    assert run(shell, "monkey -p com.omg.notes -c android.intent.category.LAUNCHER 1")[0] == 0
    assert phone.focus()[0] == "com.omg.notes"
    run(shell, "am force-stop com.omg.notes")
    assert phone.focus()[0] == "com.android.launcher3"


def test_content_query_returns_the_phone_state(phone: VirtualPhone) -> None:
    out = run(phone.shell, "content query --uri content://omg.vphone/state")[1]
    assert json.loads(out.removeprefix("Row: 0 state=")) == phone.state()


def test_ime_switch_via_shell(phone: VirtualPhone) -> None:
    shell = phone.shell
    ime = "com.android.adbkeyboard/.AdbIME"
    assert run(shell, f"ime enable {ime} && ime set {ime}")[0] == 0
    assert phone.ime_current == ime
    assert run(shell, "settings get secure default_input_method")[1] == ime + "\n"


def test_screencap_and_dump_come_from_the_phone(phone: VirtualPhone) -> None:
    shell = phone.shell
    assert run(shell, "screencap -p /sdcard/s.png && uiautomator dump")[0] == 0
    assert phone.fs.read("/sdcard/s.png").startswith(b"\x89PNG")
    assert phone.fs.read("/sdcard/window_dump.xml").startswith(b"<?xml")


def test_vphone_idle_says_idle_with_the_digest_of_the_frame_screencap_gives(phone) -> None:
    import hashlib

    status, out, _ = run(phone.shell, "vphone-idle")
    assert status == 0
    assert out.split() == ["idle", hashlib.md5(phone.screencap_raw()).hexdigest()]
    # the digest is kept with its frame: a new frame has its own, never the last one's
    phone.start_activity("com.android.settings")
    again = run(phone.shell, "vphone-idle")[1].split()[1]
    assert again == hashlib.md5(phone.screencap_raw()).hexdigest() != out.split()[1]


def test_vphone_idle_says_busy_while_a_screen_slides_in() -> None:
    now = [1000.0]
    phone = VirtualPhone(motion=True, reports_idle=True, clock=lambda: now[0])
    try:
        phone.start_activity("com.android.settings")  # a launch: transition + busy
        assert run(phone.shell, "vphone-idle")[1].split()[0] == "busy"
        now[0] += 10
        assert run(phone.shell, "vphone-idle")[1].split()[0] == "idle"
    finally:
        phone.close()


def test_a_phone_with_motion_has_no_vphone_idle_like_a_real_phone() -> None:
    phone = VirtualPhone(motion=True)
    try:
        status, out, err = run(phone.shell, "vphone-idle")
        assert (status, out) == (127, "") and "not found" in err
    finally:
        phone.close()


def test_vphone_idle_says_busy_while_a_spinner_turns_and_idle_when_it_stands_still() -> None:
    now = [1000.0]
    phone = VirtualPhone(clock=lambda: now[0])
    try:
        shop = phone.apps["com.omg.shop"]
        shop.promo_mode, shop.search_delay = "never", 2.0
        phone.start_activity("com.omg.shop")
        shop._browse_all()
        assert run(phone.shell, "vphone-idle")[1].split()[0] == "busy"  # turning
        phone.settings["global"]["animator_duration_scale"] = "0"
        assert run(phone.shell, "vphone-idle")[1].split()[0] == "idle"  # a still spinner
        phone.settings["global"]["animator_duration_scale"] = "1"
        now[0] += 3  # the results are in
        assert run(phone.shell, "vphone-idle")[1].split()[0] == "idle"
    finally:
        phone.close()
