"""What the model doubles answer, built one way: a ``DecisionBundle`` reply, a claim that
the goal is done, a one-step ``TaskPlan`` — and the vphone apps' packages they name.

Every double (the expert, the gullible and hostile models, the macro-aware one) sends its
moves through :func:`bundle`, so a reply always has the fields the operator's contract asks
for, in the same order; only the words a double chooses (its ``thought``, the ``intent``,
the ``answer``) differ.
"""

from __future__ import annotations

import json
from typing import Any

SHOP, NOTES, MESSAGES = "com.omg.shop", "com.omg.notes", "com.omg.messages"
FEED, SETTINGS, LOGIN = "com.omg.feed", "com.android.settings", "com.omg.login"


def bundle(actions: list[dict[str, Any]] | None = None, intent: str = "act", *,
           result: str = "success", thought: str = "reading the screen",
           **fields: Any) -> str:
    """A ``DecisionBundle`` reply running ``actions`` (none: ``execute_now`` is null),
    with any further fields (``goal_complete``, ``answer``, ``todo``…)."""
    body: dict[str, Any] = {
        "thought": thought, "last_action_result": result,
        "execute_now": {"intent": intent, "actions": actions} if actions else None}
    return json.dumps({**body, **fields}, ensure_ascii=False)


def claim_done(answer: str, *, thought: str) -> str:
    """A reply that says the step and the whole goal are done."""
    return bundle(thought=thought, step_complete=True, goal_complete=True, answer=answer)


def one_step_plan(goal: str, criteria: str) -> dict[str, Any]:
    """A ``TaskPlan`` of one step: the goal itself."""
    return {"goal": goal, "steps": [{"description": goal, "success_criteria": criteria,
                                     "complexity": 2}]}


__all__ = ["FEED", "LOGIN", "MESSAGES", "NOTES", "SETTINGS", "SHOP", "bundle", "claim_done",
           "one_step_plan"]
