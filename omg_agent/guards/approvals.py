"""What a human's yes is bound to: the fingerprint of exactly the action the question showed.

A yes is given to a question; the screen may change while the question is open (a cart
refilled, a total raised, the message box edited). So a yes is never for "tap Pay": it is
for the action whose :func:`fingerprint` the question carried — the sensitive class, the
gate's description, the element's label and resource id, what the screen says the action
is about (title, recipients, the text a send would send), the amounts the payment costs
and every amount the app's own screen shows (:func:`~omg_agent.guards.amounts.priced`),
what the question says the action is about and the words of the dialog or menu it sits in
(a yes to Oliver's "Delete this contact?" is no yes to Emma's, the same dialog but for its
message).
After an answer the gate looks again (:meth:`~omg_agent.guards.gatekeeper.GateKeeper.review`)
and finds the element again (:func:`refind`): a different fingerprint is a different
question, asked again; an element gone or moved is not tapped. A fingerprint is a hash, so
a message text or a recipient in it never reaches a file or a log.
"""

from __future__ import annotations

import hashlib
import json

from omg_agent.core.observation import Observation, UIElement
from omg_agent.guards.amounts import priced
from omg_agent.guards.objects import window_words
from omg_agent.guards.sensitive import Sensitivity


def screen_amounts(obs: Observation) -> tuple[str, ...]:
    """The amounts with a currency the app's own screen shows, in order (the status bar,
    the keyboard and password fields stay out)."""
    return tuple(str(money) for e in obs.elements
                 if not e.window and e.package in ("", obs.package) and not e.password
                 for text in (e.text, e.desc, *e.extra_texts) for money in priced(text))


def fingerprint(sensitivity: Sensitivity, element: UIElement | None,
                obs: Observation) -> str:
    """The hash a yes to ``sensitivity`` (on ``element`` of ``obs``) is bound to."""
    parts = {
        "cls": sensitivity.cls, "describe": sensitivity.describe,
        "package": sensitivity.package, "subjects": list(sensitivity.subjects),
        "amounts": [str(m) for m in sensitivity.amounts], "text": sensitivity.text,
        "label": "" if element is None or element.password else element.label,
        "resource_id": element.resource_id if element is not None else "",
        "screen": list(screen_amounts(obs)), "app": obs.package,
        # everything the question shows, and the words of the dialog it is asked about
        "about": sensitivity.about, "objects": list(sensitivity.objects),
        "window": window_words(element, obs),
    }
    raw = json.dumps(parts, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]


def refind(element: UIElement, obs: Observation) -> UIElement | None:
    """``element`` (of the screen a question was asked on) on ``obs``: the one element with
    its resource id (of a list's rows, which share one: the one with its label), or — with
    no id — the one of its class in its place; ``None`` when it is not there or not
    alone."""
    if element.resource_id:
        same = [e for e in obs.elements if e.resource_id == element.resource_id
                and e.package == element.package]
        if len(same) > 1:
            same = [e for e in same if e.label == element.label]
    else:
        same = [e for e in obs.elements if e.bounds == element.bounds
                and e.cls == element.cls]
    return same[0] if len(same) == 1 else None


__all__ = ["fingerprint", "refind", "screen_amounts"]
