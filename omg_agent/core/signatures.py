"""What the loop guard knows of an executed action: its signature, label and expected effect.

:func:`action_signature` names what an action does, stably across turns (the element it landed
on rather than its number, a point's coarse cell, typed text only as a fingerprint);
:func:`describe_action` is the trace's wording; :func:`should_change_screen` is
:func:`omg_agent.core.actions.is_boundary` plus taps on switches. An :class:`ActionRecord`
joins them with the screen hashes before and after — one observation for
:class:`omg_agent.guards.loops.LoopGuard`. Pure, no I/O. It sits in core, not in the guards,
because the trace's report words actions with it too and the trace does not import the
guards (docs/architecture.md).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from omg_agent.core.actions import (
    Action,
    AnchorTarget,
    AskUser,
    Back,
    DoubleTap,
    ElementTarget,
    Key,
    Launch,
    LongPress,
    MemSave,
    PointTarget,
    Swipe,
    Tap,
    Target,
    TypeText,
    Wait,
    is_boundary,
)
from omg_agent.core.observation import UIElement

POINT_CELL = 50  # normalized units: taps within one 50x50 cell (5% of the screen) are alike


def should_change_screen(action: Action, element: UIElement | None = None) -> bool:
    """Whether ``action`` should visibly change the screen: :func:`is_boundary`, plus a tap on a
    switch or checkbox (predictable, but it flips something you can see)."""
    if isinstance(action, Tap) and element is not None and element.enabled \
            and element.checkable:
        return True
    return is_boundary(action, element)


def _digest(text: str) -> str:
    # typed text may be a secret: the signature keeps a fingerprint, never the text
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def _element_key(element: UIElement) -> str:
    label = element.desc if element.password else element.label
    if element.resource_id or label:
        return f"el:{element.resource_id}|{label}"
    return f"el:{element.cls}@{element.bounds}"


def _target_key(target: Target | None, element: UIElement | None) -> str:
    if element is not None:
        return _element_key(element)
    match target:
        case PointTarget(x=x, y=y):
            return f"pt:{int(x // POINT_CELL)},{int(y // POINT_CELL)}"
        case ElementTarget(id=number):
            return f"id:{number}"
        case AnchorTarget():
            keys = ",".join(f"{k}={v}" for k in ("text", "resource_id", "desc")
                            if (v := getattr(target, k)) is not None)
            return f"anchor:{keys}/{target.match}"
    return ""


def action_signature(action: Action, element: UIElement | None = None) -> str:
    """A stable text naming what ``action`` does: its type, its target (the element it landed
    on, else the anchor, the element number or the point's coarse cell) and its text.

    Two taps on the same button from slightly different points share a signature; typed text
    enters only as a fingerprint.
    """
    match action:
        case Tap() | LongPress() | DoubleTap():
            parts = [action.type, _target_key(action.target, element)]
        case Swipe(direction=str(direction)):
            parts = ["swipe", direction, _target_key(action.start, None)]
        case Swipe():
            parts = ["swipe", _target_key(action.from_, None), _target_key(action.to, None)]
        case TypeText():
            parts = ["type", _target_key(action.target, element), _digest(action.text),
                     "clear" if action.clear else "", "submit" if action.submit else ""]
        case Key():
            parts = ["key", str(action.key)]
        case Launch():
            parts = ["launch", action.app.strip().lower()]
        case MemSave():
            parts = ["mem_save", action.key]
        case AskUser():
            parts = ["ask_user", _digest(action.question)]
        case _:
            parts = [action.type]
    return "|".join(parts)


def describe_action(action: Action, element: UIElement | None = None) -> str:
    """The action as a trace reads it: ``tap 'Check for update'``, ``swipe up``, ``press back``."""
    def where(target: Target | None) -> str:
        if element is not None:
            label = element.desc if element.password else element.label
            short = element.resource_id.rsplit("/", 1)[-1]
            return repr(label) if label else short or f"the {element.role or 'element'}"
        match target:
            case PointTarget(x=x, y=y):
                return f"point ({x:g},{y:g})"
            case ElementTarget(id=number):
                return f"element [{number}]"
            case AnchorTarget():
                return repr(target.text or target.desc or target.resource_id)
        return "the focused field"

    match action:
        case Tap() | LongPress() | DoubleTap():
            return f"{action.type.replace('_', ' ')} {where(action.target)}"
        case Swipe(direction=str(direction)):
            return f"swipe {direction}"
        case Swipe():
            return "swipe"
        case TypeText():
            return f"type into {where(action.target)}"
        case Key():
            return f"key {action.key}"
        case Back():
            return "press back"
        case Launch():
            return f"launch {action.app!r}"
        case Wait():
            return f"wait {action.seconds:g} s"
        case _:
            return action.type.replace("_", " ")


@dataclass(frozen=True)
class ActionRecord:
    """One executed action as the guard sees it.

    ``ui_changed`` is the caller's word that the element list changed (a one-digit counter,
    typed text): changes below the hash's resolution, so not a no-effect.
    """

    signature: str
    label: str
    before: str
    after: str
    app: str = ""
    should_change: bool = True
    ui_changed: bool = False
    action: Action | None = None
    element: UIElement | None = None

    @classmethod
    def of(cls, action: Action, element: UIElement | None, before: str, after: str,
           app: str = "", *, ui_changed: bool = False) -> ActionRecord:
        """The record of ``action`` (landed on ``element``, when known) between two hashes."""
        return cls(action_signature(action, element), describe_action(action, element),
                   before, after, app, should_change_screen(action, element), ui_changed,
                   action, element)

    @property
    def is_wait(self) -> bool:
        return isinstance(self.action, Wait) or self.signature == "wait"

    @property
    def is_back(self) -> bool:
        return isinstance(self.action, Back) or self.signature in ("back", "key|back")
