"""The operator's say over each segment the executor planned, before it runs.

The :class:`~omg_agent.drivers.executor.BundleExecutor` is the one place a bundle is split
into segments and its targets resolved. For every segment it plans it shows the operator
the planned actions with the elements they land on, on the screen they act on
(:class:`SegmentReview`, a :class:`~omg_agent.drivers.ports.Reviewer`): the segment's
``mem_save`` reads that screen, and the gate (:class:`~omg_agent.guards.gatekeeper.GateKeeper`)
judges exactly the elements the executor resolved — where it resolved none, the gate's own
wider snap decides — and may hold one; what comes before the held action runs. What the
review saw and decided is recorded in the turn's results for the model and the trace.
``$vars`` are filled in from memory as each segment starts (:func:`fill`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from omg_agent.brain.memory import MemoryBank
from omg_agent.core.actions import (
    Action,
    AnchorTarget,
    AskUser,
    Done,
    Launch,
    MemSave,
    Scan,
    TypeText,
    ends_bundle,
)
from omg_agent.core.observation import Observation
from omg_agent.core.results import Failure, FailureKind
from omg_agent.drivers.base import ActionOutcome, ExecResult
from omg_agent.drivers.ports import Planned
from omg_agent.errors import ActionRejected, AnchorNotFound, DeviceError, OmgError, TurnFailed
from omg_agent.guards.confirmation import NO_CLEAR_ANSWER
from omg_agent.guards.gatekeeper import GateKeeper, GateStop
from omg_agent.guards.injection import listing_warning

if TYPE_CHECKING:
    from omg_agent.brain.operator import TurnResult

NOT_ON_DEVICE = (MemSave, AskUser, Done)  # the operator's actions: the executor skips them


@dataclass
class SegmentRun:
    """What one bundle's segments did: actions run, device outcomes (bundle indices), cost."""

    actions: list[Action]
    ran: list[Action] = field(default_factory=list)
    outcomes: list[ActionOutcome] = field(default_factory=list)
    calls: int = 0
    timings: dict[str, float] = field(default_factory=dict)

    def add(self, executed: ExecResult, start: int) -> list[ActionOutcome]:
        """Book a segment's result (its indices start at ``start``); its device outcomes."""
        fresh = [replace(o, index=start + o.index) for o in executed.outcomes
                 if not isinstance(o.action, NOT_ON_DEVICE)]
        self.outcomes += fresh
        self.calls += executed.device_calls
        for key, value in executed.timings.items():
            self.timings[key] = self.timings.get(key, 0.0) + value
        return fresh


@dataclass
class SegmentReview:
    """The review of the segment that starts at bundle index ``start``.

    ``cut`` is where the actions handed to the executor end: the first action whose
    ``$vars`` are not saved yet (a ``mem_save`` of an earlier segment saves them).
    """

    actions: list[Action]
    start: int
    cut: int
    unseen: bool
    result: TurnResult
    save: Callable[[MemSave, Observation], str]  # runs a mem_save on the screen acted on
    gatekeeper: GateKeeper | None = None
    missing: str = ""  # why the action at ``cut`` cannot be filled in yet
    screen: Observation | None = None  # the screen the segment was planned on
    extent: int = 0  # how many actions the segment holds (from ``start``)
    held: GateStop | None = None
    stop: str = ""  # why the segment did not run on the new screen
    # the gate's ledger before this review, and the planned index of each action it judged
    passed_from: tuple[int, list[int]] = (0, [])

    def stopped(self, why: str, screen: Observation | None) -> None:
        self.stop, self.screen = why, screen
        seen: dict[str, Any] = {"observation": screen} if screen is not None else {}
        self.result.results.append({"type": "stop", "ok": True, "detail": (
            f"stopped before action {self.start + 1} ({self.actions[self.start].type}): "
            f"{why}"), **seen})

    def review(self, planned: Sequence[Planned], screen: Observation | None) -> int | None:
        self.screen, self.extent = screen, len(planned)
        result = self.result
        if self.unseen:
            result.results.append({"type": "screen", "ok": True, "detail": (
                f"continued on the new screen from action {self.start + 1}"),
                "observation": screen})
        last = planned[-1] if planned else None
        if self.start + len(planned) == self.cut < len(self.actions) and last is not None \
                and not ends_bundle(last.action, last.element):
            raise TurnFailed(self.missing)  # saved in this very segment: too late
        # the bundle's own actions, not the driver's copies (a secret is revealed only there)
        own = [self.actions[self.start + p.index] for p in planned]
        for action in own:
            if isinstance(action, MemSave):
                assert screen is not None, "a mem_save is planned on a screen"
                result.saved[action.key] = self.save(action, screen)
        device = [(p, a) for p, a in zip(planned, own, strict=True)
                  if not isinstance(a, NOT_ON_DEVICE)]
        if self.gatekeeper is None or not device or screen is None:
            return None
        asked = len(self.gatekeeper.asked)
        self.passed_from = (len(self.gatekeeper.passed.entries), [p.index for p, _ in device])
        self.held = self.gatekeeper.review([a for _, a in device], screen,
                                           elements=[p.element for p, _ in device])
        result.results += [{"type": "gate", "ok": True, "detail": (  # what the user allowed
            f"the user confirmed: {request.describe}")}
            for request, answer in self.gatekeeper.asked[asked:] if answer is True]
        if self.held is None:
            return None
        at = device[self.held.index][0].index
        result.held_rest = list(self.actions[self.start + at + 1:])  # a yes carries on
        return at

    def settle(self, outcomes: Sequence[ActionOutcome]) -> None:
        """Tell the gate's ledger which sensitive actions it let go ran ok (honest done)."""
        if self.gatekeeper is not None:
            since, planned = self.passed_from
            ok = {o.index for o in outcomes if o.ok}
            self.gatekeeper.passed.settle(lambda at: planned[at] in ok, since)


# -- $vars -------------------------------------------------------------------------------
_TEXT_FIELD: dict[type, str] = {TypeText: "text", Launch: "app", AskUser: "question",
                                Done: "answer"}


def check_variables(memory: MemoryBank, actions: list[Action]) -> None:
    """Fail before anything runs when a ``$var`` is neither saved nor saved earlier in
    this bundle."""
    saved: set[str] = set()
    for action in actions:
        if isinstance(action, MemSave):
            saved.add(action.key)
            continue
        name = _TEXT_FIELD.get(type(action))
        missing = [m for m in memory.missing(getattr(action, name)) if m not in saved] \
            if name else []
        if missing:
            raise TurnFailed(f"{action.type}: no saved value for "
                             + ", ".join("$" + m for m in missing)
                             + " (save it with mem_save first)")


def fill(memory: MemoryBank, actions: list[Action], given: list[Action],
         start: int) -> tuple[int, str]:
    """Fill ``$vars`` into ``actions`` from ``start`` on, from the bundle as ``given`` and
    the memory as it is now, up to the first action whose values are not saved yet (a
    ``mem_save`` before it will save them): its index and why it cannot run yet."""
    for i in range(start, len(actions)):
        try:
            actions[i] = substitute(memory, given[i])
        except TurnFailed as exc:
            if i == start:
                raise
            return i, str(exc)
    return len(actions), ""


def substitute(memory: MemoryBank, action: Action) -> Action:
    """``action`` with ``$vars`` in its text fields replaced from memory."""
    name = _TEXT_FIELD.get(type(action))
    if name is None:
        return action
    text = getattr(action, name)
    missing = memory.missing(text)
    if missing:
        raise TurnFailed(f"{action.type}: no saved value for "
                         + ", ".join("$" + m for m in missing)
                         + " (save it with mem_save first)")
    return action.model_copy(update={name: memory.substitute(text)})


# -- what the model and the turn are told ---------------------------------------------------
def said(o: ActionOutcome) -> dict[str, Any]:
    """A device outcome as the model reads it in the turn's results."""
    warning = listing_warning(o.detail) if isinstance(o.action, Scan) else ""
    landed = landed_on(o)
    return {"index": o.index, "type": o.action.type, "ok": o.ok, "detail": o.detail + warning,
            "point": o.point, "source": o.source, **({"landed": landed} if landed else {})}


def landed_on(o: ActionOutcome) -> str:
    """The element a touch landed on, by its own name, when the model named it by a text
    merged into it: a chat row tapped by its last message is the contact's conversation
    (issue 40: the done list said "tapped '到家了吗？'", not 张伟); else ``""``."""
    e, target = o.element, getattr(o.action, "target", None)
    if e is None or e.password or not e.extra_texts or not isinstance(target, AnchorTarget):
        return ""
    named = {t for t in (target.text, target.desc) if t}
    return e.label if named and not named & {e.text, e.desc} else ""


def hold(result: TurnResult, held: GateStop) -> None:
    """The gate held an action: the user said no (a failed turn the model sees), or no human
    could be asked (the run stops until someone answers)."""
    if held.gone:  # a yes to what the screen no longer shows: not done, nothing held
        result.results.append({"type": "gate", "ok": False, "detail": (
            f"not done: the user said yes to {held.request.describe}, but {held.gone}")})
        result.failure = Failure(FailureKind.ELEMENT_NOT_FOUND, (
            f"the user's yes was for {held.request.describe}; {held.gone} — look again "
            "(a sensitive action is asked again)"))
        return
    result.held = held
    said = "the user gave no clear yes" if held.said == NO_CLEAR_ANSWER else "the user said no"
    result.results.append({"type": "gate", "ok": False, "detail": (
        f"held for the user's confirmation: {held.request.describe} — "
        + (said if held.answer is False
           else "the run stops here and asks the user; a yes runs it"))})
    if held.answer is False:
        result.failure = Failure(FailureKind.DECLINED, f"{said} to: {held.request.describe}")
    else:
        result.kind, result.question = "needs_confirmation", held.question


def failure_kind(exc: OmgError) -> FailureKind:
    """The failure kind of an exception caught at the turn boundary (by type, never by
    its message)."""
    match exc:
        case TurnFailed():
            return exc.kind
        case AnchorNotFound():
            return FailureKind.ELEMENT_NOT_FOUND
        case ActionRejected():
            return FailureKind.CLICK_MISSED
        case DeviceError():
            return FailureKind.DEVICE_ERROR
    return FailureKind.DEVICE_ERROR


def outcome_kind(outcome: ActionOutcome) -> FailureKind:
    """A driver outcome that was not ok, by the type of its error."""
    if isinstance(outcome.error, OmgError):
        return failure_kind(outcome.error)
    return FailureKind.DEVICE_ERROR


__all__ = ["NOT_ON_DEVICE", "SegmentReview", "SegmentRun", "check_variables", "failure_kind",
           "fill", "hold", "outcome_kind", "said", "substitute"]
