"""A driver that types secrets without letting them out: reveal at the last moment, learn
password fields where the text goes in.

:class:`SecretTyping` wraps any :class:`~omg_agent.drivers.base.Driver` (composition, the
protocol unchanged) for one run's :class:`~omg_agent.core.secrets.SecretVault`:

- a ``type`` action's ``{{secret:NAME}}`` placeholders are replaced by their values just
  before the inner driver runs the bundle, and the outcomes handed back carry the action as
  the model wrote it (placeholders), so nothing above the driver holds the value;
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
from dataclasses import replace

from omg_agent.core.actions import Action, Tap, TypeText
from omg_agent.core.observation import Observation, UIElement
from omg_agent.core.secrets import SecretVault
from omg_agent.drivers.base import ActionOutcome, Driver, ExecResult
from omg_agent.drivers.ports import Reviewer
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
        revealed = [self._reveal(a) for a in given]
        result = self.inner.execute(revealed, observation, review=review)
        self._learn(result.outcomes, observation)
        # hand back the actions as given: the outcome's index is its place in the bundle
        outcomes = tuple(replace(o, action=given[o.index], detail=self.vault.mask(o.detail))
                         if 0 <= o.index < len(given) else o for o in result.outcomes)
        return replace(result, outcomes=outcomes)

    def _reveal(self, action: Action) -> Action:
        action = self.vault.reveal_targets(action)  # an anchor named by its placeholder
        if not isinstance(action, TypeText) or "{{secret:" not in action.text:
            return action
        unknown = self.vault.unknown(action.text)
        if unknown:
            raise ActionRejected("type: no secret named " + ", ".join(unknown)
                                 + " (use a {{secret:NAME}} the task or the user gave)",
                                 serial=self.info().serial)
        return action.model_copy(update={"text": self.vault.reveal(action.text)})

    def _learn(self, outcomes: Sequence[ActionOutcome], obs: Observation | None) -> None:
        """Text that went into a password field is a secret from now on."""
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
            if any(f is not None and f.password for f in fields):
                self.vault.add("password", action.text)
            if action.target is not None and outcome.element is not None:
                focus = outcome.element
