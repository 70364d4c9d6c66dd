"""The sensitive-action gate at execution time (DESIGN.md §5).

Before a segment of a bundle is sent to the device, :meth:`GateKeeper.review` asks
:class:`~omg_agent.guards.sensitive.Gate` about each action on the screen the segment acts
on, judging the element the executor resolved for it (the executor shows its plan to the
operator's review: :mod:`omg_agent.brain.segment_review`). Where the executor resolved no
element — a point beside every button, an anchor only OCR found — or a caller has no plan
(a held action found again, a flow's replay), the target is resolved here with the same
anchorer rules and a wider snap, so a point near a Pay button counts as Pay. The model's
words are never read — not even for what a payment costs or what a send sends: the gate
reads those on the screen acted on (the Pay button's label, the total row, the message box
as this segment's typing leaves it; an anchor's own words count as an amount only where OCR
read them on that screen). An action that needs a human's yes goes to the confirmation
channel (the terminal, a script, the mirror); after a yes the gate looks again
(``observe``) and finds the element again: the same action in the same place goes on, one
whose amount, label or text changed is asked again as it is now, one gone or moved is not
done (:mod:`omg_agent.guards.approvals`). With no human reachable the run stops
resumable (``needs_confirmation``) and a later ``--answer yes`` carries out exactly that
action (:mod:`omg_agent.brain.held`: found again on the screen, approved here once by its
fingerprint).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from omg_agent.core.actions import Action, AnchorTarget, PointTarget, TypeText
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers.inputs import typed_screen
from omg_agent.guards.amounts import Money
from omg_agent.guards.approvals import fingerprint, refind
from omg_agent.guards.batch import MARK, Batches
from omg_agent.guards.confirmation import (
    ConfirmationChannel,
    ConfirmationRequest,
    words_of,
)
from omg_agent.guards.landing import decide, effect_of, plan_scene
from omg_agent.guards.landing_target import target_element, text_at
from omg_agent.guards.ledger import Ledger
from omg_agent.guards.sensitive import Decision, Gate, Sensitivity
from omg_agent.perception.anchor import Anchorer

log = logging.getLogger(__name__)

GATE_SNAP_PX = 200  # wider than any executor's snap: what might land on a button is gated
ASK_AGAIN = 3  # questions about one action whose screen keeps changing before it is left


@dataclass(frozen=True)
class GateStop:
    """The first action of a segment the gate held: its index in the segment, what was
    asked, and the answer (``True`` yes, ``False`` no, ``None`` no human reachable); with
    the action itself, the element it lands on and the screen it acts on (what a later yes
    must find again: :mod:`omg_agent.brain.held`)."""

    index: int
    request: ConfirmationRequest
    answer: bool | None
    action: Action | None = None
    element: UIElement | None = None
    screen: Observation | None = None
    said: str = ""  # how the answer is recorded, when the channel says (words_of)
    gone: str = ""  # a yes came, but what it was for is not on the screen now: not done

    @property
    def question(self) -> str:
        return (f"May I {self.request.describe}? ({self.request.reason}) "
                "Answer yes or no.")


@dataclass
class GateKeeper:
    gate: Gate
    channel: ConfirmationChannel | None = None
    task: str = ""
    # one-time approvals (resume: yes), each the fingerprint of exactly the action approved
    approved: list[str] = field(default_factory=list)
    # what the user said no to (never asked again) -> how often the model reached for it since
    refused: dict[str, int] = field(default_factory=dict)
    asked: list[tuple[ConfirmationRequest, bool | None]] = field(default_factory=list)
    passed: Ledger = field(default_factory=Ledger)  # the sensitive actions it let go
    # the classes a human said yes to in the segment reviewed last: the choke point lets one
    # input of each through (guards.choke), the rest it asks about again
    cleared: list[str] = field(default_factory=list)
    # the payments the last review let go by the user's authorisation: in the run's total
    # already (a later action of the segment counts them), their input not landed yet — the
    # choke point takes each back and counts it as it lands (:meth:`landing_payment`)
    landing: list[Money | None] = field(default_factory=list)
    batches: Batches = field(default_factory=Batches)  # one question for a task's list
    # the screen now: after a human's answer the gate looks again before anything runs
    observe: Callable[[], Observation] | None = None

    def __post_init__(self) -> None:
        self.batches.task = self.batches.task or self.task

    def review(self, actions: Sequence[Action], obs: Observation, *,
               elements: Sequence[UIElement | None] = ()) -> GateStop | None:
        """The first of ``actions`` (all acting on ``obs``) that may not run, or ``None``
        when every one is harmless, pre-authorised or confirmed by a human now;
        ``elements`` are what the executor resolved each action's target to, when it did."""
        anchorer = Anchorer(obs.screen, snap_tolerance_px=GATE_SNAP_PX)
        self.cleared.clear()
        self.landing.clear()
        self.batches.saw(obs)
        typing: list[tuple[Action, UIElement | None]] = []  # the segment's typing so far
        for index, action in enumerate(actions):
            resolved = elements[index] if index < len(elements) else None
            element, decision = self._decide(action, obs, anchorer, resolved)
            seen = obs
            # the screen as the next action of the segment will find it: what this one types
            # is in its field (a recipient typed before Send counts as the recipient)
            obs = _typed_into(obs, action, element)
            typing.append((action, element))
            if not decision.needs_confirmation or decision.sensitivity is None:
                self._let(decision.sensitivity, "authorisation", index)
                continue
            request = ConfirmationRequest.of(decision.sensitivity, self.task,
                                             fingerprint(decision.sensitivity, element, seen))
            if self.batches.covers(decision.sensitivity, self.approved):
                log.info("gate: %s is on the list the user allowed", request.describe)
                self._let(decision.sensitivity, "human", index)
                self.cleared.append(decision.sensitivity.cls)
                continue
            listed = self.batches.question(decision.sensitivity)
            if listed is not None:  # one question for the task's whole list, bound alike
                request = dataclasses.replace(listed, fingerprint=request.fingerprint)
            if request.fingerprint in self.approved:  # a yes to exactly this, used once
                self.approved.remove(request.fingerprint)
                log.info("gate: %s approved earlier by the user", request.describe)
                self._yes(request, decision.sensitivity, index)
                continue
            if request.describe in self.refused:  # a no stands: the model may not ask twice
                self.refused[request.describe] += 1
                return GateStop(index, request, False, action, element, seen)
            stop = self._ask(index, action, request, element, seen, decision.sensitivity,
                             typing[:-1])
            if stop is not None:
                return stop
        return None

    def _ask(self, index: int, action: Action, request: ConfirmationRequest,
             element: UIElement | None, seen: Observation, found: Sensitivity,
             typing: Sequence[tuple[Action, UIElement | None]] = ()) -> GateStop | None:
        """Ask the human about ``request``; after a yes look again: the same action on the
        same place goes on (``None``), a changed one is asked again with what the screen
        shows now, and one that is gone or moved is not done (a stop with ``gone``).
        ``typing`` is what the segment types before the action: the screen looked at again
        is judged as that typing leaves it, as the question was (a Send after its message
        was typed is not a new question about an empty box)."""
        for _ in range(ASK_AGAIN):
            answer = self.channel.confirm(request) if self.channel is not None else None
            self.asked.append((request, answer))
            log.info("gate: %s -> %s", request.describe, answer)
            if answer is not True:
                return GateStop(index, request, answer, action, element, seen,
                                words_of(self.channel))
            if self.observe is None:  # no screen to look at again (a test's fixed screen)
                self._yes(request, found, index)
                return None
            now = _retyped(self.observe(), typing)
            again = self._again(action, element, now)
            if isinstance(again, str):
                return GateStop(index, request, None, action, element, now, gone=again)
            found_now, decision = again
            if decision.sensitivity is None or not decision.needs_confirmation:
                self._let(decision.sensitivity, "authorisation", index)
                return None  # what is there now needs nobody's yes, in the same place
            fresh = ConfirmationRequest.of(decision.sensitivity, self.task,
                                           fingerprint(decision.sensitivity, found_now, now))
            if fresh.fingerprint == request.fingerprint:
                self._yes(request, decision.sensitivity, index)
                return None
            request = dataclasses.replace(fresh, note=(
                f"The screen changed while you were asked about: {request.describe}. "
                "That was not done; this is what it shows now."))
            element, seen, found = found_now, now, decision.sensitivity
        return GateStop(index, request, None, action, element, seen,
                        gone="the screen kept changing while the user was asked")

    def _yes(self, request: ConfirmationRequest, found: Sensitivity, index: int) -> None:
        """A yes that stands: a list question's covers the rest of its list, and the action
        is let go by a human."""
        self._listed(request, found, True)
        self._let(found, "human", index)
        self.cleared.append(found.cls)  # the choke point lets one input of it through

    def _let(self, found: Sensitivity | None, by: str,
             index: int) -> None:
        """The action at ``index`` goes on: a payment joins the run's total, and a sensitive
        action is recorded with who let it go (honest done reads it)."""
        self.gate.paid(found)
        if by == "authorisation" and found is not None and found.cls == "payment":
            self.landing.append(self.gate.ledger.paid[-1])
        self.passed.let(found, by, index)

    def landing_payment(self) -> bool:
        """A payment input reaches the phone: the review's count of the first payment it
        let go by authorisation is taken back (True), so the choke point judges the input
        on the total without it and counts it if it goes — never twice."""
        if not self.landing:
            return False
        return self.gate.ledger.take_back(self.landing.pop(0))

    def _again(self, action: Action, element: UIElement | None, now: Observation
               ) -> tuple[UIElement | None, Decision] | str:
        """The element a yes was given for, found again on ``now`` with the gate's decision
        on it — or why it cannot be the same one (gone, or moved: the planned touch would
        land elsewhere)."""
        found = refind(element, now) if element is not None else None
        if element is not None and found is None:
            return f"{element.label or 'its target'!r} is not on the screen any more"
        if element is not None and found is not None and found.bounds != element.bounds:
            return f"{element.label or 'its target'!r} moved on the screen"
        anchorer = Anchorer(now.screen, snap_tolerance_px=GATE_SNAP_PX)
        return self._decide(action, now, anchorer, found)

    def ask(self, request: ConfirmationRequest, found: Sensitivity) -> bool | None:
        """The human's answer to what the choke point found (``request``, ``found``): on a
        list the user allowed, or approved once earlier by its fingerprint, it is a yes; a no
        stands (the model may not ask twice); else the channel is asked (``None``: nobody to
        ask)."""
        if self.batches.covers(found, self.approved):
            return True
        if request.fingerprint and request.fingerprint in self.approved:  # exactly this, once
            self.approved.remove(request.fingerprint)
            self.gate.paid(found)
            return True
        if request.describe in self.refused:
            self.refused[request.describe] += 1
            return False
        answer = self.channel.confirm(request) if self.channel is not None else None
        self.asked.append((request, answer))
        log.info("gate (choke point): %s -> %s", request.describe, answer)
        if answer is True:  # a payment joins the run's total (the review never saw it)
            self.gate.paid(found)
        return answer

    def _listed(self, request: ConfirmationRequest, found: Sensitivity,
                answer: bool | None) -> None:
        """A yes to a list question allows the rest of the list (:mod:`.batch`)."""
        if answer is True and request.describe.startswith(MARK):
            self.batches.answered(request, found)

    def holds(self, action: Action, obs: Observation) -> bool:
        """Whether the gate would ask before ``action`` on ``obs`` (nobody is asked here: for
        the loop guard's own moves, which never touch a sensitive target)."""
        anchorer = Anchorer(obs.screen, snap_tolerance_px=GATE_SNAP_PX)
        return self._decide(action, obs, anchorer)[1].needs_confirmation

    def sensitivity(self, action: Action, obs: Observation) -> Sensitivity | None:
        """What makes ``action`` on ``obs`` sensitive, allowed or not (``None``: harmless) —
        for a flow replay, which must know when it did something that cannot be undone."""
        anchorer = Anchorer(obs.screen, snap_tolerance_px=GATE_SNAP_PX)
        return self._decide(action, obs, anchorer)[1].sensitivity

    def _decide(self, action: Action, obs: Observation, anchorer: Anchorer,
                resolved: UIElement | None = None) -> tuple[UIElement | None, Decision]:
        """The element ``action`` lands on (``resolved`` by the executor, else resolved at
        the gate's tolerance) and the gate's decision on it; a touch the tree cannot place,
        or that lands on an element with no label, is judged by the text it would hit. A
        swipe and a key are judged by their effect, as the choke point judges them
        (:func:`~omg_agent.guards.landing.landings`: a swipe within the slop is a tap)."""
        effect = effect_of(action, obs, anchorer, resolved)
        if effect is not None:
            return decide(self.gate, effect, plan_scene(obs))
        if resolved is None:
            resolved = _element(action, obs, anchorer)
        element = resolved
        unlabeled = element is None or not (element.text or element.desc)
        return element, self.gate.check(action, element, obs, ocr_text=_pixel_text(
            action, obs, element) if unlabeled else None)

    def approve(self, fingerprint: str) -> None:
        """A human's yes to the action with ``fingerprint``: it passes once."""
        self.approved.append(fingerprint)

    def refuse(self, describe: str) -> None:
        """The user said no to ``describe``: held again, it is refused without asking."""
        self.refused.setdefault(describe, 0)

    def withdraw(self, fingerprint: str) -> None:
        """Take back an approval that was not used (the held action could not be found
        again): a yes is for that action once, never for a later one."""
        if fingerprint in self.approved:
            self.approved.remove(fingerprint)


def _typed_into(obs: Observation, action: Action, element: UIElement | None) -> Observation:
    if not isinstance(action, TypeText) or element is None:
        return obs
    return typed_screen(obs, element, action.text, clear=action.clear)


def _retyped(now: Observation, typing: Sequence[tuple[Action, UIElement | None]]
             ) -> Observation:
    """``now`` as the segment's ``typing`` will leave it: each field found again there
    holds what is typed into it (a field not found again stays as it is)."""
    for action, element in typing:
        found = refind(element, now) if element is not None else None
        if found is not None:
            now = _typed_into(now, action, found)
    return now


def _pixel_text(action: Action, obs: Observation, element: UIElement | None) -> str | None:
    """What a touch on no element, or on one with no label, would hit, in text: an
    anchor's own words (the executor finds those by OCR — a WebView's "Pay now"), or OCR
    read under the point (the target's, else the element's centre)."""
    target = getattr(action, "target", None)
    if isinstance(target, AnchorTarget) and target.text:
        return target.text
    if not obs.ocr:
        return None
    if isinstance(target, PointTarget):
        point = obs.to_pixels((target.x, target.y))
        return text_at(obs, (point.x, point.y))
    if element is not None:
        return text_at(obs, (element.bounds.center.x, element.bounds.center.y))
    return None


def _element(action: Action, obs: Observation, anchorer: Anchorer) -> UIElement | None:
    try:
        return target_element(action, obs, anchorer)
    except (ValueError, TypeError):  # a target this screen cannot place
        return None


__all__ = ["GATE_SNAP_PX", "GateKeeper", "GateStop"]
