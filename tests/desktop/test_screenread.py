"""OCR of a desktop screen again only where it changed (:mod:`...desktop.screenread`),
against an OCR engine double that reads text drawn as known boxes and records what it was
asked to read."""

from __future__ import annotations

from PIL import Image, ImageDraw

from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import OcrBox
from omg_agent.drivers.desktop.screenread import ScreenReader, drawn_area

BLACK, GREY, WHITE = (0, 0, 0), (200, 200, 200), (255, 255, 255)


class BoxEngine:
    """Reads the "text" of each known box whose pixels are inside the region."""

    def __init__(self) -> None:
        self.labels: dict[Bounds, str] = {}
        self.regions: list[Bounds | None] = []

    def read(self, image: Image.Image, region: Bounds | None = None) -> list[OcrBox]:
        self.regions.append(region)
        area = region or Bounds(0, 0, *image.size)
        return [OcrBox(text, box, 0.9) for box, text in self.labels.items()
                if area.intersection(box) == box]


def screen(labels: dict[Bounds, str]) -> Image.Image:
    image = Image.new("RGB", (800, 600), BLACK)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 399, 299), fill=GREY)  # the window
    for box, text in labels.items():
        draw.rectangle((box.left, box.top, box.right - 1, box.bottom - 1), fill=WHITE)
        draw.text((box.left + 2, box.top + 2), text, fill=BLACK)
    return image


SAVE, STATUS, ROW = Bounds(20, 20, 100, 50), Bounds(20, 250, 220, 280), Bounds(20, 100, 120, 130)


def test_the_first_read_covers_the_drawn_area_only() -> None:
    engine, labels = BoxEngine(), {SAVE: "Save", STATUS: "Ready"}
    engine.labels = labels
    boxes = ScreenReader(engine).read(screen(labels))
    assert engine.regions == [Bounds(0, 0, 400, 300)]
    assert [b.text for b in boxes] == ["Save", "Ready"]
    assert drawn_area(Image.new("RGB", (50, 50), BLACK)) is None


def test_a_changed_line_is_read_whole_again_and_the_rest_is_kept() -> None:
    engine = BoxEngine()
    reader = ScreenReader(engine)
    engine.labels = {SAVE: "Save", STATUS: "Ready", ROW: "Row 01"}
    reader.read(screen(engine.labels))
    engine.labels = {SAVE: "Save", STATUS: "Save pressed", ROW: "Row 01"}
    boxes = reader.read(screen(engine.labels))
    region = engine.regions[-1]
    assert region is not None and region.intersection(STATUS) == STATUS  # the whole line
    assert region.intersection(SAVE) is None and region.intersection(ROW) is None
    assert [b.text for b in boxes] == ["Save", "Row 01", "Save pressed"]
    # the same frame again: nothing is read
    assert reader.read(screen(engine.labels)) == boxes and reader.last_region is None
    assert len(engine.regions) == 2


def test_a_change_over_most_of_the_window_reads_all_of_it() -> None:
    engine = BoxEngine()
    reader = ScreenReader(engine)
    engine.labels = {SAVE: "Save"}
    reader.read(screen(engine.labels))
    moved = Image.new("RGB", (800, 600), BLACK)
    ImageDraw.Draw(moved).rectangle((0, 0, 399, 299), fill=WHITE)  # another window
    reader.read(moved)
    assert engine.regions[-1] == Bounds(0, 0, 400, 300)
