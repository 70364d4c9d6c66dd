"""The system surfaces and Recorder (issue 36, family D) through the real adb server and
uiautomator2, as a client drives a phone: the permission dialog as its own window, the shade
pulled from the top edge, the share sheet, the web form under a keyboard that resizes it,
``pm grant`` / ``dumpsys package``, ``cmd statusbar``."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET

import pytest

uiautomator2 = pytest.importorskip("uiautomator2")

pytestmark = pytest.mark.skipif(shutil.which("adb") is None, reason="adb binary not installed")

REC = "com.omg.recorder"
CHROME = "com.android.chrome"
CONTROLLER = "com.android.permissioncontroller"
SYSTEMUI = "com.android.systemui"


def sh(vphone, cmd: str) -> str:
    return vphone.device.shell(cmd)


def dump(vphone) -> list[ET.Element]:
    xml = sh(vphone, "uiautomator dump /dev/tty")
    xml = xml[xml.index("<?xml"):xml.rindex("</hierarchy>") + len("</hierarchy>")]
    return list(ET.fromstring(xml.encode()).iter("node"))


def center(nodes: list[ET.Element], **attr: str) -> tuple[int, int]:
    for n in nodes:
        if all(n.get(k) == v for k, v in attr.items()):
            left, top, right, bottom = (int(v) for v in n.get("bounds", "").replace(
                "][", ",").strip("[]").split(","))
            return (left + right) // 2, (top + bottom) // 2
    raise AssertionError(f"no node {attr}")


def tap(vphone, **attr: str) -> None:
    x, y = center(dump(vphone), **attr)
    sh(vphone, f"input tap {x} {y}")


def test_recorder_asks_for_the_microphone_over_adb(vphone) -> None:
    sh(vphone, f"monkey -p {REC} -c android.intent.category.LAUNCHER 1")
    tap(vphone, **{"resource-id": f"{REC}:id/record_button"})
    assert CONTROLLER in sh(vphone, "dumpsys window | grep mCurrentFocus")
    tap(vphone, text="While using the app")
    assert "android.permission.RECORD_AUDIO: granted=true" in sh(vphone, f"dumpsys package {REC}")
    tap(vphone, **{"resource-id": f"{REC}:id/record_button"})
    vphone.phone.apps[REC].advance(4)
    tap(vphone, **{"resource-id": f"{REC}:id/stop_button"})
    assert vphone.phone.state()["apps"][REC]["recordings"][0]["seconds"] >= 4


def test_pm_revoke_then_the_dialog_asks_again(vphone) -> None:
    sh(vphone, f"pm grant {REC} android.permission.RECORD_AUDIO")
    sh(vphone, f"pm revoke {REC} android.permission.RECORD_AUDIO")
    assert "granted=false" in sh(vphone, f"dumpsys package {REC}")
    sh(vphone, f"am start -n {REC}/.RecorderActivity")
    tap(vphone, **{"resource-id": f"{REC}:id/record_button"})
    assert any(n.get("package") == CONTROLLER for n in dump(vphone))


def test_the_shade_through_uiautomator2(vphone) -> None:
    phone = vphone.phone
    phone.surfaces.post_notification("com.omg.messages", "Alice", "See you at 5?",
                                     {"contact": "Alice"})
    d = uiautomator2.connect(vphone.serial)
    try:
        d.swipe(540, 5, 540, 1400, duration=0.1)
        assert phone.focus()[0] == SYSTEMUI
        d(description="Bluetooth").click()
        assert phone.state()["apps"]["com.android.settings"]["bluetooth"] is True
        d(text="See you at 5?").click()
        assert phone.focus() == ("com.omg.messages", ".ConversationActivity")
    finally:
        d.stop_uiautomator(wait=False)


def test_cmd_statusbar_and_clear_all_over_adb(vphone) -> None:
    vphone.phone.surfaces.post_notification("com.omg.notes", "Backup", "Notes backed up")
    sh(vphone, "cmd statusbar expand-notifications")
    assert "NotificationShade" in sh(vphone, "dumpsys window | grep mCurrentFocus")
    tap(vphone, text="Clear all")
    assert vphone.phone.state()["system"]["shade"]["notifications"] == []
    sh(vphone, "cmd statusbar collapse")
    assert SYSTEMUI not in sh(vphone, "dumpsys window | grep mCurrentFocus")


def test_share_and_the_web_form_through_uiautomator2(vphone) -> None:
    phone = vphone.phone
    d = uiautomator2.connect(vphone.serial)
    try:
        sh(vphone, "am start -a android.intent.action.VIEW -d https://example.com")
        d(resourceId=f"{CHROME}:id/menu_button").click()
        d(text="Share…").click()
        d(description="Notes").click()
        assert phone.state()["apps"]["com.omg.notes"]["draft"]["title"] == "Example Domain"
        sh(vphone, "am start -a android.intent.action.VIEW -d https://forms.omg.example/signup")
        x, y = center(dump(vphone), text="Full name")
        d.click(x, y + 120)  # the unlabelled input under its label
        d.send_keys("Ann Lee")
        assert not d(text="Submit").exists  # under the keyboard: the window was resized
        d.press("back")
        d(text="Choose a plan ▼").click()
        d(text="Team").click()
        d(text="you@example.com").click()
        d.send_keys("ann@example.org")
        d.press("back")
        d(text="Submit").click()
        assert phone.state()["apps"][CHROME]["forms"] == [
            {"name": "Ann Lee", "email": "ann@example.org", "promo": "", "plan": "Team"}]
    finally:
        d.stop_uiautomator(wait=False)
