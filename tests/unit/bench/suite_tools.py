"""What the suite-check tests share besides the phone (``conftest.py``)."""

from __future__ import annotations

from omg_agent.bench.suite import select, suite_tasks
from omg_agent.sim.expert.tasks import Task


def task_named(task_id: str, seed: int = 0) -> Task:
    """The suite's task ``task_id`` with the parameters seed ``seed`` draws."""
    [task] = select(suite_tasks(seed), task_id)
    return task
