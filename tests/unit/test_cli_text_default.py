"""The default text match (``tap --text``, ``match="exact"``) prefers the element whose label
*is* the word over a longer label that only contains it as a segment — wherever either one
sits and whatever their sizes; the segment match is only the fallback."""

from __future__ import annotations

import pytest

from omg_agent.core.actions import AnchorTarget
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import UIElement
from omg_agent.perception.anchor import match_anchor


def item(i: int, text: str, top: int, width: int) -> UIElement:
    return UIElement(id=i, cls="android.widget.TextView", role="item", text=text,
                     bounds=Bounds(0, top, width, top + 80), clickable=True)


@pytest.mark.parametrize("longer_first", [True, False])
@pytest.mark.parametrize("longer_smaller", [True, False])
def test_an_exact_label_beats_a_longer_one_holding_the_word(longer_first, longer_smaller) -> None:
    about = item(1, "About phone", 100 if longer_first else 500, 300 if longer_smaller else 1000)
    phone = item(2, "Phone", 500 if longer_first else 100, 1000 if longer_smaller else 300)
    found = match_anchor(AnchorTarget(text="phone"), [about, phone])
    assert found is not None and found.element is phone


def test_without_an_exact_label_the_segment_match_is_the_fallback() -> None:
    about = item(1, "About phone", 100, 1000)
    found = match_anchor(AnchorTarget(text="phone"), [about, item(2, "Display", 200, 1000)])
    assert found is not None and found.element is about
    assert match_anchor(AnchorTarget(text="phon"), [about]) is None  # not a substring match
