"""A phone model alone (issue 28): the ending of a run whose claim nobody could check.

With only an AutoGLM-Phone or UI-TARS endpoint configured, the run has no model that can
answer our JSON and confirm a finished task against the screen
(:func:`omg_agent.brain.dialects.judgeless`). The run still starts and acts; what the harness
checks without a model still counts — a plan file's checks end it ``done`` when the phone
shows them, a gate holds a payment as always — but a "done" that only the model's own words
back ends ``unverified`` (exit code 9): the outcome is the user's to read on the phone, and
the report says so. Never ``done`` on a claim alone, never a refusal to start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from omg_agent.brain.budget import StopReport

if TYPE_CHECKING:
    from omg_agent.brain.run_context import RunContext

UNVERIFIED_HINT = ("look at the phone (or the last screenshot in `omg-agent report RUN_DIR`); "
                   "to have a finished task confirmed, set OMG_PLANNER_MODEL to a general "
                   "model (e.g. gpt-4o, qwen2.5-vl-72b-instruct) or give a --plan whose last "
                   "step has checks")


def why_unverified(model: str | None) -> str:
    """The stop reason: who claims what, and why no one checked it."""
    return (f"the model reports the task done, but no check could confirm it on the phone: "
            f"{model or 'the operator model'} answers in its own action format, and no "
            "general model is configured to look at the screen")


def unverified(run: RunContext, answer: str) -> None:
    """End the run ``unverified`` with the model's ``answer``: the task step goes back to
    not done (nothing showed it done), the trace records why."""
    s = run.state
    s.todo.untick_from(len(s.todo.steps) - 1)
    why = why_unverified(run.settings.model_for("operator"))
    run.event("unverified", reason=why, answer=answer)
    s.finish("UNVERIFIED", run.memory.substitute(answer), StopReport(
        tuple(s.todo.done()), why, UNVERIFIED_HINT))


__all__ = ["UNVERIFIED_HINT", "unverified", "why_unverified"]
