"""Screen hash on vphone: clock ticks and caret blinks are "same", real changes "different".

Distances are numbers of changed grid cells (1080x2400 → 24x53 cells); the default
threshold is 2. What this file proves, screen by screen:
same (0 cells): another clock minute on every app, the caret's other blink phase, JPEG
re-encoding at quality 60–90 (what uiautomator2 screenshots are); different: the ANR
dialog (hundreds), a 60 px scroll (hundreds), the Wi-Fi or Bluetooth switch flipped
(≥ 6), a Like button pressed (≥ 20).
"""

from __future__ import annotations

import io

import pytest
from PIL import Image

from omg_agent.core.geometry import Bounds
from omg_agent.perception.screenhash import DEFAULT_THRESHOLD, ScreenHash, ScreenHashValue
from omg_agent.perception.uitree import parse_elements
from omg_agent.vphone.phone import VirtualPhone

T0 = 1_700_000_000.0
APPS = VirtualPhone().packages()


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def phone() -> tuple[VirtualPhone, Clock, ScreenHash]:
    clock = Clock()
    p = VirtualPhone(clock=clock)
    p.apps["com.omg.shop"].promo_mode = "never"  # type: ignore[attr-defined]
    return p, clock, ScreenHash.for_profile(p.profile)


def _hash(p: VirtualPhone, hasher: ScreenHash) -> str:
    with p.lock:
        image, xml = p.screenshot().copy(), p.dump_xml()
    return hasher.compute(image, package=p.focus()[0], elements=parse_elements(xml))


def _jpeg(image: Image.Image, quality: int) -> Image.Image:
    buf = io.BytesIO()
    image.convert("RGB").save(buf, "JPEG", quality=quality)
    return Image.open(io.BytesIO(buf.getvalue()))


@pytest.mark.parametrize("pkg", APPS)
def test_a_clock_tick_is_the_same_screen(phone, pkg):
    p, clock, hasher = phone
    p.start_activity(pkg)
    before = _hash(p, hasher)
    clock.now += 3 * 3600 + 17 * 60  # every digit of the clock changes
    after = _hash(p, hasher)
    assert hasher.distance(before, after) == 0 and hasher.same(before, after)


def test_the_status_bar_mask_is_what_hides_the_clock_on_a_fine_grid(phone):
    p, clock, _ = phone
    fine_bare = ScreenHash(columns=96, threshold=0)
    fine_masked = ScreenHash.for_profile(p.profile, columns=96, threshold=0)
    p.start_activity("com.android.settings")
    before = _hash(p, fine_bare), _hash(p, fine_masked)
    clock.now += 3 * 3600 + 17 * 60
    assert not fine_bare.same(before[0], _hash(p, fine_bare))
    assert fine_masked.same(before[1], _hash(p, fine_masked))


@pytest.mark.parametrize("pkg", APPS)
@pytest.mark.parametrize("quality", [60, 80, 90])
def test_jpeg_reencoding_is_the_same_screen(phone, pkg, quality):
    p, _, hasher = phone
    p.start_activity(pkg)
    image = p.screenshot().copy()
    assert hasher.distance(hasher.compute(image), hasher.compute(_jpeg(image, quality))) == 0


def test_the_caret_blink_is_masked_with_the_focused_field(phone):
    p, clock, hasher = phone
    p.start_activity("com.omg.notes")
    p.tap(926, 2180)  # new note: the title field has focus, the caret blinks
    p.input_text("Shopping")
    on, on_pixels = _hash(p, hasher), p.screenshot().tobytes()
    clock.now += 0.5
    assert p.screenshot().tobytes() != on_pixels  # the caret really blinked
    assert hasher.distance(on, _hash(p, hasher)) == 0


def test_the_anr_dialog_is_a_different_screen(phone):
    p, _, hasher = phone
    p.start_activity("com.android.settings")
    before = _hash(p, hasher)
    p.show_anr()
    assert hasher.distance(before, _hash(p, hasher)) > 100 * DEFAULT_THRESHOLD


@pytest.mark.parametrize("drag", [60, 200, 900])
def test_a_scrolled_list_is_a_different_screen(phone, drag):
    p, _, hasher = phone
    p.start_activity("com.omg.feed")
    before = _hash(p, hasher)
    p.swipe(540, 1800, 540, 1800 - drag)
    assert p.apps["com.omg.feed"].offset > 0  # type: ignore[attr-defined]
    assert hasher.distance(before, _hash(p, hasher)) > 50 * DEFAULT_THRESHOLD


@pytest.mark.parametrize("switch", ["wifi_switch", "bluetooth_switch"])
def test_a_flipped_switch_is_a_different_screen(phone, switch):
    p, _, hasher = phone
    p.start_activity("com.android.settings")
    before = _hash(p, hasher)
    target = next(e for e in parse_elements(p.dump_xml()) if e.resource_id.endswith(switch))
    p.tap(*target.center)
    distance = hasher.distance(before, _hash(p, hasher))
    assert distance >= 3 * DEFAULT_THRESHOLD and not hasher.same(before, _hash(p, hasher))


def test_a_pressed_like_button_is_a_different_screen(phone):
    p, _, hasher = phone
    p.start_activity("com.omg.feed")
    before = _hash(p, hasher)
    like = next(e for e in parse_elements(p.dump_xml()) if e.desc == "Like post 1")
    p.tap(*like.center)
    assert hasher.distance(before, _hash(p, hasher)) >= 10 * DEFAULT_THRESHOLD


def test_a_per_app_mask_hides_a_volatile_region(phone):
    p, _, _ = phone
    p.start_activity("com.omg.feed")
    like = next(e for e in parse_elements(p.dump_xml()) if e.desc == "Like post 1")
    row = Bounds(0, like.bounds.top - 10, 1080, like.bounds.bottom + 10)
    hasher = ScreenHash.for_profile(p.profile, app_masks={"com.omg.feed": [row]})
    before = _hash(p, hasher)
    p.tap(*like.center)
    assert hasher.distance(before, _hash(p, hasher)) == 0
    other = ScreenHash.for_profile(p.profile, app_masks={"com.omg.shop": [row]})
    assert other.masks_for((1080, 2400), package="com.omg.feed") == [Bounds(0, 0, 1080, 110)]


def test_caller_masks_and_nav_bar_mask(phone):
    p, _, _ = phone
    hasher = ScreenHash.for_profile(p.profile, mask_nav_bar=True)
    rects = hasher.masks_for((1080, 2400), extra=[(0, 500, 10, 510)])
    assert rects == [Bounds(0, 0, 1080, 110), Bounds(0, 2334, 1080, 2400),
                     Bounds(0, 500, 10, 510)]


def test_hash_text_round_trips_and_shapes_are_checked(phone):
    p, _, hasher = phone
    text = _hash(p, hasher)
    assert text.startswith("q8:53x24:")
    assert str(ScreenHashValue.parse(text)) == text
    small = hasher.compute(Image.new("RGB", (2400, 1080), "white"))  # landscape
    assert hasher.distance(text, small) == 53 * 24
    with pytest.raises(ValueError, match="screen hash"):
        ScreenHashValue.parse("not-a-hash")
    with pytest.raises(ValueError):
        ScreenHash(columns=1)


def test_changed_cells_locate_the_change(phone):
    p, _, hasher = phone
    p.start_activity("com.android.settings")
    before = _hash(p, hasher)
    p.set_wifi(False)
    cells = hasher.changed_cells(before, _hash(p, hasher))
    rows, cols = cells.nonzero()
    cell = 1080 / 24
    assert rows.min() * cell >= 264 - cell and rows.max() * cell <= 462  # the Wi-Fi row
