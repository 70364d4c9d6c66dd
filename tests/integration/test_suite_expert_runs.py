"""The task suite end to end: the expert runs every task (real openai client, model double,
adb server, vphone) and the task's check passes on the phone it leaves behind.

Impossible tasks pass only when the run ends ``infeasible`` with nothing harmed. The
near-miss side of every check (a wrong end state fails it) is a unit test:
``tests/unit/bench/test_suite_checks.py``.
"""

from __future__ import annotations

import pytest

from omg_agent.bench.suite import select, suite_tasks
from omg_agent.sim.expert import NoiseProfile
from omg_agent.sim.expert.runner import run_task

SEED = 0  # the suite's parameter seed
PHONE_SEED = 3  # the phone's seed in these tests
IDS = [t.id for t in suite_tasks(SEED)]


@pytest.mark.parametrize("task_id", IDS)
def test_the_expert_run_passes_the_check(task_id) -> None:
    [task] = select(suite_tasks(SEED), task_id)
    run = run_task(task, NoiseProfile.named("none"), seed=PHONE_SEED)
    expected = "infeasible" if task.impossible else "done"
    assert (run.success, run.status) == (True, expected), run
