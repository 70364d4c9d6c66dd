"""``bench desktop``'s scoring and table, on hand-made observations (the bench itself starts
Xvfb and real apps: ``omg-agent bench desktop``)."""

from __future__ import annotations

from PIL import Image

from omg_agent.bench.desktop import Row, score, table
from omg_agent.core.geometry import Bounds, ScreenGeometry
from omg_agent.core.observation import Observation, UIElement
from omg_agent.perception.anchor import Anchorer


def look(*elements: tuple[str, Bounds]) -> Observation:
    return Observation(Image.new("RGB", (400, 300)), tuple(
        UIElement(id=i, cls="x", role="button", bounds=b, text=t, clickable=True)
        for i, (t, b) in enumerate(elements, 1)))


def test_an_anchor_is_wrong_outside_the_trees_box_and_missed_when_absent() -> None:
    tree = look(("7", Bounds(0, 100, 50, 130)), ("8", Bounds(60, 100, 110, 130)),
                ("9", Bounds(120, 100, 170, 130)))
    # OCR read "8" over the 9 key (a neighbour's box) and never saw the 9
    ocr = look(("7", Bounds(10, 105, 40, 125)), ("8", Bounds(125, 105, 160, 125)))
    row = Row("calc", hand=3)
    score(row, ["7", "8", "9", "="], Anchorer(ScreenGeometry(400, 300)), tree, ocr)
    assert (row.anchors, row.tree_wrong, row.tree_missed) == (3, 0, 0)
    assert (row.ocr_wrong, row.ocr_missed) == (1, 1)
    assert row.notes == ["no '=' in the tree"]
    text = table([row, Row("Tk", hand=13, ocr=13)])
    assert "| calc | 3 | 0 | 0 | 3 | 0 / 0 | 1 / 1 |" in text
    assert "| Tk | 13 | 0 | 13 | — | — | — |" in text and "calc: no '=' in the tree" in text
