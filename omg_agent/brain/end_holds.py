"""Honest done, one more part: an end state the run made with a switch must stay.

A switch shows its new state the moment it is tapped, but that is the app's guess until
the system takes it: Bluetooth that fails to start, a setting a policy refuses, a toggle
whose request fails flips back a moment later — after the run's checks already passed on
the screen. So a ``done`` that comes less than :data:`HOLD_S` seconds after the run
toggled a switch (an action that went through on a checkable switch) waits out the rest
of that time (the driver's own wait, as the loop guard's wait rung), looks again and checks
the final step's checks on that fresh screen (:func:`end_flipped`). A check that no longer
holds ends the run ``unverified`` with the reason
(:func:`~omg_agent.brain.honest.finish_done`). Runs that toggled nothing, or long enough
before they ended, wait for nothing and look at nothing more.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from omg_agent.brain.run_context import RunContext
from omg_agent.core.actions import Wait
from omg_agent.core.contracts import TaskStep
from omg_agent.drivers.base import ActionOutcome

HOLD_S = 1.5  # how long after a toggle its state must still show before a run is done


def toggled(outcomes: Iterable[ActionOutcome]) -> bool:
    """Whether one of ``outcomes`` toggled a switch: it went through on an element whose
    role is ``switch`` (:func:`~omg_agent.brain.honest.acted_on` keeps the time). A
    checkbox — a to-do's tick, a row picked for a multi-select — is the app's own record,
    not a request the system may refuse, and waits for nothing."""
    return any(o.ok and o.element is not None and o.element.checkable
               and o.element.role == "switch" for o in outcomes)


def end_flipped(run: RunContext, final: TaskStep | None) -> str | None:
    """Why the run's end state did not stay (``None``: it did, or nothing to wait for):
    within :data:`HOLD_S` seconds of a toggle, the final step's checks are checked again on
    a screen observed once that time is up."""
    toggled = run.state.toggled_at
    left = HOLD_S - (time.monotonic() - toggled) if toggled is not None else 0.0
    if left <= 0 or final is None or not final.checks:
        return None
    run.driver.execute([Wait(seconds=max(0.01, round(left, 2)))], run.state.last_obs)
    obs = run.driver.observe()
    run.state.last_obs = obs
    failure = run.verify(final, obs)
    if failure is None:
        return None
    said = "; ".join(c.describe() for c in final.checks)
    return (f"its end state did not stay: {HOLD_S:g} s after the run toggled a switch, "
            f"its checks no longer held ({said}: {failure.message})")


__all__ = ["HOLD_S", "end_flipped", "toggled"]
