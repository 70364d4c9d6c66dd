"""AT-SPI nodes into the element list, without a bus: what galculator, mousepad and the GTK
save dialog showed on the real bus (tests/desktop/test_atspi_apps.py), written down as
:class:`Node` records; and the tree reader over a recorded bus (a double of
:class:`AtspiBus` answering its batches from a dict)."""

from __future__ import annotations

from typing import Any

from PIL import Image

from omg_agent.core.actions import Tap
from omg_agent.core.observation import Observation
from omg_agent.drivers.desktop.atspi_bus import ACCESSIBLE, Call, Ref
from omg_agent.drivers.desktop.atspi_elements import atspi_elements, windows
from omg_agent.drivers.desktop.atspi_tree import COMPONENT, PROPS, Node, decode_states, read_app
from omg_agent.guards.sensitive import classify

SHOWN = frozenset({"showing", "visible", "enabled", "sensitive"})
OFF = (-2147483648, -2147483648, 1, 1)


def node(path: str, role: str, name: str = "", ext=(0, 0, 10, 10), states=SHOWN, *,
         depth: int = 3, window: int = 0, in_menu: bool = False, desc: str = "") -> Node:
    return Node(Ref(":1.5", path), role, name, desc, frozenset(states), frozenset(), ext,
                depth, window, in_menu)


def calculator() -> list[Node]:
    return [node("/app", "application", "galculator", (0, 0, 0, 0), frozenset(), depth=0,
                 window=-1),
            node("/w", "frame", "galculator", (0, 0, 331, 343), SHOWN | {"active"}, depth=1),
            node("/f", "filler", ext=(0, 0, 331, 343), depth=2),
            node("/m", "menu", "File", (0, 0, 39, 25), SHOWN | {"selectable"}),
            node("/7", "toggle button", "7", (6, 183, 59, 34), SHOWN | {"focusable"}),
            node("/eq", "toggle button", "=", (266, 263, 59, 74), SHOWN | {"focused"}),
            node("/ms", "toggle button", "MR", (201, 143, 59, 34), {"showing", "visible"}),
            node("/d", "text", "", (7, 32, 317, 52), SHOWN | {"multi_line"}),
            node("/q", "menu item", "Quit", OFF, {"selectable"}, in_menu=True),
            node("/hidden", "push button", "Hidden", (5, 5, 10, 10), {"visible"})]


def test_buttons_carry_their_names_states_extents_and_app() -> None:
    elements, refs = atspi_elements(calculator(), "Galculator",
                                    texts={Ref(":1.5", "/d"): "42"}, screen=(1024, 768))
    by = {e.text: e for e in elements}
    assert list(by) == ["File", "7", "=", "MR", "42"]  # tree order; off-screen, hidden out
    seven = by["7"]
    assert (seven.role, seven.cls, seven.clickable, seven.enabled) == (
        "button", "toggle button", True, True)
    assert tuple(seven.bounds) == (6, 183, 65, 217) and seven.package == "Galculator"
    assert by["="].focused and not by["MR"].enabled  # not sensitive: greyed out
    assert by["File"].role == "menuitem" and by["42"].role == "text"  # the display's text
    assert refs[seven.id] == Ref(":1.5", "/7")


def test_fields_show_their_content_a_password_never() -> None:
    nodes = [node("/w", "frame", "Login", (0, 0, 400, 300), depth=1),
             node("/u", "text", "User name", (10, 10, 200, 30), SHOWN | {"editable",
                                                                         "focused"}),
             node("/p", "password text", "Password", (10, 50, 200, 30),
                  SHOWN | {"editable"}),
             node("/c", "check box", "Remember me", (10, 90, 200, 20),
                  SHOWN | {"checked"})]
    texts = {Ref(":1.5", "/u"): "ada", Ref(":1.5", "/p"): "hunter2"}
    user, pw, box = atspi_elements(nodes, "app", texts=texts)[0]
    assert (user.role, user.text, user.hint, user.editable, user.focused) == (
        "input", "ada", "User name", True, True)
    assert pw.password and pw.text == "" and pw.hint == "Password"
    assert box.role == "checkbox" and box.checkable and box.checked


def test_a_modal_save_dialog_is_its_own_window_and_hides_the_one_under_it() -> None:
    nodes = [node("/w", "frame", "Untitled 1 - Mousepad", (0, 0, 640, 480), depth=1),
             node("/t", "text", "", (1, 52, 638, 425), SHOWN | {"editable"}),
             node("/d", "file chooser", "Save As", (92, 84, 1096, 856),
                  SHOWN | {"modal", "active"}, depth=1, window=1),
             node("/s", "push button", "Save", (1060, 900, 86, 34), {"showing"}, window=1),
             node("/n", "text", "Name", (150, 94, 900, 34), SHOWN | {"editable", "focused"},
                  window=1)]
    elements, _ = atspi_elements(nodes, "Mousepad", screen=(1280, 1024))
    assert [(e.text or e.hint, e.window) for e in elements] == [("Save", "popup"),
                                                                ("Name", "popup")]
    assert not elements[0].enabled  # no name typed yet
    assert windows(nodes) == [("frame", "Untitled 1 - Mousepad"), ("file chooser", "Save As")]


def test_an_open_menu_is_listed_after_its_window_as_a_popup() -> None:
    nodes = [node("/w", "frame", "Mousepad", (0, 0, 640, 480), depth=1),
             node("/e", "menu", "Edit", (39, 0, 41, 25), SHOWN | {"selected"}),
             node("/dl", "menu item", "Delete Line      ", (39, 25, 300, 25), in_menu=True),
             node("/t", "text", "", (1, 52, 638, 425), SHOWN | {"editable"})]
    elements, _ = atspi_elements(nodes, "Mousepad")
    assert [(e.text, e.window) for e in elements] == [
        ("Edit", ""), ("", ""), ("Delete Line", "popup")]


def test_the_gate_reads_a_desktop_menu_item_by_its_name() -> None:
    nodes = [node("/w", "frame", "Mousepad", (0, 0, 640, 480), depth=1),
             node("/dl", "menu item", "Delete Line", (39, 25, 300, 25), in_menu=True),
             node("/ln", "link", "Remove all", (39, 60, 300, 25))]
    elements, _ = atspi_elements(nodes, "Mousepad")
    obs = Observation(Image.new("RGB", (640, 480)), elements, package="Mousepad")
    for e in elements:
        found = classify(Tap(target=e.id), e, obs)
        assert found is not None and found.cls == "delete", e


def test_state_words_decode_both_halves() -> None:
    # bit 12 focused, 25 showing (first word); 41 checkable, 43 read_only (second word)
    assert decode_states([(1 << 12) | (1 << 25), (1 << 9) | (1 << 11)]) == {
        "focused", "showing", "checkable", "read_only"}


class RecordedBus:
    """Answers the tree reader's batched calls from a recorded tree."""

    def __init__(self, tree: dict[str, tuple[str, str, int, list[str]]]) -> None:
        self.tree = tree  # path -> (role, name, state word, children)
        self.asked: list[str] = []

    def calls(self, calls: list[Call]) -> list[Any]:
        return [self._answer(c) for c in calls]

    def _answer(self, c: Call) -> Any:
        role, name, state, children = self.tree[c.ref.path]
        self.asked.append(c.ref.path)
        return {(ACCESSIBLE, "GetRoleName"): role,
                (PROPS, "GetAll"): {"Name": ("s", name), "Description": ("s", "")},
                (ACCESSIBLE, "GetState"): [state, 0],
                (ACCESSIBLE, "GetInterfaces"): [ACCESSIBLE, COMPONENT],
                (ACCESSIBLE, "GetChildren"): [(c.ref.bus, p) for p in children],
                (COMPONENT, "GetExtents"): (0, 0, 10, 10)}[(c.interface, c.method)]


def test_the_reader_skips_closed_menus_and_what_is_not_showing() -> None:
    showing = 1 << 25
    bus = RecordedBus({
        "/root": ("application", "app", 0, ["/w", "/gone", "/pop"]),
        "/w": ("frame", "App", showing, ["/bar", "/hidden"]),
        "/bar": ("menu bar", "", showing, ["/file", "/edit"]),
        "/pop": ("window", "", showing, ["/ctx"]),  # a right click's pop-up menu
        "/ctx": ("menu", "", showing, ["/paste"]),
        "/paste": ("menu item", "Paste", showing, []),
        "/gone": ("frame", "Closed", 0, ["/g1"]),
        "/file": ("menu", "File", showing, ["/quit"]),
        "/edit": ("menu", "Edit", showing | 1 << 23, ["/cut"]),  # selected: open
        "/hidden": ("panel", "", 0, ["/h1"]),
        "/quit": ("menu item", "Quit", 0, []), "/cut": ("menu item", "Cut", showing, []),
        "/g1": ("push button", "x", 0, []), "/h1": ("push button", "y", 0, [])})
    nodes = read_app(bus, Ref(":1.5", "/root"))  # type: ignore[arg-type]
    paths = [n.ref.path for n in nodes]
    assert paths == ["/root", "/w", "/gone", "/pop", "/bar", "/hidden", "/ctx", "/file",
                     "/edit", "/paste", "/cut"]
    paste, cut = nodes[-2:]
    assert cut.in_menu and cut.window == 0 and cut.depth == 4
    assert paste.in_menu and paste.window == 2


def test_an_unnamed_row_takes_the_labels_inside_it() -> None:
    nodes = [node("/w", "file chooser", "Save As", (0, 0, 900, 700), depth=1),
             Node(Ref(":1.5", "/row"), "list item", "", "", SHOWN, frozenset(),
                  (0, 14, 231, 36), 3, 0, False, (Ref(":1.5", "/p"),)),
             Node(Ref(":1.5", "/p"), "panel", "", "", SHOWN, frozenset(), (0, 14, 231, 36),
                  4, 0, False, (Ref(":1.5", "/icon"), Ref(":1.5", "/l"), Ref(":1.5", "/s"))),
             node("/icon", "icon", "", (0, 14, 24, 36), depth=5),
             node("/l", "label", "Home", (24, 14, 200, 36), depth=5),
             node("/s", "label", "2 items", (24, 30, 200, 36), depth=5),
             node("/h", "table column header", "Size", (300, 57, 45, 25)),
             node("/cell", "table cell", "", (159, 127, 763, 21))]  # wraps a row's cells
    elements, _ = atspi_elements(nodes, "Mousepad")
    assert [(e.role, e.text, e.extra_texts) for e in elements] == [
        ("item", "Home", ("2 items",)), ("button", "Size", ())]
