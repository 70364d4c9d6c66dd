"""Planning modes (issue #11): who plans, and when the planner is asked again.

=============  =========================================================================
``flat``       no planner; one action per model call; the task is the only step (the
               peers' loop, our baseline)
``unified``    no planner; the operator keeps its own checklist in its replies, writes the
               end state's checks on its first turn and bundles (seed 000)
``replan-each`` plan once, ask the planner again after every finished step (seed 003)
``adaptive``   plan once; ask again only when a step failed, the operator says the plan no
               longer fits, the user answered, or a step saved data no step foresaw
=============  =========================================================================

Whatever the mode, a run ends ``done`` only when the phone shows it: a plannerless goal
claim is verified against the end-state checks the operator wrote (``unified``) or, with
none, confirmed from the screenshot as ``confirm_done`` says.
"""

from __future__ import annotations

from collections.abc import Iterable

from omg_agent.core.contracts import TaskPlan, TaskStep
from omg_agent.core.todo import DONE, OPEN, read_todo

PLANNERLESS = ("flat", "unified")
MODES = ("flat", "unified", "replan-each", "adaptive")
ONE_ACTION = "flat"
# the success criterion of a plannerless run's one step: it says nothing the task does not,
# so the operator's prompt leaves it out
SOLE_STEP_CRITERIA = "the screen shows the task done as the user asked"


def plannerless(mode: str) -> bool:
    return mode in PLANNERLESS


def task_as_plan(task: str) -> TaskPlan:
    """The plan of a run without a planner: the whole task is its one step; its limits are
    the run's step budget, not a step's tries."""
    return TaskPlan(goal=task, steps=[TaskStep(
        description=task, success_criteria=SOLE_STEP_CRITERIA,
        complexity=5, on_fail="retry")])


def own_todo(lines: Iterable[str]) -> str:
    """A ``unified`` operator's checklist as the markdown the prompts show."""
    return "\n".join(f"{DONE if done else OPEN} {words}" for done, words in read_todo(lines))


def unforeseen(saved: Iterable[str], plan: Iterable[TaskStep]) -> list[str]:
    """Memory keys a turn saved that no step of the plan names as its ``data_output``."""
    foreseen = {s.data_output for s in plan if s.data_output}
    return sorted(k for k in saved if k not in foreseen)


__all__ = ["MODES", "ONE_ACTION", "PLANNERLESS", "SOLE_STEP_CRITERIA", "own_todo",
           "plannerless", "task_as_plan", "unforeseen"]
