"""Bundles across a screen change, end to end: the operator continues only through anchors
it finds on the NEW screen (real openai client → model double, vphone over adb)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.test_orchestrator import ByContract, bundle, memory, plan, run

__all__ = ["memory"]  # the fixture, re-used

SETTINGS = "com.android.settings"


def one_bundle(*actions: dict[str, Any], then_done: bool = True) -> ByContract:
    """Plan one step; the first decision sends ``actions``, the next says done."""
    turns: list[int] = []

    def decide(request: dict[str, Any]) -> str:
        turns.append(1)
        if len(turns) == 1:
            return bundle(*actions)
        return bundle(step_complete=True, goal_complete=True, answer="finished")

    return ByContract(TaskPlan=lambda r: plan({"description": "do it"}),
                      DecisionBundle=decide, Replan=lambda r: pytest.fail("no replan"))


def test_one_call_opens_an_app_and_flips_a_switch_found_by_anchor(
        vphone, memory, tmp_path) -> None:
    phone = vphone.phone
    was = phone.apps[SETTINGS].wifi
    policy = one_bundle({"type": "launch", "app": SETTINGS},
                        {"type": "tap", "target": {"kind": "anchor",
                                                   "resource_id": "wifi_switch"}})
    result, double = run(vphone, policy, memory, tmp_path)
    assert result.status == "done"
    assert phone.apps[SETTINGS].wifi is (not was)
    assert result.model_calls == 3  # plan, the bundle, the verdict


def test_an_anchor_missing_from_the_new_screen_stops_the_bundle(
        vphone, memory, tmp_path) -> None:
    phone = vphone.phone
    was = phone.apps[SETTINGS].wifi
    policy = one_bundle({"type": "launch", "app": SETTINGS},
                        {"type": "tap", "target": {"kind": "anchor", "text": "No such row"}},
                        {"type": "tap", "target": {"kind": "anchor",
                                                   "resource_id": "wifi_switch"}})
    result, double = run(vphone, policy, memory, tmp_path)
    second = double.requests[2].body["messages"][-1]["content"]
    text = second if isinstance(second, str) else " ".join(
        p.get("text", "") for p in second if p.get("type") == "text")
    assert "stopped before action 2" in text and "No such row" in text
    assert phone.focus()[0] == SETTINGS  # the launch ran
    assert phone.apps[SETTINGS].wifi is was  # nothing after the missing anchor did


def test_an_element_id_never_follows_a_screen_change(vphone, memory, tmp_path) -> None:
    phone = vphone.phone
    policy = one_bundle({"type": "launch", "app": SETTINGS},
                        {"type": "tap", "target": {"kind": "element", "id": 3}})
    result, double = run(vphone, policy, memory, tmp_path)
    second = double.requests[2].body["messages"][-1]["content"]
    text = second if isinstance(second, str) else " ".join(
        p.get("text", "") for p in second if p.get("type") == "text")
    assert "element [3] of the old screen" in text
    assert phone.focus()[0] == SETTINGS


def test_a_like_button_a_scan_read_is_scrolled_back_to_after_a_screen_change(
        vphone, memory, tmp_path) -> None:
    # relay round 27: after the scan and a like on the screen, "Like post 1" (the scanned
    # post's own button, above the screen now) stopped the bundle as "not on the new screen"
    feed = vphone.phone.apps["com.omg.feed"]
    like = [{"type": "tap", "target": {"kind": "anchor", "desc": f"Like post {n}"}}
            for n in (7, 1)]
    policy = one_bundle({"type": "launch", "app": "com.omg.feed"},
                        {"type": "scan", "count": 8}, *like)
    result, double = run(vphone, policy, memory, tmp_path)
    assert result.status == "done"
    assert feed.liked == {1, 7}
