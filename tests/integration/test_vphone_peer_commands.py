"""The device commands peers' own ADB layers send (Midscene, mobilerun, yadb users) answer on a
vphone as on an Android 14 phone, through the real adb binary and adbutils (issue 29).

One vphone serves the whole module; each test first force-stops the apps and goes home.
"""

from __future__ import annotations

from collections.abc import Iterator

import adbutils
import pytest

from omg_agent.errors import AdbNotFound
from omg_agent.vphone import adbhost
from omg_agent.vphone.phone import VirtualPhone


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[VirtualPhone, str]]:
    try:
        adbhost.adb_path()
    except AdbNotFound as exc:
        pytest.skip(str(exc))
    phone = VirtualPhone()
    server = phone.serve()
    serial = adbhost.connect("127.0.0.1", server.port)
    try:
        yield phone, serial
    finally:
        adbhost.disconnect(serial)
        phone.close()


@pytest.fixture
def phone(served: tuple[VirtualPhone, str]) -> VirtualPhone:
    for package in served[0].launchable():
        served[0].force_stop(package)  # each test starts from the apps' first screens
    served[0].go_home()
    return served[0]


@pytest.fixture
def device(served: tuple[VirtualPhone, str], phone: VirtualPhone) -> adbutils.AdbDevice:
    return adbutils.AdbClient().device(served[1])


def sh(device: adbutils.AdbDevice, cmd: str) -> tuple[int, str]:
    result = device.shell2(cmd)
    return result.returncode, result.output


# -- launch by package --------------------------------------------------------------------
def test_resolve_activity_brief_gives_the_component_that_am_start_launches(device, phone):
    rc, out = sh(device, "cmd package resolve-activity --brief com.omg.notes")
    assert rc == 0
    component = out.strip().splitlines()[-1]
    assert component == "com.omg.notes/.NotesListActivity"
    assert sh(device, f"am start -n {component}")[0] == 0
    assert phone.focus() == ("com.omg.notes", ".NotesListActivity")


def test_resolve_activity_for_a_package_not_installed_answers_as_android(device):
    assert sh(device, "cmd package resolve-activity --brief com.example.absent") == \
        (0, "No activity found\n")


# -- key combinations ---------------------------------------------------------------------
def test_ctrl_a_then_del_clears_the_focused_field(device, phone):
    phone.start_activity("com.omg.notes")
    phone.tap_view(resource_id="com.omg.notes:id/fab_new")
    device.shell("input text Groceries")
    assert sh(device, "input keycombination KEYCODE_CTRL_LEFT KEYCODE_A")[0] == 0
    device.shell("input keyevent KEYCODE_DEL")
    assert phone.apps["com.omg.notes"].field("title") == ""


# -- dumpsys lines peers parse ------------------------------------------------------------
def test_dumpsys_reports_the_keyboard_and_the_orientation_as_a_phone_does(device, phone):
    assert "mInputShown=false" in device.shell("dumpsys input_method")
    phone.start_activity("com.omg.notes")
    phone.tap_view(resource_id="com.omg.notes:id/fab_new")
    assert "mInputShown=true" in device.shell("dumpsys input_method")
    assert device.shell("dumpsys input | grep SurfaceOrientation").strip() == \
        "SurfaceOrientation: 0"
    assert device.shell("dumpsys display | grep mCurrentOrientation").strip() == \
        "mCurrentOrientation=0"
    assert device.rotation() == 0


# -- yadb through app_process -------------------------------------------------------------
YADB = ("app_process -Djava.class.path=/data/local/tmp/yadb /data/local/tmp "
        "com.ysbing.yadb.Main")


def test_pushed_yadb_types_chinese_and_takes_a_screenshot(device, phone, tmp_path):
    jar = tmp_path / "yadb"
    jar.write_bytes(b"dex\n035\x00yadb")
    device.sync.push(str(jar), "/data/local/tmp/yadb")
    phone.start_activity("com.omg.notes")
    phone.tap_view(resource_id="com.omg.notes:id/fab_new")
    assert sh(device, YADB + " -keyboard '价格 ¥7,999'")[0] == 0
    assert phone.apps["com.omg.notes"].field("title") == "价格 ¥7,999"
    rc, out = sh(device, YADB + " -screenshot /data/local/tmp/shot.png")
    assert rc == 0 and "screenshot success:/data/local/tmp/shot.png" in out
    assert device.sync.read_bytes("/data/local/tmp/shot.png").startswith(b"\x89PNG\r\n")


def test_app_process_with_an_unknown_class_says_class_not_found(device):
    rc, out = sh(device, "app_process -Djava.class.path=/data/local/tmp/none.jar "
                         "/data/local/tmp com.example.Nope")
    assert rc == 1 and 'ClassNotFoundException: Didn\'t find class "com.example.Nope"' in out


# -- links open in Chrome -----------------------------------------------------------------
def test_adbutils_open_browser_shows_the_page_in_chrome(device, phone):
    device.open_browser("https://example.com")
    assert device.app_current().package == "com.android.chrome"
    dump = device.dump_hierarchy()
    assert 'resource-id="com.android.chrome:id/url_bar"' in dump and 'text="example.com"' in dump
    assert 'text="Example Domain"' in dump
