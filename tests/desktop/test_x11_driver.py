"""The desktop driver on a real X server (Xvfb) against the Tk test app.

Every outcome is read from the app's own state file (``AppState``), never from what the
driver reports: a click counted by the button's command, the field's text from the Entry
widget, the list's first visible row from its scrollbar position.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from desktop_apps import AppState

from omg_agent.core.actions import parse_action
from omg_agent.drivers.desktop import open_desktop
from omg_agent.drivers.desktop.driver import DesktopDriver

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def driver(xdisplay: str, ocr_engine: Any):
    d = open_desktop(f"desktop={xdisplay}", ocr=ocr_engine, settle_timeout=1.0)
    try:
        yield d
    finally:
        d.close()


def act(driver: DesktopDriver, *actions: dict[str, Any]):
    result = driver.execute([parse_action(a) for a in actions], driver.observe())
    assert result.ok, [o.detail for o in result.outcomes]
    return result


def texts(obs) -> list[str]:
    return [e.text.replace(" ", "") for e in obs.elements]


def test_observe_reads_the_apps_words_as_elements_with_their_boxes(driver, desktop_app):
    obs = driver.observe()
    words = texts(obs)
    for label in ("Save", "Clear", "Additem", "Typehere", "Row01", "Row08", "Ready"):
        assert label in words, words
    save = next(e for e in obs.elements if e.text == "Save")
    assert obs.size == (1024, 768) and save.cls == "ocr.Text"
    assert save.bounds.right < 300 and save.bounds.bottom < 80  # the app sits at +0+0


def test_a_tap_by_anchor_presses_the_button_and_the_status_line_follows(driver, desktop_app):
    result = act(driver, {"type": "tap", "target": {"kind": "anchor", "text": "Add item"}})
    assert result.outcomes[0].source == "tree"  # the OCR element list
    state = desktop_app.wait_for(lambda s: s["clicks"]["Add item"] == 1)
    assert state["clicks"] == {"Add item": 1, "Clear": 0, "Save": 0}
    assert state["list_size"] == 61
    assert "Additempressed1x" in texts(driver.observe())


def test_typing_chinese_into_the_field_by_its_placeholder(driver, desktop_app):
    act(driver, {"type": "type", "text": "你好，世界 abc",
                 "target": {"kind": "anchor", "text": "Type here"}})
    state = desktop_app.wait_for(lambda s: s["entry"] == "你好，世界 abc")
    assert state["entry"] == "你好，世界 abc"
    # clear=true selects what is there and types over it; ctrl+h is Tk's backspace
    act(driver, {"type": "type", "text": "第二", "clear": True,
                 "target": {"kind": "anchor", "text": "你好", "match": "contains"}})
    assert desktop_app.wait_for(lambda s: s["entry"] == "第二")["entry"] == "第二"
    result = act(driver, {"type": "key", "key": "Ctrl+H"})  # the model's hotkey action
    assert result.outcomes[0].ok and "hotkey ctrl+h" in result.outcomes[0].detail
    assert desktop_app.wait_for(lambda s: s["entry"] == "第")["entry"] == "第"


def test_a_swipe_by_direction_scrolls_the_list_under_its_start(driver, desktop_app):
    act(driver, {"type": "swipe", "direction": "up", "distance": 250,
                 "start": {"kind": "anchor", "text": "Row 04"}})
    state = desktop_app.wait_for(lambda s: s["list_top"] > 0)
    assert state["list_top"] > 0
    assert "Row01" not in texts(driver.observe())
    top = state["list_top"]
    act(driver, {"type": "swipe", "direction": "down", "distance": 100,
                 "start": {"kind": "anchor", "text": f"Row {top + 2:02d}"}})
    assert desktop_app.wait_for(lambda s: s["list_top"] < top)["list_top"] < top


def test_double_click_long_press_and_drag(driver, desktop_app):
    act(driver, {"type": "double_tap", "target": {"kind": "anchor", "text": "Row 03"}})
    assert desktop_app.wait_for(lambda s: s["opened"] == "Row 03")["opened"] == "Row 03"
    act(driver, {"type": "long_press", "target": {"kind": "anchor", "text": "Ready"}})
    assert desktop_app.wait_for(lambda s: s["right_clicks"] == 1)["right_clicks"] == 1
    act(driver, {"type": "swipe", "from": {"kind": "anchor", "text": "Row 02"},
                 "to": {"kind": "anchor", "text": "Row 06"}})
    assert desktop_app.wait_for(lambda s: s["selected"] == "Row 06")["selected"] == "Row 06"


def test_launch_by_command_line_starts_the_app(driver, xdisplay, tmp_path):
    state = tmp_path / "launched.json"
    command = f"{sys.executable} -m omg_agent.drivers.desktop.testapp --state {state}"
    backend: Any = driver.backend
    try:
        result = driver.execute([parse_action({"type": "launch", "app": command})])
        assert result.ok, result.outcomes
        started = AppState(state, backend.launched[-1])
        assert started.wait_for(lambda s: s.get("ready", False), 20).get("ready")
    finally:
        for proc in backend.launched:
            proc.terminate()
            proc.wait(10)
    bad = driver.execute([parse_action({"type": "launch", "app": "no-such-program-xyz"})])
    assert not bad.ok and "not a program on PATH" in bad.outcomes[0].detail


def test_cli_observe_device_desktop_prints_the_elements(xdisplay, desktop_app):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    out = subprocess.run([sys.executable, "-m", "omg_agent.cli", "observe", "--device",
                          f"desktop={xdisplay}", "--json"], capture_output=True, text=True,
                         env=env, timeout=90, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    data = json.loads(out.stdout)
    words = [e["text"].replace(" ", "") for e in data["elements"]]
    assert {"Save", "Clear", "Typehere", "Row01"} <= set(words), words
    assert data["size"] == [1024, 768]
    bad = subprocess.run([sys.executable, "-m", "omg_agent.cli", "observe", "--device",
                          "desktop=nowhere"], capture_output=True, text=True, env=env,
                         timeout=60, check=False)
    assert bad.returncode == 1 and "desktop=:N" in bad.stderr
