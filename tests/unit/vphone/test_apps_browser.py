"""Chrome opens http(s) links from VIEW intents and shows built-in pages (issue 29)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator

import pytest

from omg_agent.vphone.apps.browser_pages import display_url, normalize
from omg_agent.vphone.phone import VirtualPhone

try:
    from .shell_fake_phone import run
except ImportError:
    from shell_fake_phone import run

CHROME = "com.android.chrome"
VIEW = "am start -a android.intent.action.VIEW -d"


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    p = VirtualPhone()
    yield p
    p.close()


def nodes(phone: VirtualPhone) -> list[ET.Element]:
    return list(ET.fromstring(phone.dump_xml().encode()).iter("node"))


def url_bar(phone: VirtualPhone) -> str:
    bar = next(n for n in nodes(phone) if n.get("resource-id") == f"{CHROME}:id/url_bar")
    return bar.get("text", "")


def webview(phone: VirtualPhone) -> ET.Element:
    return next(n for n in nodes(phone) if n.get("class") == "android.webkit.WebView")


def test_a_view_intent_opens_the_link_in_chrome(phone):
    status, out, err = run(phone.shell, f"{VIEW} https://example.com")
    assert (status, err) == (0, "")
    assert out == "Starting: Intent { act=android.intent.action.VIEW " \
                  "dat=https://example.com/... }\n"
    assert phone.focus() == (CHROME, "org.chromium.chrome.browser.ChromeTabbedActivity")
    assert url_bar(phone) == "example.com"
    texts = [n.get("text") for n in webview(phone).iter("node")]
    assert "Example Domain" in texts and "More information..." in texts
    assert phone.state()["apps"][CHROME]["url"] == "https://example.com/"


def test_the_canvas_page_is_one_webview_leaf_in_the_dump(phone):
    run(phone.shell, f"{VIEW} https://sale.omg-shop.example/flash")
    assert url_bar(phone) == "sale.omg-shop.example/flash"
    assert len(list(webview(phone))) == 0  # drawn, but no child nodes
    assert not any("Flash Sale" in (n.get("text") or "") for n in nodes(phone))


def test_an_unknown_site_shows_chromes_cant_be_reached_page(phone):
    run(phone.shell, f"{VIEW} http://nowhere.test/a?b=1")
    assert url_bar(phone) == "nowhere.test/a?b=1"
    assert any(n.get("text") == "This site can't be reached" for n in nodes(phone))


def test_back_walks_the_tab_history_then_leaves_chrome(phone):
    run(phone.shell, f"{VIEW} https://example.com")
    phone.tap_view(text="More information...")
    assert url_bar(phone) == "www.iana.org/help/example-domains"
    run(phone.shell, "input keyevent KEYCODE_BACK")
    assert url_bar(phone) == "example.com"
    run(phone.shell, "input keyevent KEYCODE_BACK")
    run(phone.shell, "input keyevent KEYCODE_BACK")  # the new tab page, then home
    assert phone.focus()[0] == "com.android.launcher3"


def test_typing_an_address_in_the_url_bar_goes_there(phone):
    phone.start_activity(CHROME)
    phone.tap_view(resource_id=f"{CHROME}:id/url_bar")
    assert phone.keyboard_shown()
    run(phone.shell, "input text example.com")
    run(phone.shell, "input keyevent KEYCODE_ENTER")
    assert url_bar(phone) == "example.com"
    assert phone.apps[CHROME].state()["visited"] == ["https://example.com/"]


def test_only_web_links_resolve_to_chrome(phone):
    out = run(phone.shell, "cmd package resolve-activity --brief "
                           "-a android.intent.action.VIEW -d https://example.com")[1]
    assert out.splitlines()[-1] == f"{CHROME}/com.google.android.apps.chrome.Main"
    status, _, err = run(phone.shell, f"{VIEW} mailto:someone@example.com")
    assert status == 0 and "unable to resolve Intent" in err
    assert phone.focus()[0] == "com.android.launcher3"


@pytest.mark.parametrize(("typed", "url"), [
    ("example.com", "https://example.com/"),
    ("HTTP://Example.COM/Path?q=1", "http://example.com/Path?q=1"),
    ("cheap phones", "https://www.google.com/search?q=cheap+phones"),
])
def test_what_is_typed_becomes_a_url(typed: str, url: str) -> None:
    assert normalize(typed) == url


def test_the_url_bar_hides_the_scheme_and_a_lone_slash() -> None:
    assert display_url("https://example.com/") == "example.com"
    assert display_url("https://a.example/x/y") == "a.example/x/y"
