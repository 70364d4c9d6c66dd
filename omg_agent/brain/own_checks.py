"""A ``unified`` operator's end checks: written once, corrected only where refused (issue 36).

The operator writes the task's end checks (``end_checks``) once it knows the end screen;
they become the task step's checks (:func:`adopt`), and a later reply cannot change them —
a model must not swap a check that fails for one that passes. One exception: when a claim
is refused because some of them did not pass on the claim's screen (:func:`refused`: the
operator is told which), the reply right after may send ``end_checks`` again, and they
replace the refused checks only (:func:`adopt`): the checks that passed stay as written.
(The relay round's Chrome run: an address-bar check that needed ``in_field``, corrected in
the next reply and ignored, cost four calls.)

Honest done judges every check, corrected or not, as before (:mod:`.honest`): one that
held before the run acted proves nothing, text in an edit field proves only a task that
writes it, and no check proves a payment, a send or a delete — the gate's ledger does.
"""

from __future__ import annotations

from collections.abc import Collection

from omg_agent.brain.honest import check_key
from omg_agent.brain.run_context import RunContext
from omg_agent.brain.verify import check_failure, filled
from omg_agent.core.contracts import DecisionBundle, TaskStep
from omg_agent.core.observation import Observation


def adopt(step: TaskStep, bundle: DecisionBundle,
          refused_keys: Collection[str] = ()) -> TaskStep | None:
    """The task step with the end checks the operator wrote: all of them when the step had
    none; after a refusal (``refused_keys``: the checks that did not pass), the step's
    other checks plus the new ones; ``None`` when nothing changes."""
    if not bundle.end_checks:
        return None
    if not step.checks:
        return step.model_copy(update={"checks": list(bundle.end_checks)})
    if not refused_keys:
        return None  # written once: a later reply cannot weaken them
    kept = [c for c in step.checks if check_key(c) not in refused_keys]
    checks, keys = list(kept), {check_key(c) for c in kept}
    for check in bundle.end_checks:
        if check_key(check) not in keys:
            checks.append(check)
            keys.add(check_key(check))
    if [check_key(c) for c in checks] == [check_key(c) for c in step.checks]:
        return None
    return step.model_copy(update={"checks": checks})


def refused(run: RunContext, obs: Observation) -> None:
    """A claim the operator's own end checks refused on ``obs``: the reply right after may
    correct the checks that did not pass there (the operator is told which)."""
    s = run.state
    final = s.todo.steps[-1]
    s.refused_checks = [check_key(c) for c in final.checks if check_failure(
        filled(c, run.memory.substitute), obs, run.memory.get)]
    failing = [c.describe() for c in final.checks if check_key(c) in s.refused_checks]
    if failing:
        s.note = CORRECT_NOTE.format(checks="; ".join(failing))


CORRECT_NOTE = ("Your end checks that did not pass: {checks}. If one was written wrong (not "
                "what the finished screen shows), send the right one in end_checks in this "
                "reply: it replaces the ones that did not pass, once; the others stay.")


__all__ = ["CORRECT_NOTE", "adopt", "refused"]
