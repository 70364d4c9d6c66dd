"""UIElement and Observation are immutable values that never leak a password."""

from __future__ import annotations

import dataclasses

import pytest
from PIL import Image

from omg_agent.core.geometry import Bounds
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
