"""The one choke point: every input that reaches the phone is judged by its effect.

DESIGN.md §5, STYLE #21. The drivers turn each input of every caller into an
:class:`~omg_agent.drivers.ports.InputEffect` at the port's verbs
(:class:`~omg_agent.drivers.inputs.JudgedPort`); :func:`landings` says what it does — which
element it lands on and as what — and :class:`ChokePoint` asks the gate about that element
and its screen (:class:`~omg_agent.guards.sensitive.Gate`, the same rule the operator's
segment review applies before a segment runs). What each input is judged as:

* a tap, double tap or long press: the control under its point;
* a swipe that stays within the touch slop: a tap (a long press when held ≥ 500 ms) on the
  control under its down point *and* under its up point — Android turns it into a tap;
* a drag beyond the slop: a tap on the control it ends on (a drag that ends on Pay is
  judged as Pay); ending on no control, it is a scroll;
* ENTER, DPAD_CENTER, SPACE, NUMPAD_ENTER (and their numeric codes): a tap on the focused
  control (in a text field, ENTER is the field's submit: a send in a message box); CALL
  dials; known navigation and typing keys are harmless; any other key on a focused control
  or in a focused field (KEYCODE_PASTE fills it with the clipboard) cannot be classified;
* text: typing into the field it goes to (its ENTER after it: the submit);
* starting an app: harmless for a package name, unclassifiable otherwise.

Where the element acted on has no label of its own (a WebView or canvas leaf, an unlabeled
image button) the pixels in its box around the point are read (OCR) before deciding. What
cannot be classified — a touch with no screen to place it on, an unknown key or a hotkey on
a focused control, an unreadable start — is sensitive (``unclassified``): asked, never let
through. A human's yes at the segment review clears its class once for the inputs of that
segment (:attr:`GateKeeper.cleared`); anything else the choke point finds is put to the
keeper's channel, and with no yes it raises :class:`~omg_agent.drivers.ports.InputHeld`.
A yes is for what the question showed: the screen is looked at again (``InputScene.look``)
and the target found again — gone or moved, the input is not sent; changed (another
dialog's words, another amount), it is asked again as it is now. What an input let through
does to the gate lands here too (:meth:`~omg_agent.guards.sensitive.Gate.landed`: a
delete's consent carried to its own dialog, :mod:`.follow_through`).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from omg_agent.core.observation import UIElement
from omg_agent.drivers.inputs import judge_of
from omg_agent.drivers.ports import InputEffect, InputHeld, InputScene
from omg_agent.guards.approvals import fingerprint, refind
from omg_agent.guards.confirmation import ConfirmationRequest
from omg_agent.guards.gatekeeper import ASK_AGAIN, GateKeeper
from omg_agent.guards.landing import decide
from omg_agent.guards.sensitive import Sensitivity

log = logging.getLogger(__name__)


class ChokePoint:
    """The :class:`~omg_agent.drivers.ports.InputJudge` a composition root installs in the
    driver stack. It judges with ``keeper`` — the settings' gate with nobody to ask, until a
    run or a call binds its own (:meth:`bound`); ``None``: the user's config switched the
    gate off. ``mask`` hides secrets in what a question shows."""

    def __init__(self, keeper: GateKeeper | None, *, serial: str = "") -> None:
        self.keeper = keeper
        self.serial = serial
        self.mask: Callable[[str], str] = str

    @contextmanager
    def bound(self, keeper: GateKeeper | None,
              mask: Callable[[str], str] | None = None) -> Iterator[GateKeeper | None]:
        """Judge with ``keeper`` (a run's, a call's) until the block ends (it is what the
        block gets)."""
        was = self.keeper, self.mask
        self.keeper, self.mask = keeper, mask or str
        try:
            yield keeper
        finally:
            self.keeper, self.mask = was

    def judge(self, effect: InputEffect, scene: InputScene) -> None:
        keeper = self.keeper
        if keeper is None:
            return
        element, decision = decide(keeper.gate, effect, scene)
        found = decision.sensitivity
        if found is not None and found.cls == "payment" and keeper.landing_payment():
            # the review let this payment go and counted it: judged on the total without
            # that count (¥1,079 counted twice passes "up to ¥2,000"), and counted as it goes
            _, decision = decide(keeper.gate, effect, scene)
            found = decision.sensitivity
        if found is None:
            return
        if not decision.needs_confirmation:
            keeper.gate.paid(found)  # a payment joins the run's total as it lands
            keeper.gate.landed(found)
            return
        if found.cls in keeper.cleared:  # the segment review asked, and the human said yes
            keeper.cleared.remove(found.cls)
            keeper.gate.landed(found)
            return
        # bound like the review's question: a yes (an approval) is for exactly this input on
        # this screen; with no screen to bind it to, nothing but a live answer lets it go
        bound = "" if scene.screen is None else fingerprint(found, element, scene.screen)
        request = self._request(keeper, found, bound)
        answer = keeper.ask(request, found)
        log.info("choke point: %s -> %s", request.describe, answer)
        if answer is True:
            request, answer, found = self._still(keeper, effect, scene, element, request,
                                                 found)
        if answer is not True:
            how = "the user said no" if answer is False else "no one to ask"
            raise InputHeld(f"held at the choke point: {request.describe} ({request.reason}) "
                            f"— {how}", serial=self.serial, request=request, answer=answer)
        keeper.gate.landed(found)

    def _request(self, keeper: GateKeeper, found: Sensitivity, bound: str,
                 note: str = "") -> ConfirmationRequest:
        request = ConfirmationRequest.of(found, task=keeper.task, fingerprint=bound)
        return dataclasses.replace(request, describe=self.mask(request.describe),
                                   reason=self.mask(request.reason), note=note)

    def _still(self, keeper: GateKeeper, effect: InputEffect, scene: InputScene,
               element: UIElement | None, request: ConfirmationRequest, found: Sensitivity
               ) -> tuple[ConfirmationRequest, bool | None, Sensitivity]:
        """After a yes to ``request``, the screen looked at again (DESIGN.md §5: a yes
        approves exactly what was shown): the same input on the same thing goes on (True);
        one whose object, amount or words changed is asked again as the screen shows it
        now; one whose target is gone or moved is not sent (None)."""
        for _ in range(ASK_AGAIN):
            if scene.look is None or scene.screen is None:
                return request, True, found  # no screen it was asked on, or none to look at
            now = scene.look()
            hint = refind(element, now) if element is not None else None
            if element is not None and (hint is None or hint.bounds != element.bounds):
                return request, None, found  # gone or moved: the yes was for what is not there
            element, decision = decide(keeper.gate, dataclasses.replace(effect, element=hint),
                                       dataclasses.replace(scene, screen=now))
            if decision.sensitivity is None or not decision.needs_confirmation:
                return request, True, decision.sensitivity or found  # needs nobody's yes now
            found = decision.sensitivity
            fresh = fingerprint(found, element, now)
            if fresh == request.fingerprint:
                return request, True, found
            request = self._request(keeper, found, fresh, note=(
                f"The screen changed while you were asked about: {request.describe}. "
                "That was not done; this is what it shows now."))
            answer = keeper.ask(request, found)
            log.info("choke point (asked again): %s -> %s", request.describe, answer)
            if answer is not True:
                return request, answer, found
            scene = dataclasses.replace(scene, screen=now)
        return request, None, found


def bind(driver: Any, keeper: GateKeeper | None,
         mask: Callable[[str], str] | None = None) -> Any:
    """A context in which ``driver``'s choke point judges with ``keeper`` (nothing to bind
    on a driver without one: a test double); it gives ``keeper``."""
    judge = judge_of(driver)
    if isinstance(judge, ChokePoint):
        return judge.bound(keeper, mask)
    return nullcontext(keeper)


__all__ = ["ChokePoint", "bind"]
