"""Tree-first desktop perception on real apps under Xvfb through the real AT-SPI bus.

The apps are the distribution's: galculator (GTK calculator), mousepad (GTK text editor)
and its GTK save dialog; the Tk test app stands for an app with no tree. Outcomes are read
from the apps themselves — the calculator's display and the editor's text through their
own accessibility objects, the saved file from the disk — never from what the driver says.
With no window manager the app under the pointer is the frontmost one (X focus follows the
pointer), so each test first puts the pointer on its app, as a person would click on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from atspi_apps import App, start_app, wait_for
from desktop_apps import start_app as start_tk_app

from omg_agent.core.actions import parse_action
from omg_agent.drivers.desktop.driver import DesktopDriver

pytestmark = pytest.mark.timeout(60)


def act(driver: DesktopDriver, *actions: dict[str, Any]):
    result = driver.execute([parse_action(a) for a in actions], driver.observe())
    assert result.ok, [o.detail for o in result.outcomes]
    return result


@pytest.fixture
def galculator(atspi_driver: DesktopDriver, a11y_session, tmp_path: Path):
    app = start_app(["galculator"], a11y_session, atspi_driver.backend.tree, tmp_path)
    atspi_driver.backend.move(160, 200)  # over its window: the frontmost app
    yield app
    app.stop()


@pytest.fixture
def mousepad(atspi_driver: DesktopDriver, a11y_session, tmp_path: Path):
    app = start_app(["mousepad", "--disable-server"], a11y_session,
                    atspi_driver.backend.tree, tmp_path)
    atspi_driver.backend.move(300, 300)
    yield app
    app.stop()


def display_text(driver: DesktopDriver) -> str:
    """The calculator's display, read from its own text object."""
    obs = driver.observe()
    shown = [e.text for e in obs.elements if e.role == "text" and e.bounds.top < 100]
    return " ".join(shown).strip()


def test_the_calculators_buttons_are_elements_with_names_and_states(
        atspi_driver: DesktopDriver, galculator: App) -> None:
    obs = atspi_driver.observe()
    assert obs.package.lower() == "galculator" and obs.ocr is None  # no OCR ran
    buttons = {e.text: e for e in obs.elements if e.role == "button"}
    assert {"0", "1", "7", "+", "-", "*", "/", "=", "AC", "C"} <= set(buttons), buttons
    seven = buttons["7"]
    assert seven.enabled and seven.clickable and not seven.checked
    assert seven.cls == "toggle button" and seven.package == obs.package
    assert 0 < seven.bounds.left < seven.bounds.right < 331  # the window's pixels
    menus = [e.text for e in obs.elements if e.role == "menuitem"]
    assert menus[:2] == ["File", "Edit"]


def test_a_click_by_name_hits_the_right_button(atspi_driver: DesktopDriver,
                                               galculator: App) -> None:
    for label in ("AC", "7", "*", "6", "="):  # one look per click, as the agent does
        result = act(atspi_driver, {"type": "tap", "target": {"kind": "anchor",
                                                               "text": label}})
        assert result.outcomes[0].source == "tree"
    assert wait_for(lambda: display_text(atspi_driver) == "42") or display_text(
        atspi_driver) == "42"


def test_typed_text_is_exact_in_the_editors_own_text(atspi_driver: DesktopDriver,
                                                     mousepad: App) -> None:
    obs = atspi_driver.observe()
    area = next(e for e in obs.elements if e.role == "input")
    assert area.editable and area.clickable and area.focused

    def own_text() -> str:
        return next(e.text for e in atspi_driver.observe().elements if e.role == "input")

    typed = ""
    for text in ("Hello, world: 1+1=2 ~!@#$%^&*()_\n",  # keys
                 "你好，世界\n",  # the clipboard: no key for it on the keymap
                 "emoji 😀👍🏽 end"):  # astral characters and a skin-tone modifier
        act(atspi_driver, {"type": "type", "text": text, "target": area.id})
        typed += text
        assert wait_for(lambda t=typed: own_text() == t) or own_text() == typed


def test_the_save_dialog_is_its_own_window_and_saves_under_a_name(
        atspi_driver: DesktopDriver, mousepad: App, tmp_path: Path) -> None:
    act(atspi_driver, {"type": "type", "text": "saved by the agent 保存"})
    act(atspi_driver, {"type": "key", "key": "ctrl+s"})
    tree = atspi_driver.backend.tree

    def dialog() -> list[Any]:
        atspi_driver.observe()
        return [w for w in tree.windows() if w[0] in ("file chooser", "dialog")]

    assert wait_for(dialog, 10), tree.windows()
    obs = atspi_driver.observe()
    popup = [e for e in obs.elements if e.window == "popup"]
    assert popup and all(e.window == "popup" for e in obs.elements)  # modal: only it
    save = next(e for e in popup if e.role == "button" and e.text == "Save")
    assert not save.enabled  # no name yet: GTK greys it out
    name = next(e for e in popup if e.role == "input" and e.focused)
    target = tmp_path / "notes.txt"
    act(atspi_driver, {"type": "type", "text": str(target), "clear": True,
                       "target": name.id})

    def save_enabled() -> bool:  # GTK enables Save once it has taken the name in (loaded: later)
        return any(e.role == "button" and e.text == "Save" and e.enabled
                   for e in atspi_driver.observe().elements)

    assert wait_for(save_enabled, 10)
    act(atspi_driver, {"type": "tap", "target": {"kind": "anchor", "text": "Save"}})
    assert wait_for(target.exists, 10)
    assert wait_for(lambda: target.read_text(encoding="utf-8").rstrip("\n")
                    == "saved by the agent 保存")


def test_an_app_without_a_tree_falls_back_to_ocr(atspi_driver: DesktopDriver, a11y_display,
                                                 ocr_engine, tmp_path: Path) -> None:
    tk = start_tk_app(a11y_display, tmp_path / "state.json")  # Tk: no AT-SPI bridge
    try:
        driver = DesktopDriver(atspi_driver.backend, ocr=ocr_engine)
        atspi_driver.backend.move(100, 40)
        obs = driver.observe()
    finally:
        tk.proc.terminate()
        tk.proc.wait(10)
        if tk.proc.stderr is not None:
            tk.proc.stderr.close()
    assert atspi_driver.backend.tree is not None  # the bus is there; the app is not on it
    assert obs.ocr is not None and obs.elements
    assert {e.cls for e in obs.elements} == {"ocr.Text"}
    assert "Save" in [e.text for e in obs.elements]


def test_the_gate_holds_a_desktop_delete_at_the_same_choke_point(
        atspi_driver: DesktopDriver, mousepad: App, ocr_engine) -> None:
    from omg_agent.brain.agent import choke_point
    from omg_agent.config import Settings
    from omg_agent.drivers.ports import InputHeld

    gated = DesktopDriver(atspi_driver.backend, judge=choke_point(Settings(), "desktop"),
                          ocr=ocr_engine)  # the gate reads an unnamed field's pixels
    act(gated, {"type": "type", "text": "keep this line"})
    act(gated, {"type": "tap", "target": {"kind": "anchor", "text": "Edit"}})
    obs = gated.observe()
    delete = next(e for e in obs.elements if e.text == "Delete Line")
    assert delete.window == "popup" and delete.role == "menuitem"  # the open menu
    result = gated.execute([parse_action({"type": "tap", "target": delete.id})], obs)
    assert not result.ok and isinstance(result.outcomes[0].error, InputHeld)
    act(atspi_driver, {"type": "key", "key": "escape"})
    text = next(e.text for e in atspi_driver.observe().elements if e.role == "input")
    assert text == "keep this line"  # the app's own text: nothing was deleted


def test_a_right_click_opens_the_context_menu_as_its_own_window(
        atspi_driver: DesktopDriver, mousepad: App) -> None:
    act(atspi_driver, {"type": "type", "text": "word"})
    area = next(e for e in atspi_driver.observe().elements if e.role == "input")
    act(atspi_driver, {"type": "long_press", "target": area.id})  # a right click

    def menu() -> list[str]:
        return [e.text for e in atspi_driver.observe().elements
                if e.window == "popup" and e.role == "menuitem"]

    items = wait_for(lambda: "Select All" in menu() and menu(), 5)
    assert items and {"Cut", "Copy", "Paste", "Select All"} <= set(items), items
    act(atspi_driver, {"type": "tap", "target": {"kind": "anchor", "text": "Select All"}})
    act(atspi_driver, {"type": "type", "text": "replaced"})  # typing over the selection
    assert wait_for(lambda: next(e.text for e in atspi_driver.observe().elements
                                 if e.role == "input") == "replaced")


def test_desktop_ocr_reads_an_app_with_a_tree_by_ocr_only(
        atspi_driver: DesktopDriver, galculator: App, a11y_display) -> None:
    """``--device desktop=:N,ocr``: the driver before the tree, for apps that do have one
    (what the relay round compares the tree against)."""
    from omg_agent.drivers.desktop import open_desktop

    assert atspi_driver.backend.elements()  # the calculator is on the bus
    ocr_only = open_desktop(f"desktop={a11y_display},ocr")
    try:
        assert ocr_only.backend.tree is None and ocr_only.backend.elements() is None
    finally:
        ocr_only.close()
    tree_first = open_desktop(f"desktop={a11y_display},tree")
    try:
        assert tree_first.backend.elements()
    finally:
        tree_first.close()


def test_a_field_is_clicked_so_typing_lands_in_it_and_a_spin_button_commits(
        atspi_driver: DesktopDriver, mousepad: App) -> None:
    """A tap before typing on a field is a real click, not its ``activate`` action (which
    takes no focus): in the relay round the tree arm set mousepad's tab width to 4 on screen
    while the spin button never had the focus, so Tab did not commit it and the preference
    stayed 8 (pref-tabs / tree)."""
    act(atspi_driver, {"type": "tap", "target": {"kind": "anchor", "text": "Edit"}})
    act(atspi_driver, {"type": "tap", "target": {"kind": "anchor", "text": "Preferences",
                                                  "match": "contains"}})
    act(atspi_driver, {"type": "tap", "target": {"kind": "anchor", "text": "Editor"}})
    spin = next(e for e in atspi_driver.observe().elements if e.cls == "spin button")
    act(atspi_driver, {"type": "type", "text": "4", "clear": True,
                       "target": {"kind": "element", "id": spin.id}})

    def spin_now() -> Any:
        return next((e for e in atspi_driver.observe().elements
                     if e.cls == "spin button" and e.bounds == spin.bounds), None)

    now = wait_for(lambda: (s := spin_now()) is not None and s.focused and s.text == "4"
                   and s)
    assert now, spin_now()
