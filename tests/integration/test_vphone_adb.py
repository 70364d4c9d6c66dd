"""The vphone behaves like a phone for the real adb binary and adbutils (issue: vphone)."""

from __future__ import annotations

import io
import re
import shlex
import struct
import subprocess
import xml.etree.ElementTree as ET

from PIL import Image

from omg_agent.vphone.phone import ADB_IME

ADB = "adb"


def adb(serial: str, *args: str, binary: bool = False, timeout: float = 30):
    out = subprocess.run([ADB, "-s", serial, *args], capture_output=True, timeout=timeout,
                         stdin=subprocess.DEVNULL, check=True).stdout
    return out if binary else out.decode()


def center_of(xml: str, **attrs: str) -> tuple[int, int]:
    root = ET.fromstring(xml)
    for node in root.iter("node"):
        if all(node.get(k.replace("_", "-")) == v for k, v in attrs.items()):
            left, top, right, bottom = map(int, re.findall(r"-?\d+", node.get("bounds")))
            return (left + right) // 2, (top + bottom) // 2
    raise AssertionError(f"no node with {attrs} in the dump")


def test_adb_devices_lists_the_vphone_with_its_banner(vphone):
    listing = subprocess.run([ADB, "devices", "-l"], capture_output=True, text=True,
                             check=True).stdout
    line = next(ln for ln in listing.splitlines() if ln.startswith(vphone.serial))
    assert "device" in line.split()[1]
    p = vphone.phone.profile
    assert f"product:{p.product}" in line and f"model:{p.model.replace(' ', '_')}" in line


def test_wm_size_and_png_screencap_match_the_profile(vphone):
    p = vphone.phone.profile
    size = adb(vphone.serial, "shell", "wm", "size").strip()
    assert size == f"Physical size: {p.width}x{p.height}"
    png = adb(vphone.serial, "exec-out", "screencap", "-p", binary=True)
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.size == (p.width, p.height)


def test_raw_screencap_has_header_and_every_pixel(vphone):
    p = vphone.phone.profile
    raw = adb(vphone.serial, "exec-out", "screencap", binary=True)
    width, height, fmt = struct.unpack_from("<3I", raw)
    assert (width, height, fmt) == (p.width, p.height, 1)
    assert len(raw) - width * height * 4 in (12, 16)
    assert raw[-width * height * 4:] == vphone.phone.screenshot().tobytes()


def test_uiautomator_dump_then_pull(vphone, tmp_path):
    out = adb(vphone.serial, "shell", "uiautomator", "dump")
    assert "/sdcard/window_dump.xml" in out
    target = tmp_path / "dump.xml"
    subprocess.run([ADB, "-s", vphone.serial, "pull", "/sdcard/window_dump.xml", str(target)],
                   check=True, capture_output=True)
    root = ET.fromstring(target.read_text(encoding="utf-8"))
    assert root.tag == "hierarchy"
    assert any(n.get("text") == "Settings" for n in root.iter("node"))


def test_adbutils_device_api_works_unchanged(vphone, tmp_path):
    d = vphone.device
    p = vphone.phone.profile
    assert d.shell("echo hello") == "hello"
    assert tuple(d.window_size()) == (p.width, p.height)
    src = tmp_path / "blob.bin"
    src.write_bytes(bytes(range(256)) * 4000)
    d.sync.push(str(src), "/sdcard/Download/blob.bin")
    back = tmp_path / "back.bin"
    d.sync.pull("/sdcard/Download/blob.bin", str(back))
    assert back.read_bytes() == src.read_bytes()
    assert d.screenshot().size == (p.width, p.height)
    xml = d.dump_hierarchy()
    x, y = center_of(xml, text="Notes")
    d.click(x, y)
    assert d.app_current().package == "com.omg.notes"
    d.app_start("com.android.settings")
    assert vphone.phone.focus()[0] == "com.android.settings"
    d.app_start("com.omg.notes", ".NotesListActivity")
    assert vphone.phone.focus() == ("com.omg.notes", ".NotesListActivity")
    x, y = center_of(d.dump_hierarchy(), resource_id="com.omg.notes:id/fab_new")
    d.click(x, y)
    d.send_keys("adbutils typed")
    assert vphone.phone.state()["apps"]["com.omg.notes"]["draft"]["title"] == "adbutils typed"


def test_adbutils_swipe_scrolls_nothing_on_home_but_is_accepted(vphone):
    d = vphone.device
    before = vphone.phone.state()
    d.swipe(500, 1800, 500, 600, 0.2)
    assert vphone.phone.state() == before


def test_tapping_settings_then_wifi_switch_flips_state_and_pixels(vphone):
    d = vphone.device
    x, y = center_of(adb(vphone.serial, "exec-out", "uiautomator", "dump", "/dev/tty")
                     .split("UI hierchary dumped")[0], text="Settings")
    adb(vphone.serial, "shell", "input", "tap", str(x), str(y))
    assert "com.android.settings/" in adb(vphone.serial, "shell", "dumpsys", "window")
    before_img = d.screenshot()
    xml = d.dump_hierarchy()
    node = next(n for n in ET.fromstring(xml).iter("node")
                if n.get("resource-id") == "com.android.settings:id/wifi_switch")
    assert node.get("checked") == "true"
    left, top, right, bottom = map(int, re.findall(r"\d+", node.get("bounds")))
    adb(vphone.serial, "shell", "input", "tap", str((left + right) // 2),
        str((top + bottom) // 2))
    assert vphone.phone.state()["apps"]["com.android.settings"]["wifi"] is False
    after_img = d.screenshot()
    box = (left, top, right, bottom)
    assert before_img.crop(box).tobytes() != after_img.crop(box).tobytes()
    outside = (0, bottom + 400, 200, bottom + 600)
    assert before_img.crop(outside).tobytes() == after_img.crop(outside).tobytes()


def _open_new_note(vphone) -> None:
    d = vphone.device
    d.app_start("com.omg.notes")
    x, y = center_of(d.dump_hierarchy(), resource_id="com.omg.notes:id/fab_new")
    d.click(x, y)


def test_input_text_and_ime_broadcast_arrive_exactly_in_notes(vphone):
    d = vphone.device
    _open_new_note(vphone)
    d.shell(["input", "text", "Price%s3599"])
    title_xy = center_of(d.dump_hierarchy(), resource_id="com.omg.notes:id/title_input")
    body_xy = center_of(d.dump_hierarchy(), resource_id="com.omg.notes:id/body_input")
    d.click(*body_xy)
    blank = d.screenshot()
    assert d.shell(["ime", "set", ADB_IME]).startswith("Input method")
    text = "价格 ¥3,599 😀 备忘"
    import base64

    d.shell(["am", "broadcast", "-a", "ADB_INPUT_B64", "--es", "msg",
             base64.b64encode(text.encode()).decode()])
    draft = vphone.phone.state()["apps"]["com.omg.notes"]["draft"]
    assert draft == {"title": "Price 3599", "body": text, "focus": "body"}
    xml = d.dump_hierarchy()
    texts = {n.get("text") for n in ET.fromstring(xml).iter("node")}
    assert {"Price 3599", text} <= texts
    typed = d.screenshot()
    assert title_xy != body_xy
    node = next(n for n in ET.fromstring(xml).iter("node") if n.get("text") == text)
    box = tuple(map(int, re.findall(r"\d+", node.get("bounds"))))
    assert blank.crop(box).tobytes() != typed.crop(box).tobytes()


def test_shell_metacharacters_are_typed_literally_and_run_nothing(vphone):
    d = vphone.device
    _open_new_note(vphone)
    nasty = "a;b&&c|d$(reboot)`id`'q\"<x>(y)\\z $HOME"
    d.send_keys(nasty)  # adbutils joins list args with shell quoting
    assert vphone.phone.state()["apps"]["com.omg.notes"]["draft"]["title"] == nasty
    assert vphone.phone.state()["foreground"] == "com.omg.notes"
    # the same through the adb binary's own argv joining
    d.shell(["input", "keyevent", "KEYCODE_MOVE_END"])
    adb(vphone.serial, "shell", "input", "text", shlex.quote("; echo pwned > /sdcard/p"))
    assert not vphone.phone.fs.exists("/sdcard/p")


def test_several_vphones_run_at_once_each_on_its_own_port(vphone):
    from omg_agent.vphone import adbhost
    from omg_agent.vphone.phone import VirtualPhone

    other = VirtualPhone("compact", seed=5)
    server = other.serve()
    serial = adbhost.connect("127.0.0.1", server.port)
    try:
        assert serial != vphone.serial
        assert adb(serial, "shell", "wm", "size").strip() == "Physical size: 720x1600"
        assert adb(vphone.serial, "shell", "wm", "size").strip() == "Physical size: 1080x2400"
        adb(serial, "shell", "am", "start", "-n", "com.omg.notes/.NotesListActivity")
        assert other.focus()[0] == "com.omg.notes"
        assert vphone.phone.focus()[0] == "com.android.launcher3"
    finally:
        adbhost.disconnect(serial)
        other.close()
