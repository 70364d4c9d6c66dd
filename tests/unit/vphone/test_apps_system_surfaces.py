"""The phone's system surfaces (issue 36, family D): the runtime permission dialog, the
notification shade with quick settings, the share sheet, and the pm / dumpsys / cmd
statusbar commands that read and drive them."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator

import pytest

from omg_agent.vphone.phone import VirtualPhone

try:
    from .shell_fake_phone import run
except ImportError:
    from shell_fake_phone import run

REC = "com.omg.recorder"
MSG = "com.omg.messages"
NOTES = "com.omg.notes"
CONTROLLER = "com.android.permissioncontroller"
SYSTEMUI = "com.android.systemui"


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    p = VirtualPhone()
    yield p
    p.close()


def nodes(phone: VirtualPhone) -> list[ET.Element]:
    return list(ET.fromstring(phone.dump_xml().encode()).iter("node"))


def texts(phone: VirtualPhone) -> set[str]:
    return {n.get("text", "") for n in nodes(phone)}


def ask_mic(phone: VirtualPhone) -> None:
    phone.start_activity(REC)
    phone.tap_view(resource_id=f"{REC}:id/record_button")


# -- permissions ------------------------------------------------------------------------
def test_a_permission_request_shows_the_controller_dialog_as_its_own_window(phone) -> None:
    ask_mic(phone)
    assert phone.focus() == (CONTROLLER, ".permission.ui.GrantPermissionsActivity")
    dialog = [n for n in nodes(phone) if n.get("package") == CONTROLLER]
    assert {n.get("text") for n in dialog} >= {"Allow Recorder to record audio?",
                                               "While using the app", "Only this time",
                                               "Don't allow"}
    phone.tap_view(text="While using the app")
    assert phone.focus()[0] == REC
    assert phone.state()["system"]["permissions"]["grants"] == {REC: {"microphone": "foreground"}}


def test_the_dialog_speaks_chinese_on_a_chinese_phone(phone) -> None:
    phone.set_locale("zh-CN")
    ask_mic(phone)
    assert {"要允许“录音机”录制音频吗？", "仅在使用该应用时允许", "仅限这一次",
            "不允许"} <= texts(phone)


def test_two_denials_stop_the_dialog_and_back_is_not_a_denial(phone) -> None:
    ask_mic(phone)
    phone.key(4)  # BACK: dismissed, asks again next time
    assert phone.focus()[0] == REC
    for _ in range(2):
        phone.tap_view(resource_id=f"{REC}:id/record_button")
        phone.tap_view(text="Don't allow")
    phone.tap_view(resource_id=f"{REC}:id/record_button")
    assert phone.focus()[0] == REC  # no dialog any more: the app shows its rationale
    assert phone.find_view(resource_id=f"{REC}:id/rationale") is not None
    assert [a["answer"] for a in phone.state()["system"]["permissions"]["answers"]] == [
        "dismissed", "denied", "denied"]


def test_the_dialog_waits_in_its_app_while_another_app_is_in_front(phone) -> None:
    ask_mic(phone)
    phone.key(3)
    assert phone.focus()[0] == "com.android.launcher3"
    phone.start_activity(REC)
    assert phone.focus()[0] == CONTROLLER


def test_only_this_time_ends_when_the_app_stops(phone) -> None:
    ask_mic(phone)
    phone.tap_view(text="Only this time")
    assert phone.surfaces.has_permission(REC, "microphone")
    phone.force_stop(REC)
    assert not phone.surfaces.has_permission(REC, "microphone")


def test_pm_grant_revoke_and_dumpsys_package_share_the_record(phone) -> None:
    shell = phone.shell
    assert run(shell, f"pm grant {REC} android.permission.RECORD_AUDIO")[0] == 0
    assert phone.surfaces.has_permission(REC, "microphone")
    out = run(shell, f"dumpsys package {REC}")[1]
    assert "android.permission.RECORD_AUDIO: granted=true" in out
    run(shell, f"pm revoke {REC} android.permission.RECORD_AUDIO")
    assert "android.permission.RECORD_AUDIO: granted=false" in run(
        shell, f"dumpsys package {REC}")[1]
    code, _, err = run(shell, f"pm grant {REC} android.permission.FLY")
    assert code == 255 and "Unknown permission" in err


# -- the shade --------------------------------------------------------------------------
def post_two(phone: VirtualPhone) -> None:
    phone.surfaces.post_notification(MSG, "Alice", "See you at 5?", {"contact": "Alice"})
    phone.surfaces.post_notification(NOTES, "Backup", "Notes backed up")


def test_a_swipe_from_the_top_edge_opens_the_shade_and_a_swipe_up_closes_it(phone) -> None:
    post_two(phone)
    phone.swipe(540, 10, 540, 1200)
    assert phone.focus() == (SYSTEMUI, ".NotificationShade")
    assert {"Alice", "See you at 5?", "Backup", "Clear all", "Wi-Fi", "Bluetooth"} <= texts(phone)
    phone.swipe(540, 1800, 540, 600)
    assert phone.focus()[0] != SYSTEMUI


def test_a_swipe_lower_down_is_not_a_pull(phone) -> None:
    phone.swipe(540, 600, 540, 1600)
    assert phone.focus()[0] != SYSTEMUI


def test_tapping_a_notification_opens_its_conversation(phone) -> None:
    post_two(phone)
    run(phone.shell, "cmd statusbar expand-notifications")
    phone.tap_view(text="See you at 5?")
    assert phone.focus() == (MSG, ".ConversationActivity")
    assert phone.apps[MSG].screen.params["contact"] == "Alice"
    assert [o["title"] for o in phone.state()["system"]["shade"]["opened"]] == ["Alice"]


def test_a_sideways_swipe_dismisses_one_and_clear_all_the_rest(phone) -> None:
    post_two(phone)
    phone.surfaces.shade.expand()
    row = phone.find_view(text="Backup")
    assert row is not None
    x, y = row.center
    phone.swipe(x - 300, y, x + 400, y)
    shade = phone.state()["system"]["shade"]
    assert [n["title"] for n in shade["notifications"]] == ["Alice"]
    phone.tap_view(text="Clear all")
    assert phone.state()["system"]["shade"]["notifications"] == []
    assert "No notifications" in texts(phone)


def test_quick_settings_tiles_are_the_settings_switches(phone) -> None:
    phone.surfaces.shade.expand()
    tile = next(n for n in nodes(phone) if n.get("content-desc") == "Bluetooth")
    assert (tile.get("checkable"), tile.get("checked")) == ("true", "false")
    phone.tap_view(desc="Bluetooth")
    assert phone.state()["apps"]["com.android.settings"]["bluetooth"] is True
    assert phone.settings["global"]["bluetooth_on"] == "1"
    phone.key(4)
    assert phone.focus()[0] != SYSTEMUI


# -- the share sheet --------------------------------------------------------------------
def test_chrome_shares_a_page_into_a_new_note(phone) -> None:
    phone.open_url("https://example.com")
    phone.tap_view(resource_id="com.android.chrome:id/menu_button")
    phone.tap_view(text="Share…")
    assert phone.focus() == ("com.android.intentresolver", ".ChooserActivity")
    assert {"Share with", "Example Domain", "Notes", "Messages"} <= texts(phone)
    phone.tap_view(desc="Notes")
    assert phone.state()["apps"][NOTES]["draft"] == {
        "title": "Example Domain", "body": "https://example.com/", "focus": None}


def test_back_closes_the_share_sheet_and_nothing_is_delivered(phone) -> None:
    phone.open_url("https://example.com")
    phone.surfaces.share("com.android.chrome", "Example Domain", "https://example.com/")
    phone.key(4)
    assert phone.focus()[0] == "com.android.chrome"
    assert phone.state()["system"]["share"] == {"pending": None, "delivered": []}


def test_sharing_to_messages_starts_a_draft(phone) -> None:
    phone.open_url("https://example.com")
    phone.surfaces.share("com.android.chrome", "Example Domain", "https://example.com/")
    phone.tap_view(desc="Messages")
    assert phone.focus() == (MSG, ".NewMessageActivity")
    assert phone.apps[MSG].field("body") == "https://example.com/"


def test_a_touch_outside_closes_the_menu_and_the_share_sheet(phone) -> None:
    phone.open_url("https://example.com")
    phone.tap_view(resource_id="com.android.chrome:id/menu_button")
    phone.tap(100, 1800)
    assert phone.find_view(text="Share…") is None
    phone.surfaces.share("com.android.chrome", "Example Domain", "https://example.com/")
    phone.tap(1000, 2280)  # on the sheet, off its targets: it stays
    assert phone.focus()[0] == "com.android.intentresolver"
    phone.tap(540, 400)  # above it
    assert phone.focus()[0] == "com.android.chrome"


def test_a_blocked_permission_is_allowed_again_on_its_page(phone) -> None:
    phone.surfaces.permissions.block(REC, "microphone")
    ask_mic(phone)
    assert phone.focus()[0] == REC  # no dialog: denied for good, the rationale shows
    phone.tap_view(resource_id=f"{REC}:id/open_settings")
    assert phone.focus() == (CONTROLLER, ".permission.ui.AppPermissionActivity")
    radios = [n.get("checked") for n in nodes(phone)
              if n.get("class") == "android.widget.RadioButton"]
    assert radios == ["false", "false", "true"]  # while using / ask every time / don't allow
    phone.tap_view(resource_id=f"{CONTROLLER}:id/foreground_radio_button")
    phone.key(4)
    assert phone.focus()[0] == REC and phone.surfaces.has_permission(REC, "microphone")
    assert phone.state()["system"]["permissions"]["answers"][-1]["answer"] == \
        "settings:foreground"
    phone.tap_view(resource_id=f"{REC}:id/open_settings")  # the rationale is still up
    phone.tap_view(resource_id=f"{CONTROLLER}:id/ask_radio_button")
    phone.key(4)
    phone.tap_view(resource_id=f"{REC}:id/record_button")
    assert phone.focus()[0] == CONTROLLER  # "Ask every time": the dialog is back


def test_sharing_to_markor_creates_a_document_with_the_text(phone) -> None:
    phone.open_url("https://example.com")
    phone.surfaces.share("com.android.chrome", "Example Domain", "https://example.com/")
    phone.tap_view(desc="Markor")
    assert phone.focus()[0] == "com.omg.markor"
    markor = phone.apps["com.omg.markor"]
    assert markor.field("name") == "Example Domain"
    markor.create()
    assert markor.read("Example Domain.md") == "https://example.com/"
