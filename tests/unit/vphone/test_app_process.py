"""``app_process`` reads the real argument order and runs yadb once it was pushed (issue 29)."""

from __future__ import annotations

import io
import shlex
from collections.abc import Iterator

import pytest
from PIL import Image

from omg_agent.vphone.phone import VirtualPhone
from omg_agent.vphone.shell.commands.app_process import parse_launch

try:
    from .shell_fake_phone import run
except ImportError:
    from shell_fake_phone import run

NOTES = "com.omg.notes"
YADB = "app_process -Djava.class.path=/data/local/tmp/yadb /data/local/tmp com.ysbing.yadb.Main"


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    p = VirtualPhone()
    p.fs.write("/data/local/tmp/yadb", b"dex\n035\x00")  # as `adb push yadb /data/local/tmp`
    yield p
    p.close()


def focus_title(phone: VirtualPhone) -> None:
    phone.start_activity(NOTES)
    phone.tap_view(resource_id=f"{NOTES}:id/fab_new")


def test_the_launch_is_parsed_in_app_mains_order() -> None:
    launch = parse_launch(shlex.split(YADB + " -keyboard 'a b'")[1:], {})
    assert launch is not None
    assert (launch.classpath, launch.cmd_dir, launch.cls, launch.args) == \
        (["/data/local/tmp/yadb"], "/data/local/tmp", "com.ysbing.yadb.Main",
         ["-keyboard", "a b"])
    from_env = parse_launch(["/system/bin", "--nice-name=x", "com.example.Main", "-v"],
                            {"CLASSPATH": "/data/local/tmp/a.jar:/data/local/tmp/b.jar"})
    assert from_env is not None and from_env.cls == "com.example.Main"
    assert from_env.classpath == ["/data/local/tmp/a.jar", "/data/local/tmp/b.jar"]
    assert parse_launch(["-Xmx64m", "/data/local/tmp"], {}) is None


def test_yadb_keyboard_types_any_script_into_the_focused_field(phone):
    focus_title(phone)
    status, out, err = run(phone.shell, YADB + " -keyboard '价格 ¥7,999'")
    assert (status, err) == (0, "")
    assert phone.apps[NOTES].field("title") == "价格 ¥7,999"


def test_yadb_screenshot_writes_a_png_of_the_screen(phone):
    status, out, _ = run(phone.shell, YADB + " -screenshot /sdcard/shot.png")
    assert status == 0 and "screenshot success:/sdcard/shot.png" in out
    image = Image.open(io.BytesIO(phone.fs.read("/sdcard/shot.png")))
    assert (image.format, image.size) == ("PNG", (phone.profile.width, phone.profile.height))
    run(phone.shell, YADB + " -screenshot")
    assert phone.fs.read("/data/local/tmp/yadb_screenshot.png").startswith(b"\x89PNG")


def test_yadb_layout_writes_the_hierarchy_dump(phone):
    assert run(phone.shell, YADB + " -layout")[0] == 0
    xml = phone.fs.read("/data/local/tmp/yadb_layout_dump.xml").decode()
    assert xml == phone.dump_xml()


def test_yadb_reads_the_clipboard_ctrl_c_filled(phone):
    focus_title(phone)
    phone.input_text("Milk")
    run(phone.shell, "input keycombination KEYCODE_CTRL_LEFT KEYCODE_A")
    run(phone.shell, "input keycombination KEYCODE_CTRL_LEFT KEYCODE_C")
    assert run(phone.shell, YADB + " -readClipboard")[1] == "Milk\n"


def test_yadb_with_an_unknown_option_says_invalid_argument(phone):
    assert run(phone.shell, YADB + " -fly") == (0, "Invalid argument\n", "")


def test_yadb_not_pushed_is_a_class_not_found(phone):
    phone.fs.remove("/data/local/tmp/yadb")
    status, _, err = run(phone.shell, YADB + " -keyboard hi")
    assert status == 1
    assert err.startswith('java.lang.ClassNotFoundException: Didn\'t find class '
                          '"com.ysbing.yadb.Main" on path: DexPathList[[zip file '
                          '"/data/local/tmp/yadb"]')


def test_the_directory_argument_is_never_read_as_the_class(phone):
    status, _, err = run(phone.shell, "app_process -Djava.class.path=/data/local/tmp/yadb "
                                      "/data/local/tmp com.example.Unknown")
    assert status == 1 and '"com.example.Unknown"' in err and "/data/local/tmp'" not in err
    status, _, err = run(phone.shell, "app_process /data/local/tmp")
    assert status == 1 and "no class name" in err
