"""Each planning mode runs a suite task end to end: the expert double behind the real
openai client, the adb server, a vphone; success read from the phone, calls by role from
the run."""

from __future__ import annotations

import pytest

from omg_agent.bench.suite import select, suite_tasks
from omg_agent.sim.expert import NoiseProfile
from omg_agent.sim.expert.runner import run_task

TASK = "shop.price_to_notes"  # cross-app, needs memory: several screens in two apps


@pytest.mark.parametrize("mode", ["flat", "unified", "replan-each", "adaptive"])
def test_every_mode_finishes_a_cross_app_task(mode: str) -> None:
    [task] = select(suite_tasks(0), TASK)
    run = run_task(task, NoiseProfile.named("none"), seed=3, max_steps=60,
                   overrides={"planning": mode})
    assert (run.success, run.status) == (True, "done"), run
    if mode in ("flat", "unified"):
        assert run.planner_calls <= 1  # at most the confirmation of an unchecked claim
    else:
        assert run.planner_calls >= 1
    if mode == "adaptive":  # nothing failed: the plan, and the confirmation of prose
        assert run.planner_calls <= 2
