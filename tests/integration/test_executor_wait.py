"""Waiting is the executor's job, and swipes move what they say (issue 11 items 3 and 5),
end to end: the real openai client → model double over HTTP, vphone over adb.

Shop's "All products" shows a spinner and "Searching… 搜索中" for ``search_delay`` seconds
of the phone's clock after the tap. Two ways a loading screen fooled the old settle rule:
with animations off (``animator_duration_scale 0``, as on many test phones) the spinner
stands still, so the frames looked settled at once; and a turning spinner that outlasts the
settle timeout. Either way the next turn saw the spinner: a model turn spent waiting, or a
check run before the list loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from omg_agent.core.actions import parse_action
from omg_agent.drivers.adb import AdbDriver
from tests.integration.test_orchestrator import (
    ByContract,
    Recorder,
    bundle,
    find,
    memory,
    run,
    screen,
)

__all__ = ["memory"]  # the fixture, re-used

SHOP = "com.omg.shop"
PLAN = f"""
goal: show every product in Shop
steps:
  - description: Open the list of all products
    success_criteria: the product list is shown
    complexity: 2
    checks:
      - kind: element
        resource_id: "{SHOP}:id/results"
"""
LOADING = [
    pytest.param(False, 2.0, id="a still spinner for 2 s (animations off)"),
    pytest.param(True, 3.0, id="a turning spinner longer than the settle timeout"),
]


def open_shop(vphone, animated: bool, delay: float) -> None:
    phone = vphone.phone
    shop = phone.apps[SHOP]
    shop.promo_mode, shop.search_delay = "never", delay
    if not animated:
        phone.settings["global"]["animator_duration_scale"] = "0"
    phone.start_activity(SHOP)


def loading_shown(request: dict[str, Any]) -> bool:
    els = screen(request)
    return find(els, has="Searching") is not None or find(els, res="progress") is not None


class Shopper:
    """A model for the one step: tap "All products"; on the list, claim the step. On a
    loading screen it does what real models did: ``wait`` (``careless=False``) or claim
    the step because its tap went through (``careless=True``)."""

    def __init__(self, *, careless: bool) -> None:
        self.careless = careless
        self.saw_loading: list[bool] = []

    def decide(self, request: dict[str, Any]) -> str:
        loading = loading_shown(request)
        self.saw_loading.append(loading)
        if loading:
            return bundle(step_complete=True) if self.careless else bundle(
                {"type": "wait", "seconds": 1}, intent="wait for the list")
        if find(screen(request), res="results") is not None:
            return bundle(step_complete=True)
        return bundle({"type": "tap", "target": {"kind": "anchor",
                                                 "resource_id": f"{SHOP}:id/all_products"}},
                      intent="open all products")

    def policy(self) -> ByContract:
        def no_planner(request: dict[str, Any]) -> str:
            raise AssertionError("a predefined plan needs no planner")

        return ByContract(DecisionBundle=self.decide, TaskPlan=no_planner, Replan=no_planner)


def plan_file(tmp_path: Path) -> Path:
    path = tmp_path / "plan.yaml"
    path.write_text(PLAN)
    return path


@pytest.mark.parametrize(("animated", "delay"), LOADING)
def test_a_loading_screen_after_a_tap_costs_no_model_turn(vphone, memory, tmp_path,
                                                          animated: bool, delay: float) -> None:
    open_shop(vphone, animated, delay)
    model = Shopper(careless=False)
    recorder = Recorder()
    result, double = run(vphone, model.policy(), memory, tmp_path, plan_file=plan_file(tmp_path),
                         recorder=recorder, planning="adaptive", auto_verify=True)
    assert result.status == "done", result.summary()
    # one turn taps; the list's checks pass on the next look, with no model turn between
    assert model.saw_loading == [False]
    assert result.model_calls == len(double.requests) == 1
    assert "auto_verified" in recorder.kinds() and not result.post_mortems
    assert vphone.phone.state()["apps"][SHOP]["results_loaded"]


@pytest.mark.parametrize(("animated", "delay"), LOADING)
def test_a_tap_whose_result_appears_after_loading_passes_its_checks(
        vphone, memory, tmp_path, animated: bool, delay: float) -> None:
    """The false CLICK_MISSED: the claim after the tap is verified on the loaded list, not
    on the spinner — no failed check, no failed step, no replan."""
    open_shop(vphone, animated, delay)
    model = Shopper(careless=True)
    recorder = Recorder()
    result, double = run(vphone, model.policy(), memory, tmp_path, plan_file=plan_file(tmp_path),
                         recorder=recorder, planning="adaptive", auto_verify=False)
    assert result.status == "done", result.summary()
    assert model.saw_loading == [False, False]  # the tap, then the claim on the list
    assert result.model_calls == 2
    kinds = recorder.kinds()
    assert "not_verified" not in kinds and "post_mortem" not in kinds and "replan" not in kinds
    assert not result.post_mortems


# -- swipes ---------------------------------------------------------------------------------
@pytest.fixture
def driver(vphone):
    p = vphone.phone.profile
    d = AdbDriver(vphone.serial, status_bar_px=p.status_bar_height,
                  nav_bar_px=p.nav_bar_height, ime_settle_s=0.0)
    yield d
    d.close()


@pytest.mark.parametrize("distance", [600, 300])
def test_a_swipe_of_600_from_the_centre_scrolls_the_feed_600_units(vphone, driver,
                                                                  distance: int) -> None:
    phone = vphone.phone
    phone.start_activity("com.omg.feed")
    obs = driver.observe()
    before = phone.state()["apps"]["com.omg.feed"]["scroll_offset"]
    swipe = parse_action({"type": "swipe", "direction": "up", "distance": distance})
    result = driver.execute([swipe], obs)
    assert result.ok
    assert result.outcomes[0].detail.endswith(f"(moved {distance} units up)")
    after = phone.state()["apps"]["com.omg.feed"]["scroll_offset"]
    # the list follows the finger: its offset grows by the pixels the finger travelled
    assert after - before == round(distance * phone.profile.height / 1000)

