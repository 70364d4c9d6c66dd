"""A touch-modal popup takes every touch: nothing in the windows below it is offered
(issue 29). Dialogs and menus of the app and system dialogs are modal; an autocomplete
dropdown under a focused field, another app's overlay and a toast are not."""

from __future__ import annotations

from omg_agent.perception.elementlist import render
from omg_agent.perception.uitree import parse_screen

from .dumpkit import dump, nav_bar, node, status_bar

APP_BUTTON = node(cls="android.widget.Button", text="Checkout", clickable="true",
                  bounds="[40,2000][1040,2120]")
SEARCH = node(cls="android.widget.EditText", text="head", clickable="true", focusable="true",
              focused="true", bounds="[40,200][1040,320]")


def app(*children: str) -> str:
    return node(*children, bounds="[0,0][1080,2400]")


def dialog(pkg: str = "com.app", clickable: str = "true") -> str:
    return node(node(cls="android.widget.TextView", text="Leave this page?", pkg=pkg,
                     bounds="[120,1000][960,1080]"),
                node(cls="android.widget.Button", text="Leave", clickable=clickable, pkg=pkg,
                     bounds="[700,1200][940,1280]"),
                pkg=pkg, bounds="[88,900][992,1320]")


def labels(xml: str) -> list[str]:
    return [e.label for e in parse_screen(xml).elements]


def test_the_apps_own_dialog_hides_the_app_beneath_it():
    screen = parse_screen(dump(app(APP_BUTTON), dialog(), status_bar(), nav_bar()))
    assert [e.label for e in screen.elements] == ["Leave this page?", "Leave"]
    assert screen.covered == 1
    assert render(screen.elements, screen.size).splitlines()[0] == "-- popup: com.app --"


def test_a_system_dialog_is_modal_over_another_app():
    assert labels(dump(app(APP_BUTTON), dialog(pkg="android"))) == ["Leave this page?",
                                                                    "Leave"]


def test_an_autocomplete_dropdown_leaves_the_focused_field_usable():
    dropdown = node(node(cls="android.widget.TextView", text="headphones", clickable="true",
                         bounds="[40,330][1040,430]"), bounds="[40,330][1040,900]")
    assert labels(dump(app(SEARCH, APP_BUTTON), dropdown)) == ["head", "Checkout",
                                                               "headphones"]


def test_another_apps_overlay_lets_touches_through():
    bubble = node(node(cls="android.widget.ImageView", desc="Chat head", clickable="true",
                       pkg="com.chat", bounds="[900,600][1060,760]"),
                  pkg="com.chat", bounds="[900,600][1060,760]")
    assert labels(dump(app(APP_BUTTON), bubble)) == ["Checkout", "Chat head"]


def test_a_popup_with_nothing_to_tap_is_not_modal():
    assert labels(dump(app(APP_BUTTON), dialog(clickable="false"))) == [
        "Checkout", "Leave this page?", "Leave"]


def test_bars_over_a_dialog_still_offer_their_buttons():
    screen = parse_screen(dump(app(APP_BUTTON), dialog(), nav_bar()), system_bars=True)
    assert {"Back", "Home", "Leave"} <= {e.label for e in screen.elements}
    assert "Checkout" not in {e.label for e in screen.elements}
