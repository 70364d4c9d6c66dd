"""One row of the suite's table: a task's stable id, its tags, and how its parameters are
drawn from the task's own seeded RNG (``random.Random(f"{seed}:{id}")``)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from omg_agent.sim.expert.tasks import Task

# What a task asks of an agent (``bench suite --tasks TAG`` selects by them); each tag is
# used by at least one task.
TAGS = ("single-app", "cross-app", "needs-memory", "repetitive", "has-hazard",
        "needs-ask-user", "sensitive", "impossible", "zh", "picker", "timed", "non-home",
        "compose", "popup", "multi-goal",
        # issue 36, family D (system surfaces)
        "permission", "webview",
        # issue 36, mixed templates (asynchronous loading)
        "async")
Draw = Callable[[random.Random], Task]


@dataclass(frozen=True)
class Entry:
    id: str
    tags: tuple[str, ...]
    draw: Draw
