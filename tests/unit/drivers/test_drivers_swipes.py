"""Swipes move what they say: the asked distance, cut only by the screen edge, reported."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from omg_agent.core.actions import parse_action
from omg_agent.core.geometry import Point, ScreenGeometry
from omg_agent.drivers import commands as cmds
from tests.unit.drivers.test_drivers_executor import GEO, FakeDevice, RecordingPort, run, screen

PHONE = ScreenGeometry(1080, 2400, status_bar=110, nav_bar=66)


def travel(start: Point, end: Point) -> int:
    return cmds.swipe_travel(PHONE, start, end)


@pytest.mark.parametrize("direction", ["up", "down", "left", "right"])
def test_a_swipe_of_600_from_the_centre_moves_600_units(direction: str) -> None:
    start, end = cmds.swipe_points(PHONE, None, direction, 600)
    assert travel(start, end) == 600
    zone = PHONE.safe_zone
    assert zone.contains(start) and zone.contains(end)
    moves = {"up": (0, -1440), "down": (0, 1440), "left": (-648, 0), "right": (648, 0)}
    assert (end.x - start.x, end.y - start.y) == moves[direction]  # 600/1000 of each axis


def test_a_swipe_that_fits_from_the_centre_still_starts_there() -> None:
    assert cmds.swipe_points(PHONE, None, "up", 250) == (Point(540, 1200), Point(540, 600))


def test_a_given_start_is_kept_and_only_the_screen_edge_cuts_the_distance() -> None:
    start, end = cmds.swipe_points(PHONE, Point(540, 1200), "up", 600)
    assert start == Point(540, 1200) and end == Point(540, 110)  # the status bar's edge
    assert travel(start, end) == 454


def test_a_distance_longer_than_the_screen_runs_edge_to_edge() -> None:
    start, end = cmds.swipe_points(PHONE, None, "up", 1000)
    assert start == Point(540, 2333) and end == Point(540, 110)


@given(st.integers(50, 1000), st.sampled_from(["up", "down", "left", "right"]))
def test_from_the_centre_the_travel_is_the_distance_whenever_it_fits(
        distance: int, direction: str) -> None:
    start, end = cmds.swipe_points(PHONE, None, direction, distance)
    zone = PHONE.safe_zone
    assert zone.contains(start) and zone.contains(end)
    room = (zone.height if direction in ("up", "down") else zone.width) - 1
    axis = PHONE.height if direction in ("up", "down") else PHONE.width
    asked_px = round(distance * axis / 1000)
    moved_px = abs(end.y - start.y) + abs(end.x - start.x)
    assert moved_px == min(asked_px, room)


def test_the_outcome_reports_the_distance_moved() -> None:
    obs = screen()
    result = run(FakeDevice(obs), RecordingPort(), {"type": "swipe", "direction": "up",
                                                    "distance": 600}, obs=obs)
    assert result.ok
    assert result.outcomes[0].detail.endswith("(moved 600 units up)")
    start = {"kind": "point", "x": 500, "y": 500}
    result = run(FakeDevice(obs), RecordingPort(), {"type": "swipe", "direction": "up",
                                                    "distance": 600, "start": start}, obs=obs)
    moved = cmds.swipe_travel(GEO, Point(500, 1000), Point(500, GEO.status_bar))
    assert result.outcomes[0].detail.endswith(
        f"(moved {moved} of 600 units up: cut at the screen edge)")


def test_a_swipe_from_and_to_reports_its_points_only() -> None:
    obs = screen()
    action = parse_action({"type": "swipe", "from": {"kind": "point", "x": 500, "y": 800},
                           "to": {"kind": "point", "x": 500, "y": 200}})
    port = RecordingPort()
    result = run(FakeDevice(obs), port, action.model_dump(by_alias=True), obs=obs)
    # the report (read by the model) names the points in its 0–1000 units; the phone gets pixels
    assert result.outcomes[0].detail == "swipe 500,800 -> 500,200"
    assert port.log == [(0, "swipe 500,1600->500,400")]
