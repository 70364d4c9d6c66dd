"""Anchoring on vphone screens: every labelled button by text, point snapping, clamping.

Screens are built in-process (no adb): ``parse_elements(phone.dump_xml())`` plus
``phone.screenshot()``. The tree-level tests run without an OCR engine: a label found here
was found in the element list, never read from pixels.
"""

from __future__ import annotations

import logging

import pytest
from PIL import Image

from omg_agent.core.actions import AnchorTarget, ElementTarget, PointTarget
from omg_agent.core.geometry import Bounds, Point, ScreenGeometry
from omg_agent.core.observation import Observation, OcrBox, UIElement
from omg_agent.errors import AnchorNotFound
from omg_agent.perception.anchor import FALLBACK_SNAP_PX, Anchorer
from omg_agent.perception.textmatch import TextQuery, normalise, segments
from omg_agent.perception.uitree import parse_elements
from omg_agent.vphone.phone import VirtualPhone

T0 = 1_700_000_000.0


class Clock:
    now = T0

    def __call__(self) -> float:
        return self.now


def _phone(locale: str = "en-US", promo: str = "never") -> tuple[VirtualPhone, Clock]:
    clock = Clock()
    phone = VirtualPhone(clock=clock)
    phone.apps["com.omg.shop"].promo_mode = promo  # type: ignore[attr-defined]
    if locale != "en-US":
        phone.set_locale(locale)
    return phone, clock


def _geometry(phone: VirtualPhone) -> ScreenGeometry:
    p = phone.profile
    return ScreenGeometry(p.width, p.height, p.status_bar_height, p.nav_bar_height)


def _anchorer(phone: VirtualPhone) -> Anchorer:
    return Anchorer(_geometry(phone), density=phone.profile.density)


def _observe(phone: VirtualPhone) -> Observation:
    with phone.lock:
        return Observation(phone.screenshot(), parse_elements(phone.dump_xml()),
                           package=phone.foreground)


def _screens(locale: str) -> dict[str, Observation]:
    """Each app's first screen and every screen one tap away from it."""
    screens: dict[str, Observation] = {}
    seen: set[str] = set()
    for pkg in VirtualPhone().packages():
        phone, clock = _phone(locale)
        phone.start_activity(pkg)
        first = parse_elements(phone.dump_xml())
        for tap in (None, *(e for e in first if e.clickable)):
            phone.force_stop(pkg)
            phone.start_activity(pkg)
            if tap is not None:
                phone.tap(*tap.center)
                clock.now += 10  # let loading screens finish
            xml = phone.dump_xml()
            if xml in seen:
                continue
            seen.add(xml)
            name = f"{locale} {pkg}" + (f" → {tap.label or tap.id}" if tap else "")
            screens[name] = _observe(phone)
    return screens


def _labelled_buttons(obs: Observation) -> list[UIElement]:
    return [e for e in obs.elements if e.clickable and e.label and not e.password]


def _target_for(e: UIElement) -> AnchorTarget:
    return AnchorTarget(text=e.text) if e.text else AnchorTarget(desc=e.desc)


def _carries(e: UIElement, label: str) -> bool:
    return label in (e.text, e.desc, *e.extra_texts)


@pytest.fixture(scope="module", params=["en-US", "zh-CN"])
def screens(request: pytest.FixtureRequest) -> dict[str, Observation]:
    return _screens(request.param)


def test_every_labelled_button_of_every_app_screen_is_found_in_the_tree(screens):
    anchorer = Anchorer(ScreenGeometry(1080, 2400, 110, 66), density=440)
    checked, failures = 0, []
    packages = {obs.package for obs in screens.values()}
    assert len(packages) >= 7 and len(screens) >= 25  # every app, many screens
    for name, obs in screens.items():
        for e in _labelled_buttons(obs):
            label = e.text or e.desc
            got = anchorer.resolve(_target_for(e), obs)
            same = [o for o in obs.elements if _carries(o, label)]
            ok = (got.source == "tree" and got.element is not None
                  and got.element.bounds.contains(got.point)
                  and (got.element.id == e.id if len(same) == 1
                       else got.element.clickable and _carries(got.element, label)))
            checked += 1
            if not ok:
                failures.append(f"{name}: {label!r} → {got}")
    print(f"labelled buttons anchored via the tree: {checked - len(failures)}/{checked}")
    assert checked > 100
    assert not failures, "\n".join(failures)


def test_the_popup_buttons_are_found_on_the_dialog():
    phone, _ = _phone(promo="always")
    phone.start_activity("com.omg.shop")
    obs = _observe(phone)
    anchorer = _anchorer(phone)
    for label in ("No thanks", "Shop now"):
        got = anchorer.resolve(AnchorTarget(text=label), obs)
        assert got.element is not None and got.element.text == label
        assert got.element.resource_id.startswith("android:id/button")
    close = anchorer.resolve(AnchorTarget(desc="Close"), obs)
    phone.tap(*close.point)
    assert not phone.apps["com.omg.shop"].state()["popup"]["visible"]


def test_anchors_by_resource_id_short_or_full_and_by_regex():
    phone, _ = _phone()
    phone.start_activity("com.omg.shop")
    obs, anchorer = _observe(phone), _anchorer(phone)
    search = next(e for e in obs.elements if e.resource_id == "com.omg.shop:id/search")
    for target in (AnchorTarget(resource_id="com.omg.shop:id/search"),
                   AnchorTarget(resource_id="search"),
                   AnchorTarget(text="Sea.ch", match="regex"),
                   AnchorTarget(text="search", resource_id="search")):
        assert anchorer.resolve(target, obs).element == search, target


def test_chinese_labels_match_across_width_and_spacing():
    phone, _ = _phone("zh-CN")
    phone.start_activity("com.omg.shop")
    obs, anchorer = _observe(phone), _anchorer(phone)
    for text in ("搜索", "搜 索", "活动", "全部商品", "Promotions", "Ｐｒｏｍｏｔｉｏｎｓ　活动"):
        got = anchorer.resolve(AnchorTarget(text=text), obs)
        assert got.element is not None and got.element.clickable, text
    promotions = anchorer.resolve(AnchorTarget(text="活动"), obs).element
    assert promotions is not None and promotions.resource_id.endswith("promotions")


def test_exact_beats_contains_and_clickable_beats_plain_text():
    def el(i: int, text: str, box: tuple[int, int, int, int], clickable: bool) -> UIElement:
        return UIElement(id=i, cls="android.widget.TextView", role="text", text=text,
                         bounds=Bounds(*box), clickable=clickable)

    elements = (el(1, "Settings", (0, 200, 1080, 300), False),
                el(2, "Open settings now", (0, 400, 1080, 500), True),
                el(3, "Settings", (0, 600, 1080, 700), True),
                el(4, "Settings", (0, 800, 500, 900), True))
    obs = Observation(Image.new("RGB", (1080, 2400)), elements)
    anchorer = Anchorer(ScreenGeometry(1080, 2400, 110, 66))
    # Exact and clickable wins; among equals the smaller one.
    assert anchorer.resolve(AnchorTarget(text="Settings", match="contains"), obs).element \
        == elements[3]
    assert anchorer.resolve(AnchorTarget(text="settings now", match="contains"),
                            obs).element == elements[1]
    with pytest.raises(AnchorNotFound, match="settings now"):
        anchorer.resolve(AnchorTarget(text="settings now"), obs)


def test_a_text_inside_a_clickable_host_resolves_to_the_host():
    host = UIElement(id=1, cls="android.widget.LinearLayout", role="item",
                     bounds=Bounds(0, 300, 1080, 500), clickable=True)
    label = UIElement(id=2, cls="android.widget.TextView", role="text", text="Wi-Fi",
                      bounds=Bounds(40, 340, 300, 400))
    obs = Observation(Image.new("RGB", (1080, 2400)), (host, label))
    got = Anchorer(ScreenGeometry(1080, 2400, 110, 66)).resolve(AnchorTarget(text="Wi-Fi"), obs)
    assert got.element == host and label.bounds.contains(got.point)


def test_text_query_tiers():
    assert TextQuery("Settings").score("Settings") == 0
    assert TextQuery("settings").score("Ｓｅｔｔｉｎｇｓ") == 1
    assert TextQuery("设置").score("设 置") == 1
    assert TextQuery("Double 11 Sale").score("Double11Sale") == 2
    assert TextQuery("活动").score("Promotions 活动") == 3
    assert TextQuery("Cart").score("Cart, 0 items") == 3
    assert TextQuery("set").score("Settings") is None
    assert TextQuery("set", "contains").score("Settings") == 4
    assert TextQuery(r"\d+ likes", "regex").score("262 likes") == 0
    assert normalise("  Ａ  b ") == "a b" and segments("特价 ¥629.00") == ["特价", "¥629.00"]


def test_element_ids_resolve_to_their_centres_and_unknown_ids_are_reported():
    phone, _ = _phone()
    phone.start_activity("com.android.settings")
    obs, anchorer = _observe(phone), _anchorer(phone)
    e = obs.elements[2]
    got = anchorer.resolve(ElementTarget(id=e.id), obs)
    assert (got.source, got.point, got.element) == ("element", e.center, e)
    with pytest.raises(AnchorNotFound, match="element 999"):
        anchorer.resolve(ElementTarget(id=999), obs)


# -- points --------------------------------------------------------------------------------
def _norm(geometry: ScreenGeometry, x: int, y: int) -> PointTarget:
    nx, ny = geometry.to_normalized((x, y))
    return PointTarget(x=nx, y=ny)


def test_a_point_40px_off_a_button_is_snapped_onto_it(caplog):
    phone, _ = _phone()
    phone.start_activity("com.omg.shop")
    obs, anchorer = _observe(phone), _anchorer(phone)
    button = next(e for e in obs.elements if e.resource_id.endswith(":id/search"))
    geometry = _geometry(phone)
    target = _norm(geometry, button.center.x, button.bounds.bottom - 1 + 40)
    with caplog.at_level(logging.INFO, logger="omg_agent.perception.anchor"):
        got = anchorer.resolve(target, obs)
    assert got.element == button and button.bounds.contains(got.point)
    assert got.snap_px == pytest.approx(40, abs=3)  # normalized units round to ~2.4 px
    assert "snapped" in caplog.text and "Search" in caplog.text
    phone.tap(*got.point)
    assert phone.apps["com.omg.shop"].screen.name == "results"


def test_a_point_inside_a_button_stays_where_it_is():
    phone, _ = _phone()
    phone.start_activity("com.android.settings")
    obs, anchorer = _observe(phone), _anchorer(phone)
    row = next(e for e in obs.elements if e.text == "Bluetooth")
    target = _norm(_geometry(phone), row.bounds.left + 30, row.center.y)
    got = anchorer.resolve(target, obs)
    assert got.snap_px == 0 and got.element == row
    assert abs(got.point.x - (row.bounds.left + 30)) <= 2


def test_a_point_on_empty_background_is_reported_not_tapped():
    phone, _ = _phone()
    phone.start_activity("com.android.settings")
    obs, anchorer = _observe(phone), _anchorer(phone)
    lowest = max(e.bounds.bottom for e in obs.elements)
    y = (lowest + phone.profile.height) // 2
    assert y - lowest > anchorer.snap_tolerance_px  # really far from every element
    target = _norm(_geometry(phone), 540, y)
    with pytest.raises(AnchorNotFound, match="no clickable element within 132 px"):
        anchorer.resolve(target, obs)
    blind = anchorer.resolve(target, obs, allow_blind=True)
    assert blind.element is None and "blind" in blind.detail


def test_a_point_on_drawn_content_outside_the_tree_is_accepted():
    phone, _ = _phone()
    phone.start_activity("com.omg.shop")
    phone.apps["com.omg.shop"].push("promotions")
    phone.changed()
    obs, anchorer = _observe(phone), _anchorer(phone)
    web = next(v for v in phone.view_tree().walk() if v.opaque_to_tree)
    title = next(v for v in web.walk() if v.text.startswith("Double 11"))
    got = anchorer.resolve(_norm(_geometry(phone), *title.center), obs)
    assert got.element is None and "drawn content" in got.detail


@pytest.mark.parametrize("xy", [(0, 0), (1000, 1000), (0, 1000), (1000, 0)])
def test_points_at_the_screen_edges_are_clamped_into_the_safe_zone(xy):
    phone, _ = _phone()
    phone.start_activity("com.android.settings")
    obs, anchorer = _observe(phone), _anchorer(phone)
    got = anchorer.resolve(PointTarget(x=xy[0], y=xy[1]), obs, allow_blind=True)
    assert _geometry(phone).safe_zone.contains(got.point)


def test_pixel_points_off_the_screen_are_clamped_into_the_safe_zone():
    phone, _ = _phone()
    phone.start_activity("com.android.settings")
    obs, anchorer = _observe(phone), _anchorer(phone)
    zone = _geometry(phone).safe_zone
    for point in ((-500, -500), (5000, 9000), (540, 10), (540, 2399)):
        got = anchorer.resolve_pixel(point, obs, allow_blind=True)
        assert zone.contains(got.point), point


def test_snap_tolerance_is_48dp_or_60px_without_a_density():
    geometry = ScreenGeometry(1080, 2400, 110, 66)
    assert Anchorer(geometry, density=440).snap_tolerance_px == 132
    assert Anchorer(geometry, density=320).snap_tolerance_px == 96
    assert Anchorer(geometry).snap_tolerance_px == FALLBACK_SNAP_PX
    assert Anchorer(geometry, snap_tolerance_px=10).snap_tolerance_px == 10


def test_ocr_boxes_of_the_observation_are_used_when_the_tree_has_no_match():
    box = OcrBox("Buy now 立即购买", Bounds(100, 1000, 500, 1060), 0.97)
    obs = Observation(Image.new("RGB", (1080, 2400)), (), ocr=(box,))
    anchorer = Anchorer(ScreenGeometry(1080, 2400, 110, 66))
    got = anchorer.resolve(AnchorTarget(text="立即购买"), obs)
    assert (got.source, got.point) == ("ocr", Point(300, 1030))
    with pytest.raises(AnchorNotFound, match="grid"):
        anchorer.resolve(AnchorTarget(text="Checkout"), obs)


def test_without_an_observation_only_a_blind_point_resolves():
    anchorer = Anchorer(ScreenGeometry(1080, 2400, 110, 66))
    assert anchorer.resolve(PointTarget(x=500, y=0), None, allow_blind=True).point \
        == Point(540, 110)
    for target in (PointTarget(x=500, y=500), AnchorTarget(text="OK"), ElementTarget(id=1)):
        with pytest.raises(AnchorNotFound, match="no observation"):
            anchorer.resolve(target, None)


def test_a_desc_anchor_prefers_a_description_over_a_closer_text() -> None:
    """Shop's results: the title repeats the query as text, the product row carries the name
    in its description. ``desc contains "ThinkPad X1"`` is the row, though the title's text
    is the closer match; a text stands in for a description only when none matches."""
    from omg_agent.perception.anchor import match_anchor

    title = UIElement(1, "android.widget.TextView", "text", Bounds(0, 200, 1000, 260),
                      text="“ThinkPad X1”")
    row = UIElement(2, "android.widget.LinearLayout", "button", Bounds(0, 300, 1000, 500),
                    text="¥9,999.00", desc="联想 ThinkPad X1", clickable=True)
    target = AnchorTarget(desc="ThinkPad X1", match="contains")
    found = match_anchor(target, [title, row])
    assert found is not None and found.element is row and found.tier == 4
    only_text = match_anchor(target, [title])
    assert only_text is not None and only_text.element is title
