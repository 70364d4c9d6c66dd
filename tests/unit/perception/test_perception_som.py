"""Set-of-marks image: size, downscaling, and boxes drawn exactly where the elements are."""

from __future__ import annotations

import pytest
from PIL import Image

from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import UIElement
from omg_agent.perception.som import PALETTE, draw_marks, mark_color
from omg_agent.perception.uitree import parse_elements
from omg_agent.vphone.phone import VirtualPhone

GREY = (200, 200, 200)


def _el(i: int, box: tuple[int, int, int, int]) -> UIElement:
    return UIElement(id=i, cls="android.widget.Button", role="button", bounds=Bounds(*box))


ELEMENTS = [_el(1, (100, 200, 500, 400)), _el(2, (600, 200, 1000, 400)),
            _el(3, (100, 1000, 1000, 1600))]


def test_same_size_by_default_and_the_input_is_left_alone():
    image = Image.new("RGBA", (1080, 2400), GREY)
    out = draw_marks(image, ELEMENTS)
    assert out.size == (1080, 2400) and out.mode == "RGB"
    assert image.getpixel((100, 300)) == (*GREY, 255)


@pytest.mark.parametrize("element", ELEMENTS, ids=lambda e: str(e.id))
def test_each_box_is_outlined_in_its_colour_where_the_element_is(element):
    out = draw_marks(Image.new("RGB", (1080, 2400), GREY), ELEMENTS, line_width=4)
    b = element.bounds
    color = mark_color(element.id)
    mid_x, mid_y = b.center
    assert out.getpixel((b.left, mid_y)) == color  # left edge
    assert out.getpixel((b.right - 1, mid_y + 40)) == color  # right edge, below the tag
    assert out.getpixel((mid_x, b.bottom - 1)) == color  # bottom edge
    assert out.getpixel((b.left + 10, mid_y)) == GREY  # inside stays untouched
    assert out.getpixel((b.left - 10, mid_y)) == GREY  # outside too


def test_the_id_tag_sits_at_the_top_right_corner_in_the_element_colour():
    out = draw_marks(Image.new("RGB", (1080, 2400), GREY), ELEMENTS[:1], line_width=4)
    b = ELEMENTS[0].bounds
    tag = [(x, y) for x in range(b.left, b.right) for y in range(b.top, b.top + 60)
           if out.getpixel((x, y)) == mark_color(1)]
    xs = [x for x, _ in tag]
    assert max(xs) == b.right - 1 and min(xs) == b.left  # outline spans, tag at the right
    block = sum(1 for x, y in tag if x > b.right - 40 and y > b.top + 6)
    assert block > 200  # a filled tag, not just the outline
    label = [out.getpixel((x, y)) for x in range(b.right - 60, b.right)
             for y in range(b.top, b.top + 50)]
    assert (255, 255, 255) in label  # the digit, in a colour readable on the tag


def test_downscaling_keeps_the_aspect_and_moves_the_boxes():
    out = draw_marks(Image.new("RGB", (1080, 2400), GREY), ELEMENTS, max_side=1200,
                     line_width=2)
    assert out.size == (540, 1200)
    b = ELEMENTS[2].bounds
    assert out.getpixel((b.left // 2, b.center.y // 2)) == mark_color(3)


def test_colours_are_distinct_and_repeat_only_after_the_palette():
    assert len(set(PALETTE)) == len(PALETTE) >= 10
    assert mark_color(1) != mark_color(2) and mark_color(1) == mark_color(len(PALETTE) + 1)


def test_a_tag_moves_to_another_corner_instead_of_hiding_another_tag():
    outer, inner = _el(1, (100, 100, 500, 500)), _el(2, (300, 100, 500, 300))
    out = draw_marks(Image.new("RGB", (1080, 2400), GREY), [outer, inner], line_width=2)
    top_right = [out.getpixel((x, y)) for x in range(470, 498) for y in range(104, 120)]
    top_left = [out.getpixel((x, y)) for x in range(302, 312) for y in range(104, 120)]
    assert top_right.count(mark_color(1)) > len(top_right) // 2  # the outer tag kept it
    assert top_left.count(mark_color(2)) > len(top_left) // 2  # the inner tag moved


def test_every_element_box_shows_on_a_real_screen():
    phone = VirtualPhone(clock=lambda: 1_700_000_000.0)
    phone.start_activity("com.android.settings")
    elements = parse_elements(phone.dump_xml())
    out = draw_marks(phone.screenshot(), elements, line_width=3)
    assert out.size == (1080, 2400)
    for e in elements:  # every element's outline is visible on at least one edge
        b, color = e.bounds, mark_color(e.id)
        edges = [(b.left + 1, b.center.y), (b.right - 2, b.center.y + 30),
                 (b.center.x, b.top + 1), (b.center.x, b.bottom - 2)]
        assert any(out.getpixel(p) == color for p in edges), e
