"""A dialog is its own window in ``uiautomator dump``: from Android 11 beside the app's,
before it the only one dumped (issue 29)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from omg_agent.perception.elementlist import render
from omg_agent.perception.uitree import parse_screen
from omg_agent.vphone.phone import VirtualPhone

SHOP = "com.omg.shop"


def promo_dump(profile: str) -> str:
    phone = VirtualPhone(profile)
    try:
        phone.apps[SHOP].promo_mode = "always"  # type: ignore[attr-defined]
        phone.start_activity(SHOP)
        return phone.dump_xml()
    finally:
        phone.close()


def texts(window: ET.Element) -> set[str]:
    return {n.get("text", "") for n in window.iter("node")} - {""}


def test_the_shop_promo_dialog_is_a_window_of_its_own_on_android_14():
    windows = ET.fromstring(promo_dump("default").encode()).findall("node")
    assert len(windows) == 2
    app, promo = windows
    assert "Limited offer! 限时优惠" in texts(promo) and "Limited offer! 限时优惠" not in texts(app)
    assert "Search" in texts(app)
    assert promo.get("package") == SHOP and promo.get("bounds") != app.get("bounds")
    assert promo.get("bounds") == promo[0].get("bounds")  # the window is the dialog's panel


def test_before_android_11_only_the_dialog_window_is_dumped():
    windows = ET.fromstring(promo_dump("legacy").encode()).findall("node")
    assert len(windows) == 1 and "Search" not in texts(windows[0])
    assert "Limited offer! 限时优惠" in texts(windows[0])


def test_the_element_list_shows_the_promo_as_a_popup_and_nothing_beneath_it():
    screen = parse_screen(promo_dump("default"))
    lines = render(screen.elements, screen.size).splitlines()
    assert lines[0] == f"-- popup: {SHOP} --"
    assert {"No thanks", "Close"} <= {e.label for e in screen.elements}
    assert "Search" not in {e.label for e in screen.elements} and screen.covered > 0


@pytest.mark.parametrize("profile", ["default", "legacy"])
def test_without_a_dialog_the_app_is_the_one_window(profile: str) -> None:
    phone = VirtualPhone(profile)
    try:
        phone.start_activity("com.omg.notes")
        assert len(ET.fromstring(phone.dump_xml().encode()).findall("node")) == 1
    finally:
        phone.close()
