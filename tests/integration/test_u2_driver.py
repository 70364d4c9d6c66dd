"""The uiautomator2 driver on a vphone through the real adb server: it observes what the
phone shows, taps by element id, types unicode byte-exact, launches apps by EN/ZH name."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from omg_agent.core.actions import parse_action
from omg_agent.drivers.base import Driver
from omg_agent.drivers.u2 import U2Driver
from omg_agent.errors import ActionRejected
from omg_agent.perception.uitree import parse_elements

LAUNCHER = "com.android.launcher3"
SETTINGS = "com.android.settings"
NOTES = "com.omg.notes"


@pytest.fixture
def driver(vphone) -> Iterator[U2Driver]:
    drv = U2Driver(vphone.serial)
    try:
        yield drv
    finally:
        drv.close()


def _element(obs, **fields):
    return next(e for e in obs.elements if all(getattr(e, k) == v for k, v in fields.items()))


def test_it_is_a_driver_that_knows_the_vphone(driver: U2Driver, vphone) -> None:
    assert isinstance(driver, Driver)
    info = driver.info()
    sim = vphone.phone.profile
    assert (info.width, info.height, info.density, info.sdk) == (sim.width, sim.height,
                                                                 sim.density, sim.sdk)
    assert (info.status_bar_px, info.nav_bar_px) == (sim.status_bar_height, sim.nav_bar_height)
    assert info.driver == "u2" and info.model == sim.model
    assert driver.profile is not None and driver.profile.name == "vphone-default"


def test_observe_matches_the_phones_own_tree_on_every_app(driver: U2Driver, vphone) -> None:
    phone = vphone.phone
    phone.apps["com.omg.shop"].promo_mode = "never"
    for package in phone.packages():
        phone.start_activity(package)
        obs = driver.observe()
        expected = parse_elements(phone.dump_xml())
        assert [e.bounds for e in obs.elements] == [e.bounds for e in expected], package
        assert [e.label for e in obs.elements] == [e.label for e in expected], package
        assert obs.size == (phone.profile.width, phone.profile.height)
        assert obs.package == package
        assert obs.raw is not None and obs.raw[:2] == b"\xff\xd8"  # the server's JPEG
        assert obs.screen_hash and obs.timings["total"] > 0


def test_tapping_the_wifi_switch_by_element_id_flips_wifi(driver: U2Driver, vphone) -> None:
    vphone.phone.start_activity(SETTINGS)
    obs = driver.observe()
    switch = _element(obs, role="switch", checked=True)
    assert vphone.phone.state()["apps"][SETTINGS]["wifi"] is True
    result = driver.execute([parse_action({"type": "tap", "target": switch.id})], obs)
    assert result.ok and result.outcomes[0].source == "element"
    assert result.outcomes[0].point == switch.center
    assert vphone.phone.state()["apps"][SETTINGS]["wifi"] is False
    assert not _element(driver.observe(), id=switch.id).checked


def test_switch_taps_stay_on_the_screen_and_a_row_tap_ends_the_bundle(driver: U2Driver,
                                                                      vphone) -> None:
    vphone.phone.start_activity(SETTINGS)
    obs = driver.observe()
    switches = [e.id for e in obs.elements if e.role == "switch"]
    display = next(e.id for e in obs.elements if e.text == "Display")
    taps = [parse_action({"type": "tap", "target": i}) for i in [*switches, display, *switches]]
    result = driver.execute(taps, obs)
    # a switch flips in place (predictable); the Display row opens another screen: stop there
    assert len(result.outcomes) == len(switches) + 1
    assert result.dropped == len(switches)
    state = vphone.phone.state()["apps"][SETTINGS]
    assert (state["wifi"], state["bluetooth"]) == (False, True)
    assert vphone.phone.apps[SETTINGS].screen.name == "display"


@pytest.mark.parametrize("text", [
    "héllo 世界 😀",
    "quotes ' \" `back` $HOME %s; rm -rf / && echo | cat > x < y (a) \\ end",
    "line one\nline two\ttabbed",
    "  spaces around  ",
])
def test_typed_unicode_arrives_in_notes_exactly(driver: U2Driver, vphone, text: str) -> None:
    driver.launch("Notes")
    driver.execute([parse_action({"type": "tap", "target": {"desc": "New note"}})])
    obs = driver.observe()
    body = _element(obs, resource_id=f"{NOTES}:id/body_input")
    result = driver.execute([parse_action({"type": "type", "text": text, "target": body.id})],
                            obs)
    assert result.ok, result
    # quoted as the adb driver quotes it (the first 37 characters of a long one), with its
    # length: every driver reports typing in the same words (relay round 4 saw both)
    assert f"type {(text if len(text) <= 40 else text[:37] + '...')!r} ({len(text)} chars)" \
        in result.outcomes[0].detail
    assert vphone.phone.state()["apps"][NOTES]["draft"]["body"] == text


def test_clear_then_type_replaces_the_field(driver: U2Driver, vphone) -> None:
    driver.launch(NOTES)
    driver.execute([parse_action({"type": "tap", "target": {"desc": "New note"}})])
    obs = driver.observe()
    title = _element(obs, resource_id=f"{NOTES}:id/title_input")
    driver.execute([parse_action({"type": "type", "text": "first", "target": title.id})], obs)
    driver.execute([parse_action({"type": "type", "text": "第二", "clear": True})])
    assert vphone.phone.state()["apps"][NOTES]["draft"]["title"] == "第二"


@pytest.mark.parametrize(("name", "package"), [
    ("备忘录", NOTES), ("Notes", NOTES), ("设置", SETTINGS), ("Shop", "com.omg.shop"),
    ("信息", "com.omg.messages"), ("com.omg.feed", "com.omg.feed")])
def test_launch_by_english_or_chinese_name(driver: U2Driver, vphone, name: str,
                                           package: str) -> None:
    driver.launch(name)
    assert vphone.phone.focus()[0] == package
    assert driver.current_app()[0] == package


def test_launching_an_unknown_app_is_rejected(driver: U2Driver) -> None:
    with pytest.raises(ActionRejected, match="no app called 'Nonexistent'"):
        driver.launch("Nonexistent")


def test_current_app_follows_the_phone(driver: U2Driver, vphone) -> None:
    assert driver.current_app() == vphone.phone.focus()
    vphone.phone.start_activity(SETTINGS)
    assert driver.current_app()[0] == SETTINGS
    driver.execute([parse_action({"type": "home"})])
    assert driver.current_app()[0] == LAUNCHER


def test_keys_and_swipes_reach_the_phone(driver: U2Driver, vphone) -> None:
    vphone.phone.start_activity("com.omg.feed")
    before = driver.observe()
    result = driver.execute([parse_action({"type": "swipe", "direction": "up",
                                           "distance": 300})], before)
    assert result.ok
    after = driver.observe()
    assert after.elements[2].bounds != before.elements[2].bounds  # the list scrolled
    driver.execute([parse_action({"type": "back"})])
    assert vphone.phone.focus()[0] == LAUNCHER


def test_a_stopped_u2_server_is_restarted(driver: U2Driver, vphone) -> None:
    driver.observe()
    vphone.phone.stop_uiautomator_server()
    assert driver.observe().package == LAUNCHER


def test_text_only_drawn_in_a_webview_is_found_by_ocr_and_tapped(driver: U2Driver,
                                                                 vphone) -> None:
    vphone.phone.apps["com.omg.shop"].promo_mode = "never"
    driver.launch("商城")
    driver.execute([parse_action({"type": "tap",
                                  "target": {"resource_id": "com.omg.shop:id/promotions"}})])
    obs = driver.observe()
    assert not any(e.label == "MacBook Air 13" for e in obs.elements)  # not in the tree
    result = driver.execute([parse_action({"type": "tap", "target": "text=MacBook Air 13"})],
                            obs)
    assert result.ok and result.outcomes[0].source == "ocr"
    assert vphone.phone.focus() == ("com.omg.shop", ".ProductActivity")


def test_execute_waits_for_a_spinner_to_settle_as_the_adb_driver_does(driver: U2Driver,
                                                                     vphone) -> None:
    shop = vphone.phone.apps["com.omg.shop"]
    shop.promo_mode, shop.search_delay = "never", 0.6
    vphone.phone.start_activity("com.omg.shop")
    obs = driver.observe()
    field = _element(obs, resource_id="com.omg.shop:id/search_input")
    result = driver.execute([
        parse_action({"type": "type", "text": "phone", "target": field.id, "clear": True}),
        parse_action({"type": "tap", "target": {"resource_id": "com.omg.shop:id/search"}})],
        obs)
    assert result.ok and "settle_timeout" not in result.timings
    assert 0.5 < result.timings["settle"] < 2.0  # the spinner turned, then results stood still
    assert vphone.phone.state()["apps"]["com.omg.shop"]["results_loaded"]


def test_typing_into_a_password_field_reports_only_its_length(driver: U2Driver, vphone) -> None:
    vphone.phone.start_activity("com.omg.login")
    obs = driver.observe()
    field = next(e for e in obs.elements if e.password)
    result = driver.execute([parse_action({"type": "type", "text": "hunter2-pw",
                                           "target": field.id})], obs)
    assert result.ok, result
    detail = result.outcomes[0].detail
    assert "type <redacted 10 chars>" in detail and "hunter2" not in detail
