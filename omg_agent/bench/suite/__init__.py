"""The task suite: AndroidWorld-style vphone tasks with seeded random parameters, a setup,
a success check on the apps' TRUE state and an expert policy for the model double.

``suite_tasks(seed)`` builds every task, each drawing its parameters from
``random.Random(f"{seed}:{task_id}")`` — the same seed gives the same tasks, and adding a
task changes no other task's draw. ``select(tasks, spec)`` keeps the tasks a spec names.

What a runner must know:

* ``task.impossible``: success is the run ending with status ``infeasible`` AND
  ``task.check(phone)`` (nothing was harmed).
* Tasks tagged ``needs-ask-user`` or ``sensitive`` have ``answer_user(question) -> str``,
  to pass as the Orchestrator's ``ask_user`` callback: the expert asks for what the goal
  leaves out, and for a yes before an irreversible tap (delete, pay, text a new number).
* ``task.setup(phone)`` must run before the run starts: some tasks fill in their criteria
  (a price, a total) from the phone's seeded state there.
"""

from __future__ import annotations

import logging
import random

from omg_agent.bench.suite.entries import ENTRIES, TAGS
from omg_agent.errors import ConfigError
from omg_agent.sim.expert.tasks import Task

log = logging.getLogger(__name__)

__all__ = ["TAGS", "load_tasks", "select", "suite_tasks"]


def suite_tasks(seed: int = 0) -> list[Task]:
    """Every suite task, its parameters drawn from its own seeded RNG."""
    tasks = []
    for entry in ENTRIES:
        task = entry.draw(random.Random(f"{seed}:{entry.id}"))
        task.id, task.tags = entry.id, entry.tags
        task.impossible = "impossible" in entry.tags
        tasks.append(task)
    return tasks


def select(tasks: list[Task], spec: str | None) -> list[Task]:
    """The tasks ``spec`` names, in suite order: comma-separated task ids, tags, or app
    prefixes ("shop" = every "shop.…" id); a task named by any of them is kept. An empty
    or None spec keeps all. An unknown name raises ValueError naming it."""
    names = [n.strip() for n in (spec or "").split(",") if n.strip()]
    if not names:
        return list(tasks)
    ids = {t.id for t in tasks}
    prefixes = {i.split(".", 1)[0] for i in ids}
    tags = set(TAGS) | {tag for t in tasks for tag in t.tags}
    unknown = [n for n in names if n not in ids | tags | prefixes]
    if unknown:
        raise ValueError(f"unknown task id or tag: {', '.join(unknown)} (tags: "
                         f"{', '.join(sorted(tags))})")
    wanted = set(names)
    return [t for t in tasks if t.id in wanted or wanted & set(t.tags)
            or t.id.split(".", 1)[0] in wanted]


def load_tasks(seed: int = 0, spec: str | None = None) -> tuple[Task, ...]:
    """The suite's tasks narrowed to ``spec`` (comma-separated ids and tags) if given; a
    spec that names nothing known, or matches no task, is a ConfigError naming the choices
    (``bench suite --list`` reads only this: it needs no agent)."""
    tasks = suite_tasks(seed=seed)
    try:
        chosen = select(tasks, spec) if spec else tasks
    except ValueError as exc:
        raise ConfigError(f"--tasks {spec!r}: {exc}") from None
    if not chosen:
        raise ConfigError(f"--tasks {spec!r} matches no task; ids: "
                          + ", ".join(t.id for t in tasks) + "; tags: "
                          + ", ".join(sorted({g for t in tasks for g in t.tags})))
    return tuple(chosen)
