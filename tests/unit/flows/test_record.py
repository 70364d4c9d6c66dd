"""Recording: what a user does on a screen becomes anchored steps, never coordinates."""

from __future__ import annotations

from PIL import Image

from omg_agent.core.actions import Back, ElementTarget, Launch, PointTarget, Tap, TypeText
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.flows.model import Selector
from omg_agent.flows.record import FlowRecorder
from omg_agent.flows.recorder_cli import parse_command
from omg_agent.flows.write import dump_flow

N = "com.omg.notes:id/"


def el(i: int, top: int, text: str = "", rid: str = "", desc: str = "",
       **flags: bool) -> UIElement:
    full = (rid if ":" in rid else N + rid) if rid else ""
    return UIElement(i, "android.widget.Button", "button", Bounds(0, top, 1080, top + 100),
                     text=text, desc=desc, resource_id=full, clickable=True, **flags)


SCREEN = Observation(screenshot=Image.new("RGB", (1080, 2400)), elements=(
    el(1, 200, "Notes", "title"),
    el(2, 400, "Groceries", "note_item"),
    el(3, 600, "Ideas", "note_item"),
    el(4, 2000, "+", "fab_new", desc="New note"),
    el(5, 1200, "No thanks", "android:id/button2"),
    el(6, 1400, "", ""),
))


def test_taps_by_pixel_or_id_become_anchors() -> None:
    rec = FlowRecorder()
    rec.add(Launch(app="Notes"), None)
    rec.add(Tap(target=PointTarget(x=500, y=850)), SCREEN, (540, 2050))  # on the + button
    rec.add(Tap(target=ElementTarget(id=3)), SCREEN)
    rec.add(TypeText(text="milk", target=ElementTarget(id=2), submit=True), SCREEN)
    rec.add(Back(), SCREEN)
    flow = rec.flow()
    assert [c.name for c in flow.commands] == ["launchApp", "tapOn", "tapOn", "inputText",
                                               "pressKey", "back"]
    assert flow.commands[1].selector == Selector(id="fab_new")
    # the simplest selector that is unique on the screen: the shared id alone is not
    assert flow.commands[2].selector == Selector(text="Ideas")
    assert flow.commands[3].selector == Selector(text="Groceries")
    assert "point" not in dump_flow(flow)


def test_a_dismiss_button_is_optional_and_an_unnamed_spot_stays_a_percent_point() -> None:
    rec = FlowRecorder()
    rec.add(Tap(target=ElementTarget(id=5)), SCREEN)
    rec.add(Tap(target=PointTarget(x=500, y=10)), SCREEN, (540, 24))
    dismiss, spot = rec.flow().commands
    assert dismiss.optional and dismiss.selector == Selector(text="No thanks")
    assert spot.point == (50.0, 1.0)


def test_the_record_prompt_reads_commands() -> None:
    assert parse_command("tap 3", SCREEN) == Tap(target=ElementTarget(id=3))
    assert parse_command('type 2 "milk and eggs"', SCREEN) == TypeText(
        text="milk and eggs", target=ElementTarget(id=2), clear=True)
    check = parse_command("check 2", SCREEN)
    assert getattr(check, "name", "") == "assertVisible"
    save = parse_command("save title 1", SCREEN)
    assert getattr(save, "key", "") == "title"
    assert parse_command("done", SCREEN) == "done"
    assert parse_command("fly away", SCREEN) is None
    assert parse_command("check 99", SCREEN) is None
