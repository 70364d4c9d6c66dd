"""OCR on the vphone's Shop "Promotions" WebView, whose labels are drawn but not in the XML.

rapidocr costs about a second per full frame on two cores, so one engine serves the whole
module and the full-frame read happens once (later reads of the same screen are cache hits).
"""

from __future__ import annotations

import threading

import pytest

from omg_agent.core.actions import AnchorTarget
from omg_agent.core.geometry import Bounds, ScreenGeometry
from omg_agent.core.observation import Observation
from omg_agent.errors import AnchorNotFound
from omg_agent.perception.anchor import Anchorer
from omg_agent.perception.ocr import OcrEngine, best_matches
from omg_agent.perception.uitree import parse_elements
from omg_agent.vphone.phone import VirtualPhone
from omg_agent.vphone.ui.view import View

KEY = "promotions-screen"


@pytest.fixture(scope="module")
def engine() -> OcrEngine:
    return OcrEngine()


@pytest.fixture(scope="module")
def promotions() -> tuple[VirtualPhone, Observation, View]:
    phone = VirtualPhone()
    phone.apps["com.omg.shop"].promo_mode = "never"  # type: ignore[attr-defined]
    phone.start_activity("com.omg.shop")
    phone.apps["com.omg.shop"].push("promotions")
    phone.changed()
    with phone.lock:
        obs = Observation(phone.screenshot(), parse_elements(phone.dump_xml()),
                          package="com.omg.shop", screen_hash=KEY)
        web = next(v for v in phone.view_tree().walk() if v.opaque_to_tree)
    return phone, obs, web


def _labels(web: View, min_chars: int = 4) -> list[View]:
    """Text views drawn inside the WebView (absent from the XML) of >= ``min_chars``."""
    return [v for v in web.walk() if v is not web and len(v.text.strip()) >= min_chars]


def _anchorer(phone: VirtualPhone, engine: OcrEngine) -> Anchorer:
    p = phone.profile
    return Anchorer(ScreenGeometry(p.width, p.height, p.status_bar_height, p.nav_bar_height),
                    ocr=engine, density=p.density)


def test_the_webview_labels_are_not_in_the_tree(promotions):
    _, obs, web = promotions
    texts = {t for e in obs.elements for t in (e.text, e.desc, *e.extra_texts)}
    labels = _labels(web)
    assert len(labels) >= 10
    assert not texts & {v.text for v in labels}


def test_ocr_anchors_at_least_95_percent_of_the_webview_labels(promotions, engine):
    phone, obs, web = promotions
    anchorer = _anchorer(phone, engine)
    labels = _labels(web)
    found, missed = 0, []
    for view in labels:
        try:
            got = anchorer.resolve(AnchorTarget(text=view.text), obs)
        except AnchorNotFound:
            missed.append(view.text)
            continue
        left, top, right, bottom = view.bounds
        assert got.source == "ocr"
        if left <= got.point.x < right and top <= got.point.y < bottom:
            found += 1
        else:
            missed.append(f"{view.text} (landed at {got.point}, view {view.bounds})")
    ratio = found / len(labels)
    print(f"OCR anchoring recall on the Promotions WebView: {found}/{len(labels)} = "
          f"{ratio:.1%}; missed: {missed}")
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in v.text) for v in labels)
    assert ratio >= 0.95, missed


def test_a_second_read_of_the_same_screen_is_a_cache_hit(promotions, engine):
    _, obs, _ = promotions
    first = engine.read(obs.screenshot, key=KEY)
    calls = engine.calls
    again = engine.read(obs.screenshot, key=KEY)
    assert again is first and engine.calls == calls


def test_boxes_are_in_screen_pixels_where_the_text_is_drawn(promotions, engine):
    _, obs, web = promotions
    boxes = engine.read(obs.screenshot, key=KEY)
    view = next(v for v in web.walk() if v.text == "Sony WH-1000XM5")
    box = best_matches(boxes, "Sony WH-1000XM5")[0]
    left, top, right, bottom = view.bounds
    assert left - 8 <= box.bounds.left and box.bounds.right <= right + 8
    assert top - 8 <= box.bounds.top and box.bounds.bottom <= bottom + 8
    assert box.confidence > 0.8


def test_region_ocr_matches_the_full_frame_boxes(promotions, engine):
    _, obs, _ = promotions
    target = engine.find_text(obs.screenshot, "Sony WH-1000XM5", key=KEY)[0].bounds
    region = Bounds(0, target.top - 50, 1080, target.bottom + 50)
    calls = engine.calls
    boxes = engine.read(obs.screenshot, region, key=KEY)
    assert engine.calls == calls + 1
    assert all(region.contains((b.bounds.left, b.bounds.top)) for b in boxes)
    got = best_matches(boxes, "Sony WH-1000XM5")[0].bounds
    assert max(abs(a - b) for a, b in zip(got, target, strict=True)) <= 6, (got, target)


def test_find_text_compares_like_anchors(promotions, engine):
    _, obs, _ = promotions
    assert engine.find_text(obs.screenshot, "双十一大促", key=KEY)
    assert engine.find_text(obs.screenshot, "iPad", "contains", key=KEY)
    assert engine.find_text(obs.screenshot, r"特价\s*[¥￥]629", "regex", key=KEY)
    assert not engine.find_text(obs.screenshot, "Pixel 9 Pro", key=KEY)


def test_an_anchor_found_once_is_looked_for_in_a_crop_next_time(promotions, engine):
    phone, obs, _ = promotions
    anchorer = _anchorer(phone, engine)
    anchorer.resolve(AnchorTarget(text="iPad Air"), obs)
    new_screen = Observation(obs.screenshot, obs.elements, package=obs.package,
                             screen_hash="promotions-after-scrolling-back")
    calls = engine.calls
    got = anchorer.resolve(AnchorTarget(text="iPad Air"), new_screen)
    assert got.source == "ocr" and engine.calls == calls + 1  # one crop read, no full frame


def test_concurrent_reads_of_one_region_run_the_engine_once(promotions, engine):
    _, obs, _ = promotions
    region = Bounds(40, 300, 1040, 420)
    calls = engine.calls
    results: list[tuple] = []
    threads = [threading.Thread(target=lambda: results.append(
        engine.read(obs.screenshot, region, key="concurrent"))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert engine.calls == calls + 1 and len({id(r) for r in results}) == 1


def test_the_cache_is_bounded_and_regions_outside_the_image_are_empty(promotions, engine):
    _, obs, _ = promotions
    small = OcrEngine(cache_size=2)
    regions = [Bounds(40, 300 + 40 * i, 640, 420 + 40 * i) for i in range(3)]
    for region in regions:
        small.read(obs.screenshot, region, key="lru")
    assert small.calls == 3
    small.read(obs.screenshot, regions[2], key="lru")
    small.read(obs.screenshot, regions[0], key="lru")  # evicted: read again
    assert small.calls == 4
    assert engine.read(obs.screenshot, Bounds(2000, 3000, 2100, 3100), key=KEY) == ()
