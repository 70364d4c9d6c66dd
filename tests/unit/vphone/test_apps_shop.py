"""Shop / 商城 on a real VirtualPhone, driven host-side like a user: search, product, cart,
checkout and pay; the launch popup; the slow search spinner; the WebView promotions page;
seeded prices."""

from __future__ import annotations

import re

import pytest

from omg_agent.vphone.apps.shop_catalog import format_price, matches, search
from omg_agent.vphone.phone import VirtualPhone
from omg_agent.vphone.ui.view import View

PKG = "com.omg.shop"
KEY_BACK, KEY_ENTER = 4, 66


class FakeClock:
    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def find(phone: VirtualPhone, *, text: str | None = None, rid: str | None = None,
         desc: str | None = None) -> View | None:
    return phone.find_view(text=text, resource_id=rid and f"{PKG}:id/{rid}", desc=desc)


def tap(phone: VirtualPhone, **how: str) -> None:
    view = find(phone, **how)
    assert view is not None, f"no view matching {how}"
    phone.tap(*view.center)


def shop_state(phone: VirtualPhone) -> dict:
    return phone.state()["apps"][PKG]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def phone(clock: FakeClock) -> VirtualPhone:
    ph = VirtualPhone(seed=7, clock=clock)
    ph.apps[PKG].promo_mode = "never"
    assert ph.start_activity(PKG)
    return ph


def search_for(phone: VirtualPhone, clock: FakeClock, query: str) -> None:
    tap(phone, rid="search_input")
    phone.input_text(query)
    phone.key(KEY_ENTER)
    clock.now += phone.apps[PKG].search_delay + 0.1


def test_search_product_cart_checkout_pay_records_an_order(phone, clock):
    search_for(phone, clock, "macbook")
    assert shop_state(phone)["last_query"] == "macbook"
    tap(phone, desc="MacBook Air 13")
    assert phone.focus() == (PKG, ".ProductActivity")
    price = shop_state(phone)["prices"]["MacBook Air 13"]
    assert find(phone, rid="price").text == format_price(round(price * 100))
    tap(phone, rid="add_to_cart")
    tap(phone, rid="add_to_cart")
    assert shop_state(phone)["cart"] == [
        {"id": "p05", "name": "MacBook Air 13", "qty": 2, "price": price}]
    tap(phone, rid="cart")
    assert phone.focus() == (PKG, ".CartActivity")
    tap(phone, rid="checkout")
    assert phone.focus() == (PKG, ".CheckoutActivity")
    assert find(phone, rid="pay").text == f"Pay {format_price(round(price * 200))}"
    tap(phone, rid="pay")
    state = shop_state(phone)
    assert state["cart"] == []
    assert len(state["orders"]) == 1
    order = state["orders"][0]
    assert order["total"] == pytest.approx(price * 2)
    assert order["items"][0]["qty"] == 2
    assert "Payment successful 支付成功" in phone.dump_xml()
    phone.key(KEY_BACK)  # the finished order is not on the stack any more
    assert shop_state(phone)["screen"] == "main"


def test_search_button_submits_and_empty_results_say_so(phone, clock):
    tap(phone, rid="search_input")
    phone.input_text("手机")
    tap(phone, rid="search")
    clock.now += 5
    names = {v.desc for v in phone.view_tree().walk() if v.resource_id == f"{PKG}:id/product_item"}
    assert names == {"iPhone 15", "iPhone 15 Pro", "华为 Mate 60", "小米 14"}
    phone.key(KEY_BACK)
    tap(phone, rid="search_input")
    phone.input_text(" nothing-like-this")
    phone.key(KEY_ENTER)
    clock.now += 5
    assert find(phone, rid="empty") is not None


def test_search_matches_word_starts_in_latin_and_anywhere_in_chinese():
    assert [p.name for p in search("phone")] == ["iPhone 15", "iPhone 15 Pro", "华为 Mate 60",
                                                 "小米 14"]
    assert [p.name for p in search("手环")] == ["小米手环 8"]
    assert len(search("")) >= 20
    assert not matches(search("airpods")[0], "airpods max")


def test_spinner_turns_until_the_delay_has_passed(phone, clock):
    tap(phone, rid="search_input")
    phone.input_text("iPad")
    phone.key(KEY_ENTER)
    spinner = find(phone, rid="progress")
    assert spinner is not None and spinner.kind == "spinner"
    assert 'class="android.widget.ProgressBar"' in phone.dump_xml()
    assert "iPad Air" not in phone.dump_xml()
    assert shop_state(phone)["results_loaded"] is False
    first = phone.screencap_raw()
    clock.now += 0.3  # a new spinner phase: the display must redraw on its own
    assert phone.screencap_raw() != first
    clock.now += phone.apps[PKG].search_delay
    assert find(phone, rid="progress") is None
    assert "iPad Air" in phone.dump_xml()
    assert shop_state(phone)["results_loaded"] is True


def test_with_animations_off_the_spinner_stands_still_until_the_results_show(phone, clock):
    phone.settings["global"]["animator_duration_scale"] = "0"  # as many test phones are set
    tap(phone, rid="all_products")
    first = phone.screencap_raw()
    clock.now += 0.3
    assert phone.screencap_raw() == first  # frames alone cannot tell it is still loading
    assert find(phone, rid="progress") is not None
    assert find(phone, text="Searching… 搜索中") is not None
    clock.now += phone.apps[PKG].search_delay
    assert find(phone, rid="progress") is None and shop_state(phone)["results_loaded"]


def test_results_list_scrolls_and_clamps(phone, clock):
    tap(phone, rid="all_products")
    clock.now += 5
    w = phone.profile.width // 2
    first = find(phone, desc="MacBook Air 13")
    top = first.bounds[1]
    phone.swipe(w, 1600, w, 1200)
    moved = find(phone, desc="MacBook Air 13")
    assert moved.bounds[1] == top - 400
    for _ in range(20):
        phone.swipe(w, 2000, w, 400)
    assert find(phone, desc="保温杯 500ml") is not None
    rows = [v for v in phone.view_tree().walk() if v.resource_id == f"{PKG}:id/product_item"]
    results = next(v for v in phone.view_tree().walk() if v.resource_id == f"{PKG}:id/results")
    assert rows[-1].bounds[3] == results.bounds[3]  # the end sits exactly at the bottom


def test_promo_popup_blocks_the_screen_until_closed():
    ph = VirtualPhone(seed=1, clock=FakeClock())
    ph.apps[PKG].promo_mode = "always"
    ph.start_activity(PKG)
    assert "Limited offer! 限时优惠" in ph.dump_xml()
    assert shop_state(ph)["popup"] == {"visible": True, "shown": 1, "dismissed": 0}
    tap(ph, rid="search_input")  # under the scrim: nothing happens
    assert ph.apps[PKG].focus is None
    tap(ph, desc="Close")
    assert "Limited offer!" not in ph.dump_xml()
    tap(ph, rid="search_input")
    assert ph.apps[PKG].focus == "query"
    ph.key(KEY_BACK)
    ph.key(KEY_BACK)
    ph.start_activity(PKG)
    tap(ph, text="No thanks")
    ph.start_activity(PKG)
    ph.key(KEY_BACK)  # BACK dismisses the popup, it does not leave the app
    assert ph.focus()[0] == PKG
    assert shop_state(ph)["popup"] == {"visible": False, "shown": 3, "dismissed": 3}


def test_popup_shop_now_opens_promotions():
    ph = VirtualPhone(seed=1, clock=FakeClock())
    ph.apps[PKG].promo_mode = "always"
    ph.start_activity(PKG)
    tap(ph, text="Shop now")
    assert ph.focus() == (PKG, ".PromotionsActivity")


def popup_sequence(seed: int, launches: int = 12) -> list[bool]:
    ph = VirtualPhone(seed=seed, clock=FakeClock())
    seen = []
    for _ in range(launches):
        ph.start_activity(PKG)
        seen.append(shop_state(ph)["popup"]["visible"])
        ph.key(KEY_BACK)
    return seen


def test_random_popup_follows_the_seed():
    assert popup_sequence(11) == popup_sequence(11)
    assert any(popup_sequence(11)) and not all(popup_sequence(11))
    assert popup_sequence(11) != popup_sequence(12)


def test_promotions_webview_is_drawn_but_hidden_from_the_tree(phone):
    tap(phone, rid="promotions")
    assert phone.focus() == (PKG, ".PromotionsActivity")
    xml = phone.dump_xml()
    web = find(phone, rid="webview")
    assert web.cls == "android.webkit.WebView" and web.opaque_to_tree
    assert f'resource-id="{PKG}:id/webview" class="android.webkit.WebView"' in xml
    labels = [v.text for v in web.walk() if v.kind == "text"]
    assert "Double 11 Sale 双十一大促" in labels
    assert len([t for t in labels if len(t) >= 4]) >= 8
    for label in labels:
        assert label not in xml
    assert re.search(r'<node [^>]*id/webview"[^>]*/>', xml)  # a leaf node: no children
    region = phone.screenshot().crop(web.bounds).convert("L")
    assert region.getextrema()[1] - region.getextrema()[0] > 100  # text drawn: not blank
    card = next(v for v in web.walk() if v.clickable)
    phone.tap(*card.center)  # hidden links are still tappable where they are drawn
    assert phone.focus() == (PKG, ".ProductActivity")


def test_cart_minus_removes_items(phone, clock):
    tap(phone, rid="product_item")
    tap(phone, rid="add_to_cart")
    tap(phone, rid="view_cart")
    assert len(shop_state(phone)["cart"]) == 1
    tap(phone, rid="remove")
    assert shop_state(phone)["cart"] == []
    assert find(phone, rid="empty") is not None


def test_back_walks_the_screen_stack_then_leaves(phone, clock):
    search_for(phone, clock, "ipad")
    tap(phone, desc="iPad Air")
    for expected in ("results", "main"):
        phone.key(KEY_BACK)
        assert shop_state(phone)["screen"] == expected
    phone.key(KEY_BACK)
    assert phone.focus()[0] == "com.android.launcher3"


def test_prices_follow_the_seed_and_survive_clear_data():
    a = VirtualPhone(seed=5, clock=FakeClock())
    b = VirtualPhone(seed=5, clock=FakeClock())
    c = VirtualPhone(seed=6, clock=FakeClock())
    prices = shop_state(a)["prices"]
    assert prices == shop_state(b)["prices"]
    assert prices != shop_state(c)["prices"]
    assert len(prices) >= 20
    assert all(str(int(p)).endswith("9") for p in prices.values())
    a.apps[PKG].cart = {"p01": 1}
    a.clear_app(PKG)
    assert shop_state(a)["prices"] == prices and shop_state(a)["cart"] == []


def test_price_format_is_yuan_with_thousands_separators():
    assert format_price(359900) == "¥3,599.00"
    assert format_price(4900) == "¥49.00"


def test_chinese_locale_translates_buttons(phone, clock):
    phone.set_locale("zh-CN")
    assert find(phone, text="搜索") is not None
    tap(phone, rid="product_item")
    assert find(phone, rid="add_to_cart").text == "加入购物车"
