"""Macros on vphone through the real adb server (issue 15, "Done means").

* the detector reads the trace of an agent liking posts one by one and proposes the macro
  with the right parameters; compiled, it likes exactly the next 20 posts, each once;
* a popup at the 7th like mid-macro: the checkpoint stops the macro, the operator gets
  control (a model turn closes the popup and the work goes on), nothing is liked twice.
"""

from __future__ import annotations

from collections import Counter
from contextlib import ExitStack
from pathlib import Path

import pytest

from omg_agent.bench.suite.social_tasks import LikeSet
from omg_agent.brain.agent import open_agent
from omg_agent.drivers.adb import AdbDriver
from omg_agent.macros import MacroRunner, MacroSession, Stop, acts_of_trace, detect
from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
from omg_agent.sim.expert.runner import sim_settings
from omg_agent.sim.macro_policy import MacroAwarePolicy
from omg_agent.sim.model_double import ModelDouble
from omg_agent.trace.loader import load_trace

FEED = "com.omg.feed"


def run_agent(vphone, task: LikeSet, policy, run_dir: Path, tmp: Path,
              macros: MacroSession | None = None, driver: AdbDriver | None = None):
    with ExitStack() as stack:
        double = stack.enter_context(ModelDouble(policy))
        settings = sim_settings(double.base_url, tmp, max_steps=80)
        if driver is None:
            driver = stack.enter_context(AdbDriver(vphone.serial))
        return open_agent(stack, driver, settings, task.goal, run_dir=run_dir,
                          macros=macros).run(task.goal)


def test_macro_from_a_one_by_one_like_trace_likes_exactly_the_next_20(vphone, tmp_path):
    phone = vphone.phone
    task = LikeSet(posts=[1, 2, 3, 4], marker=1500)
    task.setup(phone)
    one_by_one = ExpertPolicy(task, phone, NoiseProfile(bundling="single"))
    result = run_agent(vphone, task, one_by_one, tmp_path / "run", tmp_path)
    feed = phone.apps[FEED]
    assert result.status == "done" and feed.liked == {1, 2, 3, 4}

    found = detect(acts_of_trace(tmp_path / "run"))
    macro = found.macro
    assert macro is not None, found.reason
    assert (macro.app, macro.container, macro.profile) == (
        FEED, "com.omg.feed:id/feed", "1080x2400")
    assert (macro.target.resource_id, macro.target.role, macro.target.action) == (
        "com.omg.feed:id/like", "button", "tap")
    assert (macro.target.todo_text, macro.target.done_text) == ("Like", "Liked ♥")
    assert macro.where == {} and macro.scroll == "up"
    assert found.acted == tuple(f"Like post {n}" for n in (1, 2, 3, 4))

    with AdbDriver(vphone.serial) as driver:
        report = MacroRunner(driver, shell=driver.io).run(macro, Stop(count=20))
    assert report.completed, report.summary()
    assert feed.liked == set(range(1, 25))  # the 4 by hand, then exactly the next 20
    assert Counter(feed.like_log) == dict.fromkeys(range(1, 25), 1)  # none twice
    assert report.sent == tuple(f"Like post {n}" for n in range(5, 25))
    # a Like may change the screen (the judged port's rule): one tap per shell call, each
    # next one planned and judged on the look after it; the scrolls travel alone
    assert report.shell_calls == report.chunks == report.observations - 1 > 20


@pytest.mark.vphone(seed=0)
def test_popup_at_item_7_stops_the_macro_and_hands_back_nothing_liked_twice(vphone,
                                                                             tmp_path):
    phone = vphone.phone
    phone.set_hazards("like_popup")
    task = LikeSet(posts=list(range(1, 21)), marker=1500)
    task.setup(phone)
    policy = MacroAwarePolicy(ExpertPolicy(task, phone))
    with AdbDriver(vphone.serial) as driver:
        session = MacroSession(driver, shell=driver.io)
        result = run_agent(vphone, task, policy, tmp_path / "run", tmp_path, session, driver)

    stopped = session.reports[0]
    assert not stopped.completed and stopped.stopped_by == "checkpoint"
    assert "Enjoying Feed?" in stopped.reason
    assert "operator has control" in stopped.summary()
    # the operator got control: the turn after the macro is a model turn on the popup
    steps = load_trace(tmp_path / "run").steps
    at = next(i for i, s in enumerate(steps) if [a["type"] for a in s.actions] == ["macro"])
    after = steps[at + 1]
    assert after.model_reply and after.actions[0]["type"] == "tap"
    assert any(e.get("text") == "Not now" for e in after.observation["elements"])

    feed = phone.apps[FEED]
    assert feed.popup_shown and not feed.popup_visible
    assert feed.liked == set(range(1, 21)) and result.status == "done"
    assert Counter(feed.like_log) == dict.fromkeys(range(1, 21), 1)  # nothing liked twice
