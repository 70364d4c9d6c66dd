"""Where a touch lands and what its pixels say (:mod:`omg_agent.guards.landing`): the
element a touch reaches, the point handed to the gate, and the label read in the pixels of a
control without one — its row around the touch, a sensitive word first, else the nearest.
Each test kills mutants that survived the mutation run of docs/mutation.md."""

from __future__ import annotations

import dataclasses

from gate_screens import made_screen

from omg_agent.core.actions import PointTarget, Tap
from omg_agent.core.geometry import Bounds, Point
from omg_agent.core.observation import Observation, OcrBox
from omg_agent.drivers.ports import InputEffect, InputScene
from omg_agent.guards.landing import Landing, landings

SLOP = 28  # a row is read 4 slops (112 px) above and below the touch
CANVAS = (0, 1000, 800, 2000)  # a clickable picture with no text: a drawn button bar
AT = Point(540, 1050)  # its row: y 1000..1162
PAY, ICON, TEXT = (100, 300, 980, 450), (500, 350, 580, 400), (100, 600, 980, 700)


def box(text: str, x: int, y: int) -> OcrBox:
    return OcrBox(text, Bounds(x - 20, y - 10, x + 20, y + 10), 0.9)


# around AT: the nearest is "Photos"; each other is nearest under a wrong distance
ROW = (box("Photos", 540, 1060), box("Songs", 540, 1100), box("Albums", 560, 1140),
       box("Music", 100, 1052), box("Movies", 580, 1005))
OUTSIDE = (box("Delete", 540, 1700),  # the canvas, but far below the touch
           box("Pay", 950, 1050))  # the touch's row, but beside the canvas


def screen(ocr: tuple[OcrBox, ...] | None = ROW + OUTSIDE) -> Observation:
    obs = made_screen("com.x", [
        {"text": "", "role": "image", "cls": "android.widget.ImageView", "clickable": True,
         "bounds": CANVAS, "resource_id": "com.x:id/bar"},
        {"text": "Pay ¥1,079.00", "role": "button", "cls": "android.widget.Button",
         "clickable": True, "bounds": PAY, "resource_id": "com.x:id/pay"},
        {"role": "image", "cls": "android.widget.ImageView", "bounds": ICON},
        {"text": "Your order", "bounds": TEXT, "resource_id": "com.x:id/para"},
        {"text": "Your order", "bounds": TEXT, "resource_id": "com.x:id/para_top"}])
    return dataclasses.replace(obs, ocr=ocr)


def one(effect: InputEffect, where: InputScene) -> Landing:
    found = landings(effect, where)
    assert isinstance(found, list) and len(found) == 1, found
    return found[0]


def read_at(point: Point, ocr: tuple[OcrBox, ...] | None = ROW + OUTSIDE) -> str | None:
    return one(InputEffect("tap", point), InputScene(screen(ocr), SLOP)).ocr_text


def test_an_unlabelled_control_is_read_in_its_row_around_the_touch_nearest_first() -> None:
    assert read_at(AT) == "Photos"


def test_a_sensitive_word_in_the_row_comes_before_a_nearer_harmless_one() -> None:
    assert read_at(AT, ROW + (box("Send", 700, 1100),)) == "Send"


def test_nothing_is_read_when_the_row_holds_no_words() -> None:
    assert read_at(AT, OUTSIDE) is None


def test_a_touch_on_no_element_reads_the_screen_around_it() -> None:
    assert read_at(Point(900, 2200), (box("Pay now", 880, 2210),)) == "Pay now"


def test_a_labelled_control_is_not_read_in_pixels() -> None:
    assert read_at(Point(200, 320), (box("Delete", 200, 330),)) is None


def test_without_ocr_on_the_screen_the_row_is_read_from_the_pixels() -> None:
    asked: list[Bounds] = []

    def read(where: Bounds) -> tuple[OcrBox, ...]:
        asked.append(where)
        return tuple(b for b in ROW if where.contains(b.bounds.center))

    landing = one(InputEffect("tap", AT), InputScene(screen(None), SLOP, read))
    assert landing.ocr_text == "Photos"
    assert asked == [Bounds(0, 1000, 800, 1162)]


def test_the_gate_gets_the_touch_in_thousandths_of_the_screen() -> None:
    where = InputScene(screen(), SLOP)
    assert one(InputEffect("tap", Point(540, 1200)), where).action.target == \
        PointTarget(x=500, y=500)
    # off the screen: clamped to its edge; no point at all: the corner
    assert one(InputEffect("tap", Point(1200, 2600)), where).action.target == \
        PointTarget(x=1000, y=1000)
    assert one(InputEffect("tap"), where).action.target == PointTarget(x=0, y=0)


def test_a_touch_reaches_the_smallest_element_and_of_equals_the_one_on_top() -> None:
    where = InputScene(screen(), SLOP)
    icon = one(InputEffect("tap", Point(540, 375)), where).element
    assert icon is not None and icon.bounds == Bounds(*ICON)
    para = one(InputEffect("tap", Point(540, 650)), where).element
    assert para is not None and para.resource_id == "com.x:id/para_top"


def test_the_element_the_executor_resolved_counts_when_it_covers_the_touch() -> None:
    where = InputScene(screen(), SLOP)
    pay = next(e for e in where.screen.elements if e.resource_id == "com.x:id/pay")
    hit = one(InputEffect("tap", Point(540, 375), element=pay), where).element
    assert hit is not None and hit.resource_id == "com.x:id/pay"  # not the icon on it
    found = landings(InputEffect("swipe", Point(540, 375), Point(545, 378), element=pay),
                     where)
    assert isinstance(found, list)
    assert [f.element.resource_id if f.element else None for f in found] == ["com.x:id/pay"] * 2


def test_a_drag_counts_only_where_it_ends_on_a_control() -> None:
    where = InputScene(screen(), SLOP)
    onto_text = one(InputEffect("swipe", Point(540, 1500), Point(540, 650)), where)
    assert onto_text.element is None and isinstance(onto_text.action, Tap)  # a scroll
    onto_pay = one(InputEffect("swipe", Point(540, 1500), Point(540, 320)), where)
    assert onto_pay.element is not None and onto_pay.element.resource_id == "com.x:id/pay"
    # a tap within the slop on the paragraph is still judged on the paragraph
    found = landings(InputEffect("swipe", Point(540, 650), Point(545, 652)), where)
    assert isinstance(found, list) and all(f.element is not None for f in found)


def test_an_edit_field_named_by_its_hint_is_not_read_and_a_bare_one_is() -> None:
    asked: list[Bounds] = []

    def read(where: Bounds) -> tuple[OcrBox, ...]:
        asked.append(where)
        return (box("Title", 540, 1500),)

    def field(hint: str) -> Observation:
        return dataclasses.replace(made_screen("com.x", [
            {"text": "", "hint": hint, "role": "field", "cls": "android.widget.EditText",
             "clickable": True, "editable": True, "bounds": (100, 1450, 980, 1550)}]),
            ocr=None)

    tap = InputEffect("tap", Point(540, 1500))
    assert one(tap, InputScene(field("Title"), SLOP, read)).ocr_text is None and asked == []
    assert one(tap, InputScene(field(""), SLOP, read)).ocr_text == "Title" and len(asked) == 1
