"""Waiting out a loading screen after an action: what says "loading", and the bounded wait."""

from __future__ import annotations

import pytest
from PIL import Image

from omg_agent.core.actions import parse_action
from omg_agent.core.geometry import Bounds, ScreenGeometry
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers.executor import BundleExecutor
from omg_agent.drivers.loading import LoadingWait, loading_signs
from omg_agent.perception.labels import loading_cue
from tests.unit.drivers.test_drivers_executor import FakeDevice, RecordingPort

GEO = ScreenGeometry(1000, 2000, status_bar=50, nav_bar=100)
APP = "com.omg.shop"
BOX = Bounds(0, 600, 1000, 700)


def el(i: int, role: str = "text", *, text: str = "", desc: str = "", package: str = APP,
       cls: str = "android.widget.TextView", editable: bool = False,
       bounds: Bounds = BOX) -> UIElement:
    return UIElement(i, cls, role, bounds, text=text, desc=desc, package=package,
                     editable=editable)


SPINNER = el(1, "progress", desc="Loading", cls="android.widget.ProgressBar")
SEARCHING = el(2, text="Searching… 搜索中")
RESULT = el(3, "item", text="MacBook Air 13")


def screen(*elements: UIElement, name: str = "s") -> Observation:
    return Observation(Image.new("RGB", GEO.size), elements, package=APP, screen_hash=name,
                       geometry=GEO)


class Screens:
    """``observe`` over a script of screens; the last one stays."""

    def __init__(self, *screens: Observation) -> None:
        self.screens = list(screens)
        self.observed = 0

    def __call__(self) -> Observation:
        self.observed += 1
        return self.screens.pop(0) if len(self.screens) > 1 else self.screens[0]


@pytest.mark.parametrize("label", ["Loading…", "Loading...", "Searching… 搜索中", "Please wait",
                                   "加载中", "正在搜索…", "请稍候", "Loading more posts"])
def test_short_labels_that_say_loading_are_cues(label: str) -> None:
    assert loading_cue(label) is not None


@pytest.mark.parametrize("label", [
    "Load more", "Searching for the perfect gift is hard work", "MacBook Air 13", "下载", "",
    "加载失败，请重试点击这里刷新页面"])
def test_other_labels_and_sentences_are_not(label: str) -> None:
    assert loading_cue(label) is None


def test_a_progress_bar_or_a_loading_text_of_the_app_says_it_is_loading() -> None:
    assert loading_signs(screen(SPINNER, RESULT)) == [SPINNER]
    assert loading_signs(screen(SEARCHING)) == [SEARCHING]
    assert loading_signs(screen(RESULT)) == []
    typed = el(4, "input", text="loading", cls="android.widget.EditText", editable=True)
    elsewhere = el(5, text="Loading…", package="com.android.systemui")
    hidden = el(6, "progress", bounds=Bounds(0, 0, 0, 0))
    assert loading_signs(screen(typed, elsewhere, hidden, RESULT)) == []


def test_only_an_observation_after_an_action_waits() -> None:
    wait = LoadingWait(timeout=5.0, poll=0.001)
    observe = Screens(screen(RESULT))
    loading = screen(SPINNER)
    assert wait.after(loading, observe) is loading and observe.observed == 0
    wait.arm()
    loaded = wait.after(loading, observe)
    assert loaded.elements == (RESULT,) and observe.observed == 1
    assert "loading" in loaded.timings
    assert wait.after(loading, observe) is loading  # one wait per action
    assert observe.observed == 1


def test_the_wait_follows_the_screen_until_nothing_says_loading() -> None:
    wait = LoadingWait(timeout=5.0, poll=0.001)
    observe = Screens(screen(SPINNER, SEARCHING), screen(SEARCHING), screen(RESULT))
    wait.arm()
    assert wait.after(screen(SPINNER), observe).elements == (RESULT,)
    assert observe.observed == 3


def test_a_sign_that_outlasts_the_wait_is_not_waited_for_again_while_it_stays() -> None:
    wait = LoadingWait(timeout=0.05, poll=0.001)
    stuck = screen(SPINNER, RESULT)
    observe = Screens(stuck)
    wait.arm()
    assert "loading" in wait.after(stuck, observe).timings  # waited, gave up
    seen = observe.observed
    wait.arm()
    assert wait.after(stuck, observe) is stuck and observe.observed == seen
    # once it left the screen, a spinner is a loading sign again
    assert wait.after(screen(RESULT), observe).elements == (RESULT,)
    wait.timeout = 5.0
    wait.arm()
    assert wait.after(stuck, Screens(screen(RESULT))).elements == (RESULT,)


def test_a_negative_timeout_is_refused_with_what_is_accepted() -> None:
    with pytest.raises(ValueError, match="0 or more seconds"):
        LoadingWait(timeout=-1)


def executed_then_armed(action: dict, obs: Observation) -> bool:
    """Run ``action`` through the executor, then whether its driver's next look waits."""
    device, wait = FakeDevice(obs), LoadingWait(timeout=5.0, poll=0.001)
    executor = BundleExecutor(device, RecordingPort(), loading=wait)
    assert executor.run([parse_action(action)], obs).ok
    observe = Screens(screen(RESULT))
    wait.after(screen(SPINNER), observe)
    return observe.observed == 1


@pytest.mark.parametrize(("action", "armed"), [
    ({"type": "tap", "target": {"kind": "anchor", "text": "MacBook Air 13"}}, True),
    ({"type": "swipe", "direction": "up"}, True),
    ({"type": "back"}, True),
    ({"type": "wait", "seconds": 0.01}, False),
    ({"type": "type", "text": "x", "target": 7}, False),  # typing into a field
])
def test_the_executor_arms_the_wait_after_an_action_that_changes_the_screen(
        action: dict, armed: bool) -> None:
    field = el(7, "input", cls="android.widget.EditText", editable=True,
               bounds=Bounds(0, 200, 1000, 300))
    assert executed_then_armed(action, screen(field, RESULT)) is armed
