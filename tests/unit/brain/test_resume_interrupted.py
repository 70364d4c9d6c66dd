"""An interrupted run goes on from its last turn boundary: Ctrl-C right after the phone
acted ends the run ``interrupted`` with the resume command; a new orchestrator loads
``state.json``, re-syncs the plan with the screen (the like already done is ticked, never
toggled back) and finishes with the step count carried on.

The model here is naive on purpose: it taps the like of whatever step is current, so a
resume that did not re-sync the cursor would tap post 2 a second time and unlike it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from omg_agent.brain.resume import (
    STATE_FILE,
    continue_interrupted,
    interrupted,
    load_state,
    resync_plan,
)
from omg_agent.core.actions import Action, Tap
from omg_agent.core.observation import UIElement
from omg_agent.errors import ConfigError, DeviceOffline

from .fakes import FakeWorld, Recorder, ScriptedModel, bundle, el, orchestrator, plan

POSTS = (1, 2, 3)


@dataclass
class Feed:
    liked: set[int] = field(default_factory=set)
    taps: list[int] = field(default_factory=list)
    interrupt_after: int | None = None  # Ctrl-C right after this post's like lands

    def world(self) -> FakeWorld:
        return FakeWorld({"feed": lambda: ("com.omg.feed", [
            el(n, f"Post {n}", res=f"like{n}", checkable=True, checked=n in self.liked)
            for n in POSTS])}, self.move, "feed")

    def move(self, screen: str, action: Action, element: UIElement | None) -> str:
        if isinstance(action, Tap) and element is not None:
            n = int(element.resource_id.removeprefix("like"))
            self.taps.append(n)
            self.liked ^= {n}
            if n == self.interrupt_after:
                self.interrupt_after = None
                raise KeyboardInterrupt  # the user's Ctrl-C, after the device acted
        return screen


def naive(contract: str, text: str, body: dict[str, Any]) -> Any:
    if contract == "TaskPlan":
        return plan(*({"description": f"Like post {n}", "success_criteria": f"post {n} liked",
                       "checks": [{"kind": "element", "resource_id": f"like{n}",
                                   "checked": True}]} for n in POSTS))
    if contract == "Replan":
        return {"status": "done", "response": "all three posts are liked"}
    step = re.search(r"Current step \d+: Like post (\d)", text)
    assert step is not None, text
    return bundle({"type": "tap", "target": {"kind": "anchor",
                                             "resource_id": f"like{step.group(1)}"}})


def test_ctrl_c_then_resume_resyncs_the_plan_and_never_toggles_twice(tmp_path: Path) -> None:
    feed = Feed(interrupt_after=2)
    first = Recorder()
    with orchestrator(feed.world(), ScriptedModel(naive), recorder=first, gate=False,
                      checkpoint=tmp_path) as orch:
        with pytest.raises(KeyboardInterrupt):
            orch.run("Like posts 1 to 3")
        stopped = interrupted(orch, tmp_path)
    assert stopped.status == "interrupted"
    assert f"omg-agent run --resume {tmp_path}" in stopped.next_hint
    assert first.finished == ("interrupted", "")
    assert feed.liked == {1, 2} and feed.taps == [1, 2]

    saved = load_state(tmp_path)
    assert saved.interrupted and saved.state.phase == "THINK"
    assert saved.state.todo.cursor == 1  # the checkpoint predates post 2's like
    used = saved.state.budget.used  # the run goes on in this very state object
    calls = saved.usage[0]
    second = Recorder()
    model = ScriptedModel(naive)
    with orchestrator(feed.world(), model, recorder=second, gate=False,
                      checkpoint=tmp_path) as orch:
        result = continue_interrupted(orch, saved)
    assert result.status == "done"
    assert feed.liked == set(POSTS) and feed.taps == [1, 2, 3]  # post 2 tapped once
    resynced = [d for k, d in second.events if k == "resynced"]
    assert resynced and resynced[0]["ticked"] == [2]
    assert used > 0 and result.steps_used > used
    assert result.model_calls > calls
    ended = json.loads((tmp_path / STATE_FILE).read_text())
    assert ended["phase"] == "DONE"
    with pytest.raises(ConfigError, match="already ended"):
        load_state(tmp_path)


def test_resync_ticks_in_order_and_stops_at_the_first_step_the_screen_lacks(
        tmp_path: Path) -> None:
    feed = Feed(liked={1, 3})  # post 3 liked, post 2 not: step 3 must stay open
    with orchestrator(feed.world(), ScriptedModel(naive)) as orch:
        from omg_agent.brain.planner import TodoList
        from omg_agent.core.contracts import TaskPlan

        todo = TodoList.of(TaskPlan.model_validate(naive("TaskPlan", "", {})))
        obs = orch.driver.observe()
        assert resync_plan(todo, obs, orch.memory) == [0]
    assert todo.cursor == 1 and [t for _, t in todo.entries] == [True, False, False]


def test_a_step_whose_checks_only_name_absences_is_not_ticked_by_a_resync() -> None:
    feed = Feed()
    absent = plan({"description": "Delete post 9", "success_criteria": "post 9 gone",
                   "checks": [{"kind": "element", "text": "Post 9", "present": False}]})
    with orchestrator(feed.world(), ScriptedModel(naive)) as orch:
        from omg_agent.brain.planner import TodoList
        from omg_agent.core.contracts import TaskPlan

        todo = TodoList.of(TaskPlan.model_validate(absent))
        # "Post 9" is absent from this screen, yet nothing shows it was deleted
        assert resync_plan(todo, orch.driver.observe(), orch.memory) == []
    assert todo.cursor == 0


@dataclass
class FlakyFeed(Feed):
    """The device drops off adb right after post ``offline_after``'s like lands."""

    offline_after: int | None = None
    offline: bool = False

    def world(self) -> FakeWorld:
        world = super().world()
        draw = world.screens["feed"]
        assert callable(draw)

        def screen() -> Any:
            if self.offline:
                raise DeviceOffline("device offline", serial="fake", command="screencap")
            return draw()

        world.screens["feed"] = screen
        return world

    def move(self, screen: str, action: Action, element: UIElement | None) -> str:
        moved = super().move(screen, action, element)
        if element is not None and element.resource_id == f"like{self.offline_after}":
            self.offline_after, self.offline = None, True
        return moved


def test_a_run_that_lost_its_device_resumes_from_its_last_good_boundary(
        tmp_path: Path) -> None:
    feed = FlakyFeed(offline_after=2)
    with orchestrator(feed.world(), ScriptedModel(naive), gate=False,
                      checkpoint=tmp_path) as orch:
        lost = orch.run("Like posts 1 to 3")
    assert lost.status == "failed" and "offline" in lost.stopped_because
    assert orch.checkpoint is not None and orch.checkpoint.retryable
    saved = load_state(tmp_path)  # a failed run keeps its last running state
    assert saved.ended == "FAILED" and "offline" in saved.ended_because
    assert saved.state.phase == "THINK" and saved.state.todo.cursor == 1
    feed.offline = False  # the device is back
    with orchestrator(feed.world(), ScriptedModel(naive), gate=False,
                      checkpoint=tmp_path) as orch:
        result = continue_interrupted(orch, saved)
    assert result.status == "done" and feed.liked == set(POSTS)
    assert feed.taps == [1, 2, 3]  # post 2's like, done before the drop, is not undone


def test_a_run_out_of_budget_is_over_not_resumable(tmp_path: Path) -> None:
    with orchestrator(Feed().world(), ScriptedModel(naive), gate=False, max_steps=3,
                      checkpoint=tmp_path) as orch:
        spent = orch.run("Like posts 1 to 3")
    assert spent.status == "failed"
    assert orch.checkpoint is not None and not orch.checkpoint.retryable
    with pytest.raises(ConfigError, match="already ended"):
        load_state(tmp_path)
