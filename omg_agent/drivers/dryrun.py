"""``--dry-run``: the whole agent runs, the device receives nothing.

:class:`DryRunDriver` wraps a real driver: it observes the real screen (so the model sees
the phone as it is) but answers ``execute`` and ``launch`` by describing each action
instead of sending it. The screen never changes, so a dry run shows the first moves of a
plan — what would be tapped, typed or launched — and the loop guard ends it when the model
keeps trying; nothing reaches the phone.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from omg_agent.core.actions import Action, AskUser, Done, MemSave, dump_action, ends_bundle
from omg_agent.core.observation import Observation
from omg_agent.drivers.base import ActionOutcome, Driver, ExecResult
from omg_agent.drivers.ports import Planned, Reviewer
from omg_agent.drivers.wrapper import DriverWrapper


class DryRunDriver(DriverWrapper):
    """A driver that observes through ``inner`` and executes nothing."""

    def __init__(self, inner: Driver, on_action: Callable[[str], object] = print) -> None:
        super().__init__(inner)
        self.on_action = on_action
        self.would: list[str] = []  # what would have been sent, in order

    def execute(self, actions: Sequence[Action],
                observation: Observation | None = None, *,
                review: Reviewer | None = None) -> ExecResult:
        if review is not None and review.unseen:  # nothing ran: no new screen to go on on
            review.stopped("a dry run does not change the screen", None)
            return ExecResult((), len(actions), 0)
        planned: list[Planned] = []
        for index, action in enumerate(actions):
            planned.append(Planned(index, action))
            if ends_bundle(action):
                break
        held = review.review(planned, observation) if review is not None else None
        outcomes: list[ActionOutcome] = []
        for plan in planned[:held]:  # the gate judges, as it would before a real run
            if not isinstance(plan.action, MemSave | AskUser | Done):  # the operator's
                self._say(json.dumps(dump_action(plan.action), ensure_ascii=False))
            outcomes.append(ActionOutcome(plan.index, plan.action, True, "dry run: not sent"))
        return ExecResult(tuple(outcomes), len(actions) - len(outcomes), 0)

    def launch(self, app: str) -> None:
        self._say(f"launch {app}")

    def _say(self, line: str) -> None:
        self.would.append(line)
        self.on_action(f"would {line}")


__all__ = ["DryRunDriver"]
