"""Feeding the loop guard from the operator loop (DESIGN.md §5).

The guard (:mod:`omg_agent.guards.loops`) judges an action once it sees the screen after
it. The orchestrator observes at the top of every operator turn anyway, so
:class:`LoopWatch` keeps the last executed action with the screen it ran on
(:meth:`LoopWatch.acted`) and judges it against the next observation
(:meth:`LoopWatch.judge`) before any model is asked. The ladder's own moves (wait, an
offset re-tap, back) are executed by the orchestrator and come back here the same way — so
rungs 1–3 cost no model call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from omg_agent.core.actions import Action, AskUser, Done, MemSave, Scan
from omg_agent.core.contracts import TaskStep
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers.base import ExecResult
from omg_agent.guards.loops import LoopGuard, Verdict
from omg_agent.perception.element_diff import changed_elements


@dataclass(frozen=True)
class _Pending:
    action: Action
    element: UIElement | None
    before: Observation


class LoopWatch:
    """One run's loop guard plus the action waiting for its after-screen."""

    def __init__(self, guard: LoopGuard, *, enabled: bool = True) -> None:
        self.guard = guard
        self.enabled = enabled  # off: nothing is judged (benchmarks measure the guard)
        self._pending: _Pending | None = None

    def acted(self, executed: ExecResult | None, before: Observation) -> None:
        """Remember the last device action that went through (with what it landed on)."""
        ran = [o for o in executed.outcomes if o.ok] if executed and self.enabled else []
        # a scan's effect is what it read: a list that fits one screen does not move
        ran = [o for o in ran if not isinstance(o.action, MemSave | AskUser | Done | Scan)]
        self._pending = _Pending(ran[-1].action, ran[-1].element, before) if ran else None

    def judge(self, after: Observation) -> Verdict | None:
        """The guard's verdict on the remembered action, now that ``after`` shows its
        effect; ``None`` when nothing was waiting to be judged."""
        pending, self._pending = self._pending, None
        if pending is None:
            return None
        # a change below the hash's resolution (a counter, typed text) is still an effect
        before = pending.before.screen_hash
        changed = self.guard.same(before, after.screen_hash) and bool(
            changed_elements(pending.before.elements, after.elements))
        return self.guard.record(pending.action, pending.element,
                                 pending.before.screen_hash, after.screen_hash, after.package,
                                 observation=after, ui_changed=changed)

    def plan_tried(self, steps: Sequence[TaskStep]) -> bool:
        """Remember a plan; True when the same plan was tried before."""
        return self.guard.note_replan(plan_text(steps))

    def new_step(self) -> None:
        self._pending = None
        self.guard.reset()


def plan_text(steps: Sequence[TaskStep]) -> str:
    """A plan as the loop guard compares plans: each step's milestone and guide."""
    return "\n".join(f"{s.description} | {s.action_guide}" for s in steps)


__all__ = ["LoopWatch", "plan_text"]
