"""A list read from one screen's element list, and pages merged by identity (issue 27)."""

from __future__ import annotations

from PIL import Image

from omg_agent.core.geometry import Bounds, ScreenGeometry
from omg_agent.core.observation import Observation, UIElement
from omg_agent.perception.listpages import (
    ListMerge,
    ListPage,
    PageItem,
    read_page,
    same_item,
)

GEO = ScreenGeometry(1000, 2000)
LIST = UIElement(1, "RecyclerView", "list", Bounds(0, 200, 1000, 1800), scrollable=True,
                 resource_id="app:id/feed")


def el(i: int, rid: str, text: str, top: int, bottom: int, **kw) -> UIElement:
    return UIElement(i, "TextView", "text", Bounds(0, top, 1000, bottom), text=text,
                     resource_id=f"app:id/{rid}", **kw)


def post(n: int, top: int) -> list[UIElement]:
    """A card: author, meta, body, then a Like button and a count side by side."""
    return [el(0, "author", f"User {n % 2}", top, top + 60),
            el(0, "meta", f"Post {n}", top + 60, top + 100),
            el(0, "body", f"text of {n}", top + 120, top + 200),
            UIElement(0, "Button", "button", Bounds(0, top + 220, 300, top + 280),
                      text="Like", desc=f"Like post {n}", resource_id="app:id/like",
                      clickable=True),
            UIElement(0, "TextView", "text", Bounds(400, top + 220, 1000, top + 280),
                      text=f"{n} likes", resource_id="app:id/count")]


def page(*elements: UIElement) -> Observation:
    numbered = [LIST] + [UIElement(i + 2, e.cls, e.role, e.bounds, text=e.text, desc=e.desc,
                                   resource_id=e.resource_id, clickable=e.clickable)
                         for i, e in enumerate(elements)]
    return Observation(Image.new("RGB", GEO.size), tuple(numbered), geometry=GEO)


def test_rows_start_at_the_field_with_the_widest_gap_above_and_a_cut_top_row_is_dropped():
    # the screen opens on the foot of post 1 (its Like row), then posts 2..5
    foot = [e for e in post(1, 20) if e.resource_id in ("app:id/like", "app:id/count")]
    body = [e for n in range(2, 6) for e in post(n, 300 + (n - 2) * 340)]
    found = read_page(page(*foot, *body))
    assert found is not None
    assert [it.texts[:2] for it in found.items] == [(f"User {n % 2}", f"Post {n}")
                                                    for n in range(2, 6)]
    assert found.items[0].texts == ("User 0", "Post 2", "text of 2", "Like", "Like post 2",
                                    "2 likes")


def test_the_last_row_is_partial_when_the_bottom_edge_cuts_it():
    cut = post(9, 1650)[:3]  # author, meta, and a body clipped by the list's bottom
    cut[2] = el(0, "body", "text of 9", 1770, 1800)
    found = read_page(page(*post(7, 1000), *post(8, 1340 - 20), *cut))
    assert found is not None and [it.whole for it in found.items] == [True, True, False]


def test_same_item_tells_same_partial_changed_and_different_rows_apart():
    row = (("name", "Mouse"), ("price", "¥59"), ("stock", "3 left"))
    assert same_item(row, row) == "same"
    assert same_item(row[:2], row) == "partial"
    assert same_item(row, (("name", "Mouse"), ("price", "¥49"), ("stock", "3 left"))) == \
        "changed"
    assert same_item(row, (("name", "Keyboard"), ("price", "¥59"), ("stock", "3 left"))) \
        == ""


def test_overlapping_pages_merge_each_row_once_and_a_partial_row_takes_its_whole_texts():
    def rows(*names: str, partial_last: bool = False) -> tuple[PageItem, ...]:
        out = [PageItem((("name", n), ("price", f"¥{len(n)}"))) for n in names]
        if partial_last:
            out[-1] = PageItem(out[-1].fields[:1], whole=False)
        return tuple(out)

    merge = ListMerge()
    for number, items in enumerate([rows("A", "B", "C", "D", partial_last=True),
                                    rows("C", "D", "E", "F"), rows("E", "F", "G")]):
        merge.add(ListPage(LIST, items, ()), number)
    assert [i.texts for i in merge.items] == [(n, f"¥{len(n)}") for n in "ABCDEFG"]
    assert all(i.whole for i in merge.items) and not merge.changes
