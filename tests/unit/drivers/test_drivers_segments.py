"""Segments of a bundle, decided once, by the executor: where the first screen ends, what may
follow a screen change, and what the caller's review is shown before anything runs."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from PIL import Image

from omg_agent.core.actions import AnchorTarget, is_boundary, parse_action
from omg_agent.core.geometry import Bounds, ScreenGeometry
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers.executor import BundleExecutor
from omg_agent.drivers.ports import Planned
from omg_agent.drivers.unseen import ANCHOR_WAIT_S, blind_reason
from omg_agent.perception.anchor import Anchorer, match_anchor
from tests.unit.brain.fakes import FakeClock as Clock
from tests.unit.drivers.test_drivers_executor import GEO, FakeDevice, RecordingPort

FIELD = UIElement(1, "android.widget.EditText", "input", Bounds(0, 100, 1000, 200),
                  resource_id="com.omg.login:id/username", clickable=True, editable=True)
SWITCH = UIElement(2, "android.widget.Switch", "switch", Bounds(800, 300, 1000, 400),
                   resource_id="com.android.settings:id/wifi_switch", clickable=True,
                   checkable=True)
BUTTON = UIElement(3, "android.widget.Button", "button", Bounds(0, 500, 1000, 600),
                   text="Sign in", resource_id="com.omg.login:id/sign_in", clickable=True)
OFF = UIElement(4, "android.widget.Switch", "switch", Bounds(800, 700, 1000, 800),
                checkable=True, enabled=False)
OBS = Observation(Image.new("RGB", (1000, 1000)), (FIELD, SWITCH, BUTTON, OFF))


def acts(*raw: dict) -> list:
    return [parse_action(a) for a in raw]


def tap(**target) -> dict:
    return {"type": "tap", "target": target}


class Review:
    """A caller's review: records what it was shown; holds the action at ``hold``."""

    def __init__(self, *, unseen: bool = False, hold: int | None = None) -> None:
        self.unseen, self.hold = unseen, hold
        self.shown: list[tuple[int, str, UIElement | None]] = []
        self.screen: Observation | None = None
        self.why: str | None = None

    def review(self, planned: Sequence[Planned], screen: Observation | None) -> int | None:
        self.shown = [(p.index, p.action.type, p.element) for p in planned]
        self.screen = screen
        return self.hold

    def stopped(self, why: str, screen: Observation | None) -> None:
        self.why, self.screen = why, screen


def screen(*elements: UIElement, name: str = "s") -> Observation:
    return Observation(Image.new("RGB", GEO.size), elements, package="app", screen_hash=name,
                       geometry=GEO)


def executor(device: FakeDevice, port: RecordingPort, clock: Clock | None = None):
    clock = clock or Clock()
    return BundleExecutor(device, port, clock=clock, sleep=clock.sleep)


@pytest.mark.parametrize(("element", "boundary"), [
    (FIELD, False), (SWITCH, False), (BUTTON, True), (OFF, True), (None, True)])
def test_a_tap_is_a_boundary_unless_it_lands_on_a_field_or_a_switch(element, boundary) -> None:
    assert is_boundary(parse_action(tap(kind="element", id=1)), element) is boundary


def test_the_first_segment_runs_through_field_and_switch_taps_to_the_button() -> None:
    shown = screen(FIELD, SWITCH, BUTTON)
    device, port, review = FakeDevice(shown), RecordingPort(), Review()
    bundle = acts(tap(kind="element", id=1), {"type": "type", "text": "demo"},
                  tap(kind="element", id=2), tap(kind="element", id=3),
                  {"type": "launch", "app": "Notes"})
    result = executor(device, port).run(bundle, shown, review)
    assert [(i, t) for i, t, _ in review.shown] == [(0, "tap"), (1, "type"), (2, "tap"),
                                                     (3, "tap")]
    # the elements the taps land on (typing into no focused field names none)
    assert [e.id if e else None for _, _, e in review.shown] == [1, None, 2, 3]
    assert result.ok and result.dropped == 1  # the launch is the next segment's
    assert port.batches == 1


def test_a_held_action_and_what_follows_it_never_run() -> None:
    shown = screen(FIELD, BUTTON)
    device, port, review = FakeDevice(shown), RecordingPort(), Review(hold=1)
    result = executor(device, port).run(
        acts({"type": "type", "text": "x", "target": {"kind": "element", "id": 1}},
             tap(kind="element", id=3)), shown, review)
    assert [i for i, _ in port.log] == [0, 0]  # the typing's tap and text, not the button
    assert result.executed == 1 and result.dropped == 1 and device.settled == []


@pytest.mark.parametrize(("segment", "why"), [
    ([tap(kind="anchor", text="Wi-Fi")], ""),
    ([{"type": "launch", "app": "Notes"}], ""),
    ([{"type": "scan"}], ""),  # it finds the list itself, or fails saying there is none
    ([{"type": "type", "text": "x", "target": {"kind": "anchor", "resource_id": "q"}},
      {"type": "key", "key": "enter"}], ""),
    ([{"type": "mem_save", "key": "p", "from_screen": {
        "target": {"kind": "anchor", "resource_id": "price"}}}], ""),
    ([tap(kind="element", id=3)], "element [3] of the old screen"),
    ([tap(kind="point", x=1, y=2)], "point 1,2 of the old screen"),
    ([{"type": "back"}], "nobody has seen"),
    ([{"type": "type", "text": "x"}], "nobody has seen"),
    ([{"type": "swipe", "direction": "up"}], "nobody has seen"),
    ([{"type": "mem_save", "key": "p", "from_screen": {
        "region": {"left": 0, "top": 0, "right": 10, "bottom": 10}}}], "nobody has seen"),
])
def test_only_anchored_or_screen_free_actions_follow_a_screen_change(segment, why) -> None:
    reason = blind_reason(acts(*segment))
    assert (why in reason and reason) if why else reason == ""


def test_a_segment_on_an_unseen_screen_with_an_old_screens_target_is_not_looked_at() -> None:
    device, port, review = FakeDevice(screen(BUTTON)), RecordingPort(), Review(unseen=True)
    result = executor(device, port).run(acts(tap(kind="element", id=3)), None, review)
    assert review.why and "element [3] of the old screen" in review.why
    assert review.screen is None and device.observed == 0 and port.log == []
    assert result.outcomes == () and result.dropped == 1


def test_an_unseen_screen_is_looked_at_again_until_it_shows_the_segments_anchors() -> None:
    loading = screen(name="loading")
    loaded = screen(FIELD, BUTTON, name="loaded")
    device, port, review = FakeDevice(loading, loading, loaded), RecordingPort(), Review(
        unseen=True)
    clock = Clock()
    result = executor(device, port, clock).run(
        acts(tap(kind="anchor", text="Sign in")), None, review)
    # the second look saw the same screen: it stood still without a loading sign
    assert review.why == "not on the new screen: anchor text='Sign in'"
    assert review.screen is loading and device.observed == 2 and port.log == []
    assert result.dropped == 1 and clock.now < ANCHOR_WAIT_S

    device, review = FakeDevice(loading, loaded), Review(unseen=True)
    result = executor(device, port, clock).run(
        acts(tap(kind="anchor", text="Sign in")), None, review)
    assert review.why is None and review.screen is loaded and result.ok
    assert review.shown[0][2] is BUTTON


def test_an_unseen_screen_that_keeps_changing_is_given_up_on_after_the_wait() -> None:
    screens = [screen(name=f"s{i}") for i in range(30)]
    device, review, clock = FakeDevice(*screens), Review(unseen=True), Clock()
    executor(device, RecordingPort(), clock).run(
        acts(tap(kind="anchor", text="Sign in")), None, review)
    assert review.why == "not on the new screen: anchor text='Sign in'"
    assert clock.now >= ANCHOR_WAIT_S and device.observed < 30


# -- one anchor matcher: the executor's segments find what the drivers' Anchorer finds -----
LABEL = UIElement(5, "android.widget.TextView", "text", Bounds(20, 860, 400, 900),
                  text="Settings")
ROW = UIElement(6, "android.widget.LinearLayout", "row", Bounds(0, 850, 1000, 950),
                clickable=True)
SETTINGS = Observation(Image.new("RGB", (1000, 1000)), (LABEL, ROW))


@pytest.mark.parametrize("anchor", [
    {"text": "settings"}, {"text": "Ｓｅｔｔｉｎｇｓ"}, {"text": "sett", "match": "contains"}])
def test_an_anchor_names_the_same_element_in_segments_and_in_the_drivers(anchor) -> None:
    target = AnchorTarget(kind="anchor", **anchor)
    found = match_anchor(target, SETTINGS.elements)
    assert found is not None and found.element is LABEL and found.target is ROW
    resolved = Anchorer(ScreenGeometry(1000, 1000)).resolve(target, SETTINGS)  # the drivers
    assert resolved.element is ROW and resolved.source == "tree"
