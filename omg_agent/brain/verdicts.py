"""How a run ends when the planner says it is over — the honesty rule as a pure function.

The planner's ``done`` is a claim like any other. :func:`planner_verdict` believes it only
when the phone backs it: after a claim the operator made and the checks verified, with every
step ticked, or when the plan's end state (the last step's checks) shows on the screen now.
A "done" after a failed step, or with steps never done, ends the run ``failed`` in the
planner's own words; ``infeasible`` and ``give_up`` say so plainly. No I/O: the caller passes
whether the end state shows (``end_state_shown``, evaluated only when it matters).
A plan whose end state is prose (no checks) is confirmed by the planner from the screenshot —
and that confirmation is a claim too: :func:`unproven` says why its ``evidence`` (checks of
what the screen shows) does not back it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from omg_agent.brain.budget import StopReport
from omg_agent.brain.verify import names_present_element
from omg_agent.core.checks import StepCheck
from omg_agent.core.contracts import Replan
from omg_agent.core.results import Failure

DONE_HINT = "nothing: the task is done"
INFEASIBLE_HINT = "check the task (names, items, settings) and run a feasible one"
FAILED_HINT = "look at the phone, then run the task again or split it into smaller tasks"


@dataclass(frozen=True)
class Ending:
    """How the run ends: its phase, the answer for the user and the stop report;
    ``refused`` names the trace event when the planner's words were not believed."""

    phase: Literal["DONE", "FAILED", "INFEASIBLE"]
    answer: str
    report: StopReport
    refused: str = ""


def planner_verdict(replan: Replan, words: str, *, done: Sequence[str],
                    pending: Sequence[str], failed_outcome: str | None, claim: str | None,
                    end_state_shown: Callable[[], bool]) -> Ending:
    """The ending for a planner reply whose status is not ``replanned``.

    ``words`` is the planner's response (values filled in) — the user's answer when the
    planner writes one; ``failed_outcome`` what the failed step left (``None`` when the last
    sub-task succeeded); ``claim`` the operator's verified 'goal complete' answer the
    planner was asked to confirm (the answer when the planner wrote none).
    """
    if replan.status == "infeasible":
        return Ending("INFEASIBLE", words, StopReport(
            tuple(done), f"the task cannot be done: {words}", INFEASIBLE_HINT))
    if replan.status == "done" and failed_outcome is None and (
            claim is not None or not pending or end_state_shown()):
        return Ending("DONE", words or claim or "", StopReport(
            tuple(done) + tuple(pending), "the task is complete", DONE_HINT))
    why = (failed_outcome if failed_outcome is not None else
           f"step '{pending[0]}' was never done" if pending else "the planner gave up")
    return Ending("FAILED", "", StopReport(
        tuple(done), f"{why}; the planner ended the run: {words}", FAILED_HINT),
        refused="planner_end_refused" if replan.status == "done" else "give_up")


def unproven(evidence: Sequence[StepCheck] | None,
             verify: Callable[[Sequence[StepCheck]], Failure | None]) -> str | None:
    """Why a planner's 'done' confirming the operator's report is not backed by the screen
    (``None`` when it is): its ``evidence`` must name at least one element that has to be
    there, and every check must pass on the screen the planner was shown. Absences, the app
    or a saved value alone also hold on screens on the way, so they prove nothing alone."""
    checks = list(evidence or ())
    if not names_present_element(checks):
        return "the confirmation named no element on the screen that shows the task finished"
    failure = verify(checks)
    return None if failure is None else f"its evidence is not on the screen ({failure.message})"


__all__ = ["DONE_HINT", "FAILED_HINT", "INFEASIBLE_HINT", "Ending", "planner_verdict",
           "unproven"]
