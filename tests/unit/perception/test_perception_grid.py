"""Labelled grid: cell geometry, the drawn overlay, and grid anchoring on a vphone screen."""

from __future__ import annotations

import pytest
from PIL import Image

from omg_agent.core.geometry import Bounds, Point, ScreenGeometry
from omg_agent.core.observation import Observation
from omg_agent.errors import AnchorNotFound
from omg_agent.perception.anchor import Anchorer
from omg_agent.perception.grid import LINE_COLOR, TAG_BG, Grid
from omg_agent.perception.uitree import parse_elements
from omg_agent.vphone.phone import VirtualPhone

GEOMETRY = ScreenGeometry(1080, 2400, 110, 66)
GREY = (200, 200, 200)


def test_cells_tile_the_safe_zone_row_by_row():
    grid = Grid.for_screen(GEOMETRY)
    assert len(grid.labels) == 72 and grid.labels[:7] == ["A1", "B1", "C1", "D1", "E1",
                                                            "F1", "A2"]
    assert grid.cell_bounds("A1") == Bounds(8, 110, 185, 295)
    assert grid.cell_bounds("F12").right == 1072 and grid.cell_bounds("F12").bottom == 2334
    assert sum(grid.cell_bounds(label).area for label in grid.labels) == GEOMETRY.safe_zone.area
    assert grid.cell_center("C4") == grid.cell_bounds("C4").center == Point(451, 758)


@pytest.mark.parametrize("label", ["c4", " C04 ", "C4"])
def test_labels_are_read_leniently(label):
    assert Grid.for_screen(GEOMETRY).cell_center(label) == Point(451, 758)


@pytest.mark.parametrize("label", ["G1", "A13", "A0", "4C", "", "AA1"])
def test_labels_outside_the_grid_are_reported(label):
    with pytest.raises(AnchorNotFound, match="grid cell"):
        Grid.for_screen(GEOMETRY).cell_center(label)


def test_the_overlay_outlines_each_cell_and_tags_it():
    grid = Grid.for_screen(GEOMETRY)
    image = Image.new("RGB", (1080, 2400), GREY)
    out = grid.draw(image)
    assert out.size == image.size and image.getpixel((0, 200)) == GREY
    c4 = grid.cell_bounds("C4")
    assert out.getpixel((c4.left, c4.center.y)) == LINE_COLOR  # cell edge
    assert out.getpixel(c4.center) == GREY  # the cell itself stays visible
    tag = [out.getpixel((x, y)) for x in range(c4.left, c4.left + 40)
           for y in range(c4.top, c4.top + 30)]
    assert TAG_BG in tag and (255, 255, 255) in tag  # a dark tag with a white label
    assert out.getpixel((540, 50)) == GREY  # the status bar gets no cells


def test_the_overlay_can_be_downscaled_for_the_model():
    out = Grid.for_screen(GEOMETRY).draw(Image.new("RGB", (1080, 2400), GREY), max_side=1200)
    assert out.size == (540, 1200)


def test_resolve_cell_snaps_onto_the_button_in_the_cell():
    phone = VirtualPhone()
    phone.apps["com.omg.shop"].promo_mode = "never"  # type: ignore[attr-defined]
    phone.start_activity("com.omg.shop")
    with phone.lock:
        obs = Observation(phone.screenshot(), parse_elements(phone.dump_xml()),
                          package="com.omg.shop")
    anchorer = Anchorer(GEOMETRY, density=440)
    search = next(e for e in obs.elements if e.resource_id.endswith(":id/search"))
    label = next(c for c in anchorer.grid.labels
                 if anchorer.grid.cell_bounds(c).contains(search.center))
    got = anchorer.resolve_cell(label, obs)
    assert got.source == "grid" and got.element == search
    assert search.bounds.contains(got.point) and label in got.detail
    phone.tap(*got.point)
    assert phone.apps["com.omg.shop"].screen.name == "results"


def test_resolve_cell_never_refuses_an_empty_cell():
    obs = Observation(Image.new("RGB", (1080, 2400), GREY))
    got = Anchorer(GEOMETRY).resolve_cell("F12", obs)
    assert got.point == Grid.for_screen(GEOMETRY).cell_center("F12") and got.element is None
