"""The step budget of one run (DESIGN.md §3): what counts, when it is checked, what it says.

Counted: every decision attempt of the operator (each model *reply*, parse failures
included — :attr:`~omg_agent.brain.llm.CallRecord.counts_as_step`), every replan attempt,
and every executed action bundle. Not counted: the one plan at task start, transport
failures that got no reply, and the time spent waiting for the user.

The orchestrator calls :meth:`StepBudget.check` at the top of every turn and
:meth:`StepBudget.charge` before anything counted happens; a model call is given at most
:attr:`StepBudget.remaining` reply attempts, so the limit is never passed by even one
counted operation. On exhaustion :class:`~omg_agent.errors.BudgetExhausted` carries the
three-part message: what was done, why it stopped, what to do next (:func:`exhaustion_report`).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from omg_agent.brain.llm import CallRecord
from omg_agent.errors import BudgetExhausted

log = logging.getLogger(__name__)

StepKind = Literal["decision", "replan", "bundle"]


@dataclass(frozen=True)
class StopReport:
    """The three parts every stopped run reports."""

    done: tuple[str, ...]
    stopped_because: str
    next_hint: str

    def message(self) -> str:
        done = "\n".join(f"  - {d}" for d in self.done) or "  - nothing yet"
        return (f"Done so far:\n{done}\nStopped because: {self.stopped_because}\n"
                f"Next: {self.next_hint}")


class StepBudget:
    """Counts steps against ``limit``; thread-unsafe, one per run."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("a step budget needs at least one step")
        self.limit = limit
        self.used = 0
        self.counts: Counter[str] = Counter()

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.used)

    @property
    def exhausted(self) -> bool:
        return self.used >= self.limit

    def check(self) -> None:
        """Raise :class:`BudgetExhausted` when no step is left (top of every turn)."""
        if self.exhausted:
            raise BudgetExhausted(self.used, self.limit, dict(self.counts))

    def charge(self, kind: StepKind) -> None:
        """Count one step of ``kind``; raises instead when none is left."""
        self.check()
        self.used += 1
        self.counts[kind] += 1
        log.debug("step %d/%d: %s", self.used, self.limit, kind)

    def attempts(self, wanted: int) -> int:
        """How many reply attempts a model call may make now (at least one is checked)."""
        self.check()
        return min(wanted, self.remaining)

    def counter(self, kind: StepKind):
        """An ``on_attempt`` callback for :meth:`LLMClient.structured` counting replies."""

        def on_attempt(record: CallRecord) -> None:
            if record.counts_as_step:
                self.charge(kind)

        return on_attempt


def exhaustion_report(limit: int, done: Sequence[str], pending: Sequence[str],
                      current: str | None) -> StopReport:
    """The stop report of a run that hit its step budget."""
    where = f" while working on '{current}'" if current else ""
    left = "; ".join(pending) or "checking that the task is finished"
    return StopReport(
        tuple(done),
        f"the step budget of {limit} steps was used up{where}",
        f"still to do: {left}. Run again with a larger budget (--max-steps {limit * 2}), or "
        "split the task into smaller tasks.")
