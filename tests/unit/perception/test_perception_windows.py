"""Windows of a dump: kinds, z-rank whatever the dump order, and what a cover leaves."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

from hypothesis import given, settings
from hypothesis import strategies as st

from omg_agent.core.geometry import Bounds
from omg_agent.perception.windows import (
    MIN_VISIBLE_PX,
    find_windows,
    is_keyboard,
    visible_part,
)

from .dumpkit import dump, nav_bar, node, status_bar


def _roots(*windows: str) -> list[ET.Element]:
    return ET.fromstring(dump(*windows)).findall("node")


APP = node(node(cls="android.widget.Button", text="Go", clickable="true",
                bounds="[0,1000][1080,1100]"), bounds="[0,0][1080,2400]")
IME = node(node(cls="android.view.View", desc="keys", pkg="com.touchtype.swiftkey",
                bounds="[0,1500][1080,2270]"),
           pkg="com.touchtype.swiftkey", bounds="[0,1500][1080,2400]")
POPUP = node(node(cls="android.widget.TextView", text="Copy", clickable="true",
                  bounds="[300,800][700,900]"), bounds="[300,700][700,1000]")
EDGE = node(pkg="com.samsung.android.app.cocktailbarservice", bounds="[1038,391][1080,691]",
            clickable="true")


def test_every_dump_order_gives_the_same_z_order():
    parts = [APP, IME, POPUP, EDGE, status_bar(), nav_bar()]
    expected = None
    for order in itertools.permutations(parts):
        kinds = [(w.kind, w.package) for w in find_windows(_roots(*order))]
        assert [k for k, _ in kinds] == ["app", "popup", "keyboard", "bar", "bar", "bar"]
        if expected is None:
            expected = sorted(kinds)
        assert sorted(kinds) == expected


def test_keyboards_are_known_by_package():
    for pkg in ("com.google.android.inputmethod.latin", "com.touchtype.swiftkey",
                "com.samsung.android.honeyboard", "com.sohu.inputmethod.sogou",
                "com.baidu.input_mi", "com.iflytek.inputmethod"):
        assert is_keyboard(pkg), pkg
    for pkg in ("com.whatsapp", "com.android.systemui", "com.tencent.mm"):
        assert not is_keyboard(pkg), pkg


def test_a_keyboard_covers_what_it_draws_not_its_whole_window():
    (app, ime) = find_windows(_roots(APP, IME))[:2]
    assert ime.kind == "keyboard" and ime.covers == (Bounds(0, 1500, 1080, 2270),)


_box = st.tuples(st.integers(0, 1000), st.integers(0, 2000), st.integers(1, 400),
                 st.integers(1, 400)).map(lambda t: Bounds(t[0], t[1], t[0] + t[2], t[1] + t[3]))


@settings(max_examples=400, deadline=None)
@given(_box, st.lists(_box, max_size=4))
def test_the_visible_part_is_inside_and_clear_of_every_cover(box, covers):
    part = visible_part(box, covers)
    if part is None:
        return
    assert part.intersection(box) == part
    if part != box:  # what a cut leaves is big enough to tap
        assert part.width >= MIN_VISIBLE_PX and part.height >= MIN_VISIBLE_PX
    assert not any(c.intersection(part) for c in covers)
    if not any(c.intersection(box) for c in covers):
        assert part == box


def test_a_cover_in_the_middle_leaves_the_largest_strip():
    row = Bounds(0, 500, 1080, 700)
    assert visible_part(row, [Bounds(400, 400, 900, 1400)]) == Bounds(0, 500, 400, 700)
    assert visible_part(row, [Bounds(0, 650, 1080, 2400)]) == Bounds(0, 500, 1080, 650)
    assert visible_part(row, [Bounds(0, 0, 1080, 2400)]) is None
