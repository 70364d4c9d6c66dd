"""The scan action on vphone through the real adb server (issue 27, "Done means"): Feed's
60 posts and Shop's 24 products each read once though pages overlap, an endless feed
stopped at the bound, a feed whose counts change while it is read, and the scroll back."""

from __future__ import annotations

import re

import pytest

from omg_agent.core.actions import AnchorTarget, Launch, Scan, Tap
from omg_agent.drivers.adb import AdbDriver
from omg_agent.drivers.base import Driver
from omg_agent.drivers.scanning import MAX_PAGES
from omg_agent.drivers.u2 import U2Driver
from omg_agent.vphone.apps.shop_catalog import format_price

FEED = "com.omg.feed"
SHOP = "com.omg.shop"


def scan(driver: Driver, **request) -> str:
    result = driver.execute([Scan(**request)])
    assert result.ok, result.outcomes
    return result.outcomes[0].detail


def items(detail: str) -> list[str]:
    return [line for line in detail.splitlines() if line.startswith("#")]


def test_scan_reads_every_one_of_feeds_60_posts_once_in_order(vphone):
    feed = vphone.phone.apps[FEED]
    with AdbDriver(vphone.serial) as driver:
        driver.execute([Launch(app=FEED)])
        detail = scan(driver)
    posts = feed.state()["posts"]
    assert len(posts) == 60
    lines = items(detail)
    assert [re.search(r"Post (\d+)", line).group(1) for line in lines] == [  # type: ignore[union-attr]
        str(p["id"]) for p in posts]
    for line, p in zip(lines, posts, strict=True):
        assert line.split(" | ")[0].split(" ", 1)[1] == p["author"]
        assert f"{p['likes']} likes" in line
    assert "60 items" in detail and "to the end of the list" in detail


def test_scan_reads_shops_24_products_once_with_their_prices_through_uiautomator2(vphone):
    shop = vphone.phone.apps[SHOP]
    with U2Driver(vphone.serial) as driver:
        driver.execute([Launch(app=SHOP)])
        if any(e.text == "No thanks" for e in driver.observe().elements):
            driver.execute([Tap(target=AnchorTarget(text="No thanks"))])
        driver.execute([Tap(target=AnchorTarget(text="All products 全部商品"))])
        driver.observe()  # waits while the list loads
        detail = scan(driver)
    lines = items(detail)
    assert len(lines) == 24  # the pages overlap: no product twice
    for line, (pid, price) in zip(lines, shop.prices.items(), strict=True):
        name = next(p.name for p in shop_products() if p.pid == pid)
        assert f"{format_price(price)} | {name} " in line, line


def shop_products():
    from omg_agent.vphone.apps.shop_catalog import CATALOGUE

    return CATALOGUE


def test_an_endless_feed_stops_at_the_bound_and_says_it_may_go_on(vphone):
    phone = vphone.phone
    phone.set_hazards("endless_feed")
    with AdbDriver(vphone.serial) as driver:
        driver.execute([Launch(app=FEED)])
        detail = scan(driver)
    lines = items(detail)
    assert f"stopped after {MAX_PAGES} pages (the bound): the list may go on" in detail
    ids = [re.search(r"Post (\d+)", line).group(1) for line in lines]  # type: ignore[union-attr]
    assert ids == [str(n) for n in range(1, len(ids) + 1)]  # each once, in order
    assert phone.apps[FEED].state()["post_count"] > len(ids)  # more had loaded below


def test_a_feed_whose_counts_change_while_read_is_merged_by_post_and_says_it_changed(vphone):
    phone = vphone.phone
    phone.set_hazards("live_likes")
    feed = phone.apps[FEED]
    first = {p["id"]: p["likes"] for p in feed.state()["posts"]}
    with AdbDriver(vphone.serial) as driver:
        driver.execute([Launch(app=FEED)])
        detail = scan(driver)
    lines = items(detail)
    assert len(lines) == 60  # no post twice though its texts changed between pages
    assert "The list changed while it was read" in detail
    shown = [int(re.search(r"(\d+) likes", line).group(1)) for line in lines]  # type: ignore[union-attr]
    assert all(n >= first[i + 1] for i, n in enumerate(shown))
    assert all(n > first[i + 1] for i, n in enumerate(shown) if i >= 50)  # newer kept


@pytest.mark.parametrize("anchor", ["1h ago · Post 2"])
def test_a_tap_on_an_anchor_the_scan_read_scrolls_back_to_that_post(vphone, anchor):
    feed = vphone.phone.apps[FEED]
    with AdbDriver(vphone.serial) as driver:
        driver.execute([Launch(app=FEED)])
        scan(driver)
        assert feed.offset > 0  # the scan ended at the bottom
        result = driver.execute([Tap(target=AnchorTarget(text=anchor))])
        assert result.ok, result.outcomes
        assert any(e.text == anchor for e in driver.observe().elements)


def test_a_scan_of_settings_which_has_no_scrolling_list_returns_its_rows(vphone):
    # relay round 27: this scan failed and cost the bundle; the rows were all on screen
    with AdbDriver(vphone.serial) as driver:
        driver.execute([Launch(app="com.android.settings")])
        detail = scan(driver)
    assert "no scrolling list: these are the items on screen" in detail
    assert any(line.split(" | ")[0].endswith("Bluetooth") for line in items(detail))
