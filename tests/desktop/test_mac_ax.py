"""The macOS AX reader on recorded AX trees: the seam (:class:`RecordedAX`) answers the AX
calls from JSON fixtures in the AX attribute vocabulary (TextEdit with a menu open, its
Save sheet, Calculator, System Settings with a password dialog), and everything above it —
the walk, the element list, the driver's clicks and AX presses, the gate — runs as on a
Mac. No test here needs a Mac or an X server.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from omg_agent.core.actions import TypeText, parse_action
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, OcrBox, UIElement
from omg_agent.drivers.desktop.backend import DisplayScale
from omg_agent.drivers.desktop.driver import DesktopDriver
from omg_agent.drivers.desktop.mac import MacBackend
from omg_agent.drivers.desktop.mac_adapter import AppRef
from omg_agent.drivers.desktop.mac_ax import RecordedAX, as_json, read_app
from omg_agent.drivers.desktop.mac_ax_elements import flatten_ax
from omg_agent.guards.sensitive import classify
from omg_agent.perception.elementlist import render

FIXTURES = Path(__file__).parent / "fixtures"
SCREEN = (2880, 1800)  # 1440x900 points at 2x


def fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"ax_{name}.json").read_text(encoding="utf-8"))


def elements_of(name: str) -> tuple[list[UIElement], dict[int, Any], RecordedAX]:
    doc = fixture(name)
    api = RecordedAX({doc["app"]["pid"]: doc["tree"]})
    tree = read_app(api, doc["app"]["pid"], doc["app"]["name"])
    assert tree is not None
    elements, refs = flatten_ax(tree, DisplayScale(2.0), doc["app"]["name"], SCREEN)
    return elements, {e.id: r.get("ref") for e in elements if (r := refs[e.id])}, api


def named(elements: list[UIElement], label: str) -> UIElement:
    found = [e for e in elements if label in (e.text, e.desc, e.hint)]
    assert len(found) == 1, (label, found)
    return found[0]


class RecordedMac:
    """A Mac whose AX tree is a recorded one, read through the seam, and whose input events
    are recorded (the screen and permissions as a 1440x900-point Retina display)."""

    def __init__(self, name: str, ocr_boxes: tuple[OcrBox, ...] = ()) -> None:
        self.doc = fixture(name)
        self.ax = RecordedAX({self.doc["app"]["pid"]: self.doc["tree"]})
        self.events: list[tuple[Any, ...]] = []
        self.clipboard: str | None = None

    screen_recording_allowed = accessibility_allowed = lambda self: True  # noqa: E731

    def screen_size_points(self) -> tuple[float, float]:
        return 1440.0, 900.0

    def backing_scale(self) -> float:
        return 2.0

    def capture(self) -> Image.Image:
        return Image.new("RGB", SCREEN, (236, 236, 236))

    def post_mouse(self, kind: str, x: float, y: float, button: str = "left",
                   clicks: int = 1) -> None:
        self.events.append(("mouse", kind, x, y, button, clicks))

    def post_scroll(self, dy: int, dx: int) -> None:
        self.events.append(("scroll", dy, dx))

    def post_key(self, keycode: int, down: bool, flags: int) -> None:
        self.events.append(("key", keycode, down, flags))

    def post_unicode(self, ch: str) -> None:
        self.events.append(("unicode", ch))

    def clipboard_get(self) -> str | None:
        return self.clipboard

    def clipboard_set(self, text: str) -> bool:
        self.clipboard = text
        return True

    def frontmost_app(self) -> AppRef:
        return AppRef(**self.doc["app"])

    def window_title(self, pid: int) -> str:
        window = self.ax.attribute(self.ax.application(pid), "AXFocusedWindow")
        return str(window.get("AXTitle") or "")

    def ax_tree(self, pid: int) -> dict[str, Any] | None:
        return read_app(self.ax, pid)

    def ax_perform(self, ref: Any, action: str) -> bool:
        return self.ax.perform(ref, action)

    def ax_set_value(self, ref: Any, value: str) -> bool:
        return self.ax.set_attribute(ref, "AXValue", value)

    def launch(self, name: str) -> bool:
        return False

    def app_names(self) -> list[str]:
        return ["Calculator", "TextEdit", "System Settings"]

    def downs(self) -> list[tuple[float, float]]:
        return [(e[2], e[3]) for e in self.events if e[:2] == ("mouse", "down")]


class BoxesOcr:
    """An OCR engine that reads the given boxes wherever it is asked to look."""

    def __init__(self, *boxes: OcrBox) -> None:
        self.boxes = boxes
        self.reads = 0

    def read(self, image: Image.Image, region: Bounds | None = None, **_: Any
             ) -> tuple[OcrBox, ...]:
        self.reads += 1
        return tuple(b for b in self.boxes if region is None or region.contains(
            b.bounds.center))


def driver_for(mac: RecordedMac, ocr: Any = None) -> DesktopDriver:
    return DesktopDriver(MacBackend(mac), serial="desktop=mac", ocr=ocr or BoxesOcr(),
                         settle_timeout=0.0)


def run(driver: DesktopDriver, *actions: dict[str, Any]):
    result = driver.execute([parse_action(a) for a in actions], driver.observe())
    assert result.ok, [o.detail for o in result.outcomes]
    return result


# -- the element list -------------------------------------------------------------------------
def test_textedit_lists_its_controls_with_names_and_states_and_the_open_menu() -> None:
    elements, refs, _ = elements_of("textedit")
    assert named(elements, "Bold").role == "checkbox" and not named(elements, "Bold").checked
    assert named(elements, "Italic").checked
    assert named(elements, "Paragraph styles").role == "dropdown"
    assert named(elements, "Paragraph styles").text == "Body"  # a popup shows its choice
    text = next(e for e in elements if e.resource_id == "First Text View")
    assert text.role == "input" and text.editable and text.focused
    assert text.text == "Shopping list\nmilk\n牛奶 🥛"  # the document, exact
    # the open Edit menu is a popup over the window; its disabled item says so
    menu = [e for e in elements if e.window == "popup"]
    assert [e.text for e in menu] == ["Undo Typing", "Redo", "Cut", "Copy", "Paste",
                                      "Delete", "Select All"]
    assert not named(elements, "Redo").enabled and all(e.role == "menuitem" for e in menu)
    bar = [e for e in elements if e.window == "menubar"]
    assert [e.text for e in bar][2:4] == ["File", "Edit"] and bar[3].selected
    # the document behind the focused one is covered: not listed
    assert "other notes" not in {e.text for e in elements}
    assert refs[named(elements, "Delete").id] == "mi.Edit.5"


def test_the_reader_skips_closed_menus_and_covered_windows() -> None:
    doc = fixture("textedit")
    tree = read_app(RecordedAX({501: doc["tree"]}), 501, "TextEdit")
    assert tree is not None
    file_item = tree["AXMenuBar"]["AXChildren"][2]
    assert file_item["AXTitle"] == "File" and "AXChildren" not in file_item  # not walked
    behind = tree["AXWindows"][1]
    assert behind["AXTitle"] == "Notes.txt" and "AXChildren" not in behind
    assert json.dumps(as_json(tree), ensure_ascii=False)  # a recording is plain JSON
    small = read_app(RecordedAX({501: doc["tree"]}), 501, max_nodes=5)
    assert small is not None and "Delete" not in json.dumps(as_json(small))


def test_a_save_sheet_is_its_own_window_over_the_document() -> None:
    elements, refs, _ = elements_of("save_sheet")
    sheet = [e for e in elements if e.window == "popup"]
    assert [e.label for e in sheet] == ["Save As:", "Untitled", "Tags:", "Tags", "Documents",
                                        "Rich Text Document", "Hide extension", "Cancel",
                                        "Save"]
    (save_as,) = [e for e in elements if e.editable and e.desc == "Save As:"]
    assert save_as.editable and save_as.focused and save_as.desc == "Save As:"
    assert refs[named(elements, "Save").id] == "save"
    # the document's own controls under the sheet are not listed; those beside it are
    window = {e.desc or e.text for e in elements if not e.window}
    assert "Helvetica" not in window and "Paragraph styles" in window
    listing = render(elements, SCREEN)
    assert "-- popup: TextEdit --" in listing


def test_calculator_buttons_are_named_by_their_descriptions() -> None:
    elements, refs, _ = elements_of("calculator")
    keys = [e for e in elements if e.role == "button" and e.window == ""]
    assert {"7", "Multiply", "Equals", "All Clear"} <= {e.desc for e in keys}
    assert named(elements, "main display").text == "37"
    assert named(elements, "Equals").resource_id == "EqualsButton"
    assert named(elements, "7").resource_id == ""  # AppKit's _NS:47 is no anchor


def test_system_settings_rows_switches_and_the_password_dialog() -> None:
    elements, _, _ = elements_of("settings")
    # a sidebar row is one item with its cell's text; the pane's title is text
    rows = [e for e in elements if e.role == "item" and not e.window]
    assert [r.text for r in rows] == ["Wi-Fi", "Bluetooth", "Network", "Appearance",
                                      "Displays"]
    assert [r.text for r in rows if r.selected] == ["Appearance"]
    # the window's title (on its title bar), the row, the pane's heading
    assert [e.role for e in elements if e.text == "Appearance"] == ["text", "item", "text"]
    assert [e.cls for e in elements if e.text == "Appearance"][0] == "AXWindow/AXStandardWindow"
    tint = named(elements, "Allow wallpaper tinting in windows")
    assert tint.role == "switch" and tint.checked and tint.checkable
    assert not named(elements, "Click in the scroll bar to jump to the spot that's "
                               "clicked").enabled
    assert named(elements, "Light").checked and not named(elements, "Dark").checked
    password = named(elements, "Password")
    assert password.password and password.editable and password.window == "popup"
    assert password.text == "" and "hunter2" not in repr(elements) + render(elements, SCREEN)
    assert not named(elements, "Join").enabled
    assert named(elements, "Search").hint == "Search"


# -- the driver: clicks by name, AX presses, the gate ----------------------------------------
def test_observe_names_the_app_and_the_window() -> None:
    obs = driver_for(RecordedMac("save_sheet")).observe()
    assert (obs.package, obs.activity) == ("TextEdit", "Untitled") and obs.ocr is None
    assert obs.size == SCREEN and "Save" in [e.text for e in obs.elements]


def test_a_click_by_name_is_the_buttons_ax_press() -> None:
    mac = RecordedMac("calculator")
    driver = driver_for(mac)
    run(driver, {"type": "tap", "target": {"kind": "anchor", "desc": "Multiply"}})
    run(driver, {"type": "tap", "target": {"kind": "anchor", "desc": "7"}})
    assert mac.ax.calls == [("perform", "key.Multiply", "AXPress"),
                            ("perform", "key.7", "AXPress")]
    assert mac.downs() == []


def test_without_ax_press_the_click_lands_on_the_elements_centre_in_points() -> None:
    mac = RecordedMac("calculator")
    keypad = mac.doc["tree"]["AXWindows"][0]["AXChildren"][4]["AXChildren"]
    equals = next(k for k in keypad if k["AXDescription"] == "Equals")
    del equals["actions"]  # an app that answers no AXPress
    mac.ax = RecordedAX({502: mac.doc["tree"]})
    result = run(driver_for(mac), {"type": "tap", "target": {"kind": "anchor",
                                                             "desc": "Equals"}})
    x, y = equals["AXPosition"]["x"], equals["AXPosition"]["y"]
    w, h = equals["AXSize"]["w"], equals["AXSize"]["h"]
    assert mac.downs() == [(x + w / 2, y + h / 2)]  # the centre, in points
    assert result.outcomes[0].point == (2 * x + w, 2 * y + h)  # and in pixels


def test_typing_into_the_save_sheets_field_sets_its_value() -> None:
    mac = RecordedMac("save_sheet")
    run(driver_for(mac), {"type": "type", "text": "购物清单 🛒", "clear": True,
                          "target": {"kind": "anchor", "text": "Untitled"}})
    assert mac.ax.calls == [("set", "saveas", "购物清单 🛒")]
    assert "购物清单 🛒" in [e.text for e in driver_for(mac).observe().elements]


def test_an_unlabelled_control_is_found_by_ocr_and_pressed() -> None:
    # the tree first: the format bar's list button has no name in AX, only in its pixels
    mac = RecordedMac("textedit")
    lists = OcrBox("Lists", Bounds(1290, 320, 1350, 350), 0.95)  # on the unnamed button
    ocr = BoxesOcr(lists)
    driver = driver_for(mac, ocr)
    assert driver.observe().ocr is None and ocr.reads == 0  # the tree needs no OCR
    run(driver, {"type": "tap", "target": {"kind": "anchor", "text": "Lists"}})
    assert mac.ax.calls == [("perform", "doc.lists", "AXPress")] and ocr.reads == 1


def _obs(name: str) -> Observation:
    return driver_for(RecordedMac(name)).observe()


def test_the_gate_treats_a_secure_text_field_as_a_password_field() -> None:
    obs = _obs("settings")
    field = named(list(obs.elements), "Password")
    found = classify(TypeText(text="hunter2"), field, obs)
    assert found is not None and found.cls == "secret_entry"
    assert "password" in found.reason
    # and the focused secure field takes typing without a target too
    assert (classify(TypeText(text="x"), None, obs) or found).cls == "secret_entry"


@pytest.mark.parametrize(("fixture_name", "label", "cls"), [
    ("textedit", "Delete", "delete"),  # a menu item: once never judged by its words
])
def test_the_gate_judges_mac_menu_items_by_their_words(fixture_name, label, cls) -> None:
    from omg_agent.core.actions import Tap

    obs = _obs(fixture_name)
    found = classify(Tap(target={"kind": "element", "id": 1}), named(list(obs.elements),
                                                                      label), obs)
    assert found is not None and found.cls == cls


def test_a_recording_reads_back_as_the_same_element_list() -> None:
    from omg_agent.drivers.desktop.mac_ax_record import recording

    doc = fixture("settings")
    recorded = recording(RecordedAX({503: doc["tree"]}), AppRef(**doc["app"]), (1440, 900),
                         2.0)
    text = json.dumps(recorded, ensure_ascii=False)
    assert "hunter2" not in text  # a secure field's value never reaches the file
    again = read_app(RecordedAX({503: json.loads(text)["tree"]}), 503, "System Settings")
    assert again is not None
    first, _, _ = elements_of("settings")
    assert flatten_ax(again, DisplayScale(2.0), "System Settings", SCREEN)[0] == first


@pytest.mark.parametrize(("fixture_name", "reads"), [
    ("textedit", 32), ("save_sheet", 33), ("calculator", 35), ("settings", 52)])
def test_a_node_costs_one_round_trip(fixture_name: str, reads: int) -> None:
    # a node's attributes come in one AXUIElementCopyMultipleAttributeValues call: an IPC
    # round trip to the app each, the cost of a look on a Mac
    doc = fixture(fixture_name)
    api = RecordedAX({doc["app"]["pid"]: doc["tree"]})
    tree = read_app(api, doc["app"]["pid"])
    assert tree is not None

    def count(node: dict[str, Any]) -> int:
        kids = [*(node.get("AXChildren") or ()), *(node.get("AXWindows") or ())]
        bar = [node["AXMenuBar"]] if isinstance(node.get("AXMenuBar"), dict) else []
        return (node.get("AXRole") != "AXApplication") + sum(map(count, kids + bar))

    assert api.reads == count(tree) == reads
