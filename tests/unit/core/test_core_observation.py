"""UIElement and Observation are immutable values that never leak a password."""

from __future__ import annotations

import dataclasses

import pytest
from PIL import Image

from omg_agent.core.geometry import Bounds, Point, ScreenGeometry
from omg_agent.core.observation import Observation, UIElement


def _el(i: int, **kw) -> UIElement:
    return UIElement(id=i, cls="android.widget.Button", role="button",
                     bounds=Bounds(0, i * 100, 100, i * 100 + 50), **kw)


def test_observation_is_frozen_including_its_timings():
    obs = Observation(Image.new("RGBA", (1080, 2400)), elements=[_el(1), _el(2)],
                      package="com.android.settings", timings={"screenshot": 0.02})
    assert isinstance(obs.elements, tuple) and obs.size == (1080, 2400)
    with pytest.raises(dataclasses.FrozenInstanceError):
        obs.package = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        obs.timings["ocr"] = 1.0  # type: ignore[index]


def test_element_lookup_by_id():
    obs = Observation(Image.new("RGB", (10, 10)), elements=(_el(1), _el(2), _el(3)))
    assert obs.element(2).id == 2
    assert obs.element(0) is None and obs.element(9) is None
    odd = Observation(Image.new("RGB", (10, 10)), elements=(_el(5), _el(7)))
    assert odd.element(7).id == 7


def test_element_helpers_and_focus():
    e = _el(1, text="", desc="Close", clickable=True, focused=True)
    assert e.label == "Close" and e.interactive and e.center == (50, 125)
    obs = Observation(Image.new("RGB", (10, 10)), elements=(_el(2), e))
    assert obs.focused is e


def test_password_value_never_appears_in_repr():
    e = _el(1, text="hunter2", password=True, editable=True)
    assert "hunter2" not in repr(e) and "<password>" in repr(e)
    obs = Observation(Image.new("RGB", (10, 10)), elements=(e,))
    assert "hunter2" not in repr(obs)


# -- geometry on the observation: one point <-> pixel conversion, one point-in-box ----------
def test_an_observation_converts_points_with_its_drivers_safe_zone() -> None:
    geo = ScreenGeometry(1000, 2000, status_bar=60, nav_bar=100)
    obs = Observation(Image.new("RGB", (1000, 2000)), geometry=geo)
    assert obs.to_pixels((500, 500)) == Point(500, 1000) == geo.to_pixels((500, 500))
    assert obs.to_pixels((500, 0)) == Point(500, 60)  # clamped below the status bar
    assert obs.to_pixels((2000, 1000)) == Point(991, 1899)  # and off the nav bar / edge
    assert obs.to_normalized((500, 1000)) == Point(500, 500)
    # without the driver's geometry the whole screenshot is the safe zone
    bare = Observation(Image.new("RGB", (1000, 2000)))
    assert bare.to_pixels((0, 0)) == Point(0, 0)
    assert bare.to_pixels((1000, 1000)) == Point(999, 1999)


def test_the_element_at_a_point_is_the_smallest_under_it() -> None:
    row = UIElement(1, "android.widget.LinearLayout", "row", Bounds(0, 100, 1000, 300),
                    clickable=True)
    label = UIElement(2, "android.widget.TextView", "text", Bounds(20, 150, 300, 250),
                      text="Wi-Fi")
    obs = Observation(Image.new("RGB", (1000, 1000)), (row, label))
    assert obs.element_at((100, 200)) is label
    assert obs.element_at((100, 200), having=lambda e: e.clickable) is row
    assert obs.element_at((600, 200)) is row
    assert obs.element_at((1000, 200)) is None  # right edges are exclusive, as uiautomator's
    assert obs.elements_at((100, 200)) == [row, label]
    assert obs.region_to_pixels(Bounds(0, 0, 500, 500)) == Bounds(0, 0, 500, 500)
