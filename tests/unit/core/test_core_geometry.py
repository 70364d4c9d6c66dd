"""Normalized 0–1000 ⇄ pixel conversion, safe-zone clamping, bounds helpers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from omg_agent.core.geometry import Bounds, Point, ScreenGeometry

PHONE = ScreenGeometry(1080, 2400, status_bar=110, nav_bar=66, margin=8)


def test_centre_and_corners_map_to_pixels_inside_the_safe_zone():
    assert PHONE.to_pixels((500, 500)) == Point(540, 1200)
    assert PHONE.to_pixels((0, 0)) == Point(8, 110)
    assert PHONE.to_pixels((1000, 1000)) == Point(1071, 2333)


@pytest.mark.parametrize("point", [(-50, 500), (1500, 500), (500, -1), (500, 4000),
                                   (-1e9, 1e9)])
def test_out_of_range_points_are_clamped_never_sent_raw(point):
    px = PHONE.to_pixels(point)
    assert PHONE.safe_zone.contains(px)


def test_status_bar_and_nav_bar_are_never_touched():
    assert PHONE.to_pixels((500, 10)).y == 110  # 10/1000 of 2400 = 24 px: in the status bar
    assert PHONE.to_pixels((500, 990)).y == 2333  # 2376 px: in the navigation bar


@given(st.integers(0, 1000), st.integers(0, 1000))
def test_normalized_round_trip_is_within_one_unit(x, y):
    bare = ScreenGeometry(1080, 2400, margin=0)
    back = bare.to_normalized(bare.to_pixels((x, y)))
    assert abs(back.x - x) <= 1 and abs(back.y - y) <= 1


@given(st.integers(8, 1071), st.integers(110, 2333))
def test_pixel_round_trip_inside_the_safe_zone_is_within_a_unit(x, y):
    px = PHONE.to_pixels(PHONE.to_normalized((x, y)))
    assert abs(px.x - x) <= 1 and abs(px.y - y) <= 2  # 1 unit = 1.08 px, 2.4 px


def test_to_normalized_clamps_to_0_1000():
    assert PHONE.to_normalized((-10, 99999)) == Point(0, 1000)


def test_bounds_round_trip_between_spaces():
    box = Bounds(108, 240, 540, 480)
    norm = PHONE.bounds_to_normalized(box)
    assert norm == Bounds(100, 100, 500, 200)
    assert PHONE.bounds_to_pixels(norm) == box


@pytest.mark.parametrize("kw", [dict(width=0, height=10), dict(width=100, height=100,
                                                                status_bar=60, nav_bar=40),
                                dict(width=10, height=100, margin=5),
                                dict(width=100, height=100, nav_bar=-1)])
def test_impossible_geometry_is_rejected(kw):
    with pytest.raises(ValueError):
        ScreenGeometry(**kw)


def test_bounds_parse_and_helpers():
    b = Bounds.parse("[44,294][838,371]")
    assert b == Bounds(44, 294, 838, 371)
    assert (b.width, b.height, b.center) == (794, 77, Point(441, 332))
    assert str(b) == "[44,294][838,371]"
    assert b.contains((44, 294)) and not b.contains((838, 300))
    assert b.distance_to((441, 332)) == 0 and b.distance_to((837 + 3, 370 + 4)) == 5.0
    assert b.intersection(Bounds(0, 0, 44, 1000)) is None
    assert b.intersection(Bounds(0, 0, 100, 300)) == Bounds(44, 294, 100, 300)
    assert Bounds(5, 5, 5, 9).empty and Bounds(5, 5, 5, 9).area == 0
    with pytest.raises(ValueError, match="bounds"):
        Bounds.parse("[1,2][3]")
