"""uiautomator2 3.x drives the vphone over the real adb server, exactly as it drives a phone.

``uiautomator2.connect(serial)`` checks/pushes its jar over adb, starts the device server with
``app_process`` (the vphone shell hands that to ``phone.start_uiautomator_server``), pings it
over ``tcp:9008`` and then speaks JSON-RPC. Needs the ``vphone`` fixture from
the ``vphone`` fixture (an object with ``.serial`` and ``.phone``).
"""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("omg_agent.vphone.phone", reason="omg_agent.vphone.phone not available yet")
pytest.importorskip("omg_agent.vphone.adbd", reason="omg_agent.vphone.adbd not available yet")
uiautomator2 = pytest.importorskip("uiautomator2")

pytestmark = pytest.mark.skipif(shutil.which("adb") is None, reason="adb binary not installed")

LAUNCHER = "com.android.launcher3"
SETTINGS = "com.android.settings"
NOTES = "com.omg.notes"


@pytest.fixture
def d(vphone):
    device = uiautomator2.connect(vphone.serial)
    yield device
    device.stop_uiautomator(wait=False)


def center_of(xml: str, text: str) -> tuple[int, int]:
    for node in ET.fromstring(xml.encode("utf-8")).iter("node"):
        if node.get("text") == text:
            left, top, right, bottom = (
                int(v) for v in node.get("bounds", "").replace("][", ",").strip("[]").split(","))
            return (left + right) // 2, (top + bottom) // 2
    raise AssertionError(f"no node with text {text!r} in the dump")


def test_info_reports_the_profile_display(d, vphone):
    info = d.info
    assert info["displayWidth"] == vphone.phone.profile.width
    assert info["displayHeight"] == vphone.phone.profile.height
    assert info["sdkInt"] == vphone.phone.profile.sdk
    assert info["currentPackageName"] == LAUNCHER


def test_dump_hierarchy_is_the_launcher_xml(d):
    xml = d.dump_hierarchy()
    assert "<hierarchy" in xml
    assert 'text="Settings"' in xml


def test_click_on_the_settings_icon_opens_settings(d, vphone):
    x, y = center_of(d.dump_hierarchy(), "Settings")
    d.click(x, y)
    assert vphone.phone.focus()[0] == SETTINGS
    d.press("home")
    assert vphone.phone.focus()[0] == LAUNCHER


def test_screenshot_is_a_pil_image_of_the_profile_size(d, vphone):
    image = d.screenshot()
    assert image.size == (vphone.phone.profile.width, vphone.phone.profile.height)


def test_selectors_find_and_click_ui_objects(d, vphone):
    assert d(text="Settings").exists
    assert not d(text="No such thing").exists
    assert d(text="Settings").get_text() == "Settings"
    assert d(text="Settings").info["clickable"] is True
    d(text="Settings").click()
    assert vphone.phone.focus()[0] == SETTINGS
    d.press("back")
    assert vphone.phone.focus()[0] == LAUNCHER


def test_missing_object_raises_the_clients_not_found_error(d):
    with pytest.raises(uiautomator2.UiObjectNotFoundError):
        d(text="No such thing").click(timeout=0.5)


def test_xpath_click_works_from_the_dump(d, vphone):
    d.xpath('//*[@text="Settings"]').click()
    assert vphone.phone.focus()[0] == SETTINGS


def test_send_keys_and_set_text_fill_the_focused_field(d, vphone):
    d(text="Notes").click()
    d(description="New note").click()
    d(resourceId=f"{NOTES}:id/title_input").click()
    d.send_keys("hello 世界")
    d(resourceId=f"{NOTES}:id/body_input").set_text("body text")
    draft = vphone.phone.state()["apps"][NOTES]["draft"]
    assert draft["title"] == "hello 世界"
    assert draft["body"] == "body text"
    assert d(resourceId=f"{NOTES}:id/body_input").get_text() == "body text"


def test_touch_swipe_and_long_click_reach_the_phone(d, vphone):
    x, y = center_of(d.dump_hierarchy(), "Settings")
    d.touch.down(x, y).up(x, y)
    assert vphone.phone.focus()[0] == SETTINGS
    d.press("home")
    d.swipe(540, 1500, 540, 600, duration=0.1)
    d.long_click(x, y, duration=0.6)
    assert d.info["displayRotation"] == 0


def test_stopping_the_client_stops_the_device_server(vphone):
    device = uiautomator2.connect(vphone.serial)
    assert device.info["displayWidth"] > 0
    device.stop_uiautomator(wait=True)  # returns once /ping no longer answers
    with pytest.raises(ConnectionRefusedError):
        vphone.phone.open_tcp(9008).close()
