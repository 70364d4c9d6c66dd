"""A driver that types secrets without letting them out: reveal at the last moment, learn
password fields where the text goes in.

:class:`SecretTyping` wraps any :class:`~omg_agent.drivers.base.Driver` (composition, the
protocol unchanged) for one run's :class:`~omg_agent.core.secrets.SecretVault`:

- a ``type`` action's ``{{secret:NAME}}`` placeholders are replaced by their values only in
  the executor's plan of the segment, after the placeholder's field is known and allowed
  (:mod:`omg_agent.drivers.secret_places`: a password field of the app the secret is bound
  to) and after the caller's own review (the gate) has seen the placeholder — a ``type``
  into any other field is refused with one line and nothing of it reaches the device, and a
  driver that shows no plan types the placeholder as it is, never the value. The outcomes
  handed back carry the action as the model wrote it (placeholders), so nothing above the
  driver holds the value;
- a text typed into an element that is a password field *on the screen it is typed on* —
  the element the inner driver resolved at execution time, or the field a tap earlier in the
  same call focused, or the focused one — is added to the vault before ``execute`` returns,
  so the trace, the logs and the next request to the model already mask it. The screen the
  model decided on does not decide this: a bundle may open the login screen and type into
  its password field in one go.

Anchors that name on-screen text by its placeholder (a flow recorded with
``--secret pw=Settings``) get the text back too
(:meth:`~omg_agent.core.secrets.SecretVault.reveal_targets`).

A placeholder the vault does not hold is refused (:class:`ActionRejected`) before anything
runs, rather than typed literally.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from omg_agent.core.actions import Action, Tap, TypeText
from omg_agent.core.observation import Observation, UIElement
from omg_agent.core.secrets import SecretVault
from omg_agent.drivers.base import ActionOutcome, Driver, ExecResult
from omg_agent.drivers.ports import Planned, Reviewer
from omg_agent.drivers.secret_places import refusal, typed_fields
from omg_agent.drivers.wrapper import DriverWrapper
from omg_agent.errors import ActionRejected


class SecretTyping(DriverWrapper):
    """``driver`` with secrets revealed for typing and password fields learned (see module)."""

    def __init__(self, driver: Driver, vault: SecretVault) -> None:
        super().__init__(driver)
        self.vault = vault

    def execute(self, actions: Sequence[Action],
                observation: Observation | None = None, *,
                review: Reviewer | None = None) -> ExecResult:
        given = list(actions)
        for action in given:
            self._check_known(action)
        pointing = [self.vault.reveal_targets(a) for a in given]  # anchors named by one
        gate = _Reveal(self.vault, review)
        result = self.inner.execute(pointing, observation, review=gate)
        self._learn(result.outcomes, observation)
        # hand back the actions as given: the outcome's index is its place in the bundle
        outcomes = [replace(o, action=given[o.index], detail=self.vault.mask(o.detail))
                    if 0 <= o.index < len(given) else o for o in result.outcomes]
        dropped = result.dropped
        if gate.refused is not None and all(o.ok for o in outcomes):
            index, why = gate.refused
            outcomes.append(ActionOutcome(index, given[index], False, why, error=ActionRejected(
                why, serial=self.info().serial)))
            dropped = max(0, dropped - 1)
        return replace(result, outcomes=tuple(outcomes), dropped=dropped)

    def _check_known(self, action: Action) -> None:
        if not isinstance(action, TypeText) or "{{secret:" not in action.text:
            return
        unknown = self.vault.unknown(action.text)
        if unknown:
            raise ActionRejected("type: no secret named " + ", ".join(unknown)
                                 + " (use a {{secret:NAME}} the task or the user gave)",
                                 serial=self.info().serial)

    def _learn(self, outcomes: Sequence[ActionOutcome], obs: Observation | None) -> None:
        """Text that went into a password field is a secret from now on, typeable in that
        field's app only."""
        focus: UIElement | None = obs.focused if obs is not None else None
        for outcome in outcomes:
            action = outcome.action
            if isinstance(action, Tap) and outcome.element is not None \
                    and outcome.element.editable:
                focus = outcome.element
            if not isinstance(action, TypeText) or not outcome.ok or not action.text:
                continue
            # the field the driver typed into; untargeted text goes to the focused one
            fields = [outcome.element, focus if action.target is None else None]
            found = next((f for f in fields if f is not None and f.password), None)
            if found is not None:
                app = found.package or (obs.package if obs is not None else "")
                self.vault.add("password", action.text, app=app or None)
            if action.target is not None and outcome.element is not None:
                focus = outcome.element


@dataclass
class _Reveal:
    """The review :class:`SecretTyping` puts in front of the caller's (``inner``, the gate):
    a planned ``type`` whose secret may not go into its field is refused (``refused``: its
    index and why) and the caller reviews only what comes before it; what may run then has
    its placeholders revealed in the plan the executor types from."""

    vault: SecretVault
    inner: Reviewer | None
    refused: tuple[int, str] | None = None

    @property
    def unseen(self) -> bool:
        return self.inner is not None and self.inner.unseen

    def stopped(self, why: str, screen: Observation | None) -> None:
        if self.inner is not None:
            self.inner.stopped(why, screen)

    def review(self, planned: Sequence[Planned], screen: Observation | None) -> int | None:
        self.refused = None
        for plan, field in typed_fields(planned, screen):
            assert isinstance(plan.action, TypeText)
            why = refusal(self.vault, plan.action.text, field, screen)
            if why is not None:
                self.refused = (plan.index, why)
                break
        cut = self.refused[0] if self.refused is not None else None
        ahead = [p for p in planned if cut is None or p.index < cut]
        held = self.inner.review(ahead, screen) if self.inner is not None else None
        if held is not None:
            self.refused = None  # the caller stops earlier: the refused one is not reached
        stop = held if held is not None else cut
        for plan in planned:
            if (stop is None or plan.index < stop) and isinstance(plan.action, TypeText) \
                    and "{{secret:" in plan.action.text:
                plan.action = plan.action.model_copy(
                    update={"text": self.vault.reveal(plan.action.text)})
        return stop
