"""The rest of a held action's bundle, carried on after the user's yes (issue 40).

"Type the user name, type the password, tap Sign in": the gate holds the password; the
user's yes comes on resume (:func:`omg_agent.brain.held.carry_out`), and the model planned
the Sign in tap already — asking it again costs a call for nothing. :func:`carry_on` runs
the bundle's remaining actions, each re-resolved by its anchor on the screen as it is now
(:func:`~omg_agent.brain.held.anchored` turned element ids into anchors when the action
was held): the executor treats them as planned on a screen the model has not seen, so an
anchor that is missing stops them there ("while the screen still matches"), and the gate
judges each segment on the screen it runs on (a sensitive action among them is held, not
run — asked again on the model's next turn).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from omg_agent.brain import honest
from omg_agent.brain.run_context import RunContext
from omg_agent.brain.run_state import HeldAction, TurnRecord
from omg_agent.brain.segment_review import substitute
from omg_agent.core.actions import Action, parse_action
from omg_agent.core.observation import Observation
from omg_agent.drivers.base import ActionOutcome
from omg_agent.drivers.ports import Planned
from omg_agent.errors import OmgError
from omg_agent.guards.gatekeeper import GateKeeper, GateStop


@dataclass
class RestReview:
    """The :class:`~omg_agent.drivers.ports.Reviewer` of the rest: every segment on a
    screen no model looked at; the gate judges what it plans there."""

    keeper: GateKeeper | None
    held: GateStop | None = None
    stop: str = ""
    extent: int = 0
    # the gate's ledger before the last review, and the planned index of each action judged
    passed_from: tuple[int, list[int]] | None = None

    @property
    def unseen(self) -> bool:
        return True

    def review(self, planned: Sequence[Planned], screen: Observation | None) -> int | None:
        self.extent = len(planned)
        if self.keeper is None or screen is None or not planned:
            return None
        self.passed_from = (len(self.keeper.passed.entries), [p.index for p in planned])
        self.held = self.keeper.review([p.action for p in planned], screen,
                                       elements=[p.element for p in planned])
        return None if self.held is None else planned[self.held.index].index

    def stopped(self, why: str, screen: Observation | None) -> None:
        self.stop = why


def carry_on(run: RunContext, held: HeldAction) -> str:
    """Run the rest of ``held``'s bundle now (after its action went through); what the
    operator is told about it."""
    try:
        actions = [substitute(run.memory, parse_action(a)) for a in held.rest]
    except (OmgError, ValueError) as exc:
        return f"The rest of that bundle did not run: {exc}."
    review = RestReview(run.gatekeeper)
    outcomes: list[ActionOutcome] = []
    start = 0
    while start < len(actions):
        executed = run.driver.execute(actions[start:], None, review=review)
        done = list(executed.outcomes)
        outcomes += [replace(o, index=o.index + start) for o in done]
        _settle(run.gatekeeper, review, {o.index for o in done if o.ok})
        if review.stop or review.held is not None or not executed.ok or not done:
            break
        start += max(o.index for o in done) + 1
    return _record(run, held, actions, outcomes, review)


def _settle(keeper: GateKeeper | None, review: RestReview, ok: set[int]) -> None:
    """Tell the gate's ledger which actions it let go ran ok (honest done)."""
    if keeper is None or review.passed_from is None:
        return
    since, planned = review.passed_from
    review.passed_from = None

    def went_through(at: int) -> bool:
        return planned[at] in ok

    keeper.passed.settle(went_through, since)


def _record(run: RunContext, held: HeldAction, actions: list[Action],
            outcomes: list[ActionOutcome], review: RestReview) -> str:
    s = run.state
    ok = [o for o in outcomes if o.ok]
    honest.acted_on(s, outcomes)
    ran = ", ".join(o.action.type for o in ok) or "nothing"
    why = (f"the gate holds {review.held.request.describe}" if review.held is not None
           else review.stop or next((o.detail for o in outcomes if not o.ok), ""))
    left = len(actions) - len(ok)
    said = f"then ran the rest of that bundle: {ran}" + (
        f"; {left} not run ({why or 'stopped'})" if left else "")
    obs = run.driver.observe()
    s.last_obs = obs
    s.records.append(TurnRecord(held.step, said, obs.screen_hash,
                                intent=f"the rest of the bundle after {held.describe}",
                                acted=bool(ok)))
    run.event("held_bundle_rest", ran=len(ok), left=left, reason=why)
    return said[0].upper() + said[1:] + "."


__all__ = ["RestReview", "carry_on"]
