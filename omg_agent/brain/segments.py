"""A decision bundle split into segments: what runs on which screen.

A *segment* is a run of actions that share one screen: it ends at the first action that may
change the screen unpredictably (:func:`~omg_agent.core.actions.ends_bundle`, told which
element a tap lands on, so a tap on an edit field or a switch does not end it). The first
segment runs on the screen the model decided on. A later segment runs only if it is
*anchored*: every action in it either finds its element by an anchor (text / resource-id /
desc), which the operator checks on the NEW screen before anything runs, or does not depend
on the screen at all (``launch``, ``home``, ``wait``, a ``mem_save`` of a given value), and
the keys / untargeted typing / back it holds come after an anchored action of the same
segment. Element ids and points name things on the old screen, so they never follow a
screen change; an anchor that is not on the new screen stops the bundle there, and the next
decision sees that screen. This is how one model call can open an app and act in it without
acting blind.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from omg_agent.core.actions import (
    Action,
    AnchorTarget,
    AskUser,
    Back,
    Done,
    DoubleTap,
    ElementTarget,
    Home,
    Key,
    Launch,
    LongPress,
    MemSave,
    Scan,
    Swipe,
    Tap,
    Target,
    TypeText,
    Wait,
    ends_bundle,
)
from omg_agent.core.observation import Observation, UIElement
from omg_agent.perception.anchor import match_anchor
from omg_agent.perception.reading import element_for

log = logging.getLogger(__name__)


def targets(action: Action) -> list[Target]:
    """The targets ``action`` touches or reads, in order."""
    match action:
        case Tap() | LongPress() | DoubleTap():
            return [action.target]
        case TypeText():
            return [action.target] if action.target is not None else []
        case Swipe():
            return [t for t in (action.from_, action.to, action.start) if t is not None]
        case MemSave() if action.from_screen is not None and action.from_screen.target:
            return [action.from_screen.target]
        case _:
            return []


def anchor_element(anchor: AnchorTarget, obs: Observation) -> UIElement | None:
    """The element acting on ``anchor`` acts on in ``obs`` (tree only), or None — found by
    :func:`~omg_agent.perception.anchor.match_anchor`, as the drivers find it."""
    found = match_anchor(anchor, obs.elements, obs.screen.safe_zone)
    return found.target if found is not None else None


def segment_end(actions: Sequence[Action], start: int, obs: Observation | None) -> int:
    """Index of the last action of the segment that begins at ``start``."""
    for index in range(start, len(actions)):
        action = actions[index]
        found = targets(action)
        element = element_for(found[0], obs, touched=True) if found and obs is not None \
            else None
        if ends_bundle(action, element):
            return index
    return len(actions) - 1


def describe(target: Target) -> str:
    if isinstance(target, AnchorTarget):
        keys = [f"{k}={getattr(target, k)!r}" for k in ("text", "resource_id", "desc")
                if getattr(target, k) is not None]
        return "anchor " + ", ".join(keys)
    if isinstance(target, ElementTarget):
        return f"element [{target.id}]"
    return f"point {target.x:g},{target.y:g}"


def blind_reason(segment: Sequence[Action]) -> str:
    """Why ``segment`` may not run on a screen the model has not seen ('' when it may)."""
    checked = False
    for action in segment:
        found = targets(action)
        if any(not isinstance(t, AnchorTarget) for t in found):
            bad = next(t for t in found if not isinstance(t, AnchorTarget))
            return (f"{action.type} targets {describe(bad)} of the old screen; after a screen "
                    "change only anchors (text / resource_id / desc) are used")
        if found:
            checked = True
            continue
        if isinstance(action, MemSave) and action.from_screen is not None and not checked:
            return "mem_save reads a region of a screen nobody has seen; anchor an action first"
        if isinstance(action, Launch | Home | Wait | MemSave | AskUser | Done | Scan):
            continue  # a scan reads: it finds the list itself, or fails saying so
        if not checked and isinstance(action, Key | Back | TypeText | Swipe):
            return (f"{action.type} would act on a screen nobody has seen; anchor an action "
                    "before it")
    return ""


def missing_anchors(segment: Sequence[Action], obs: Observation) -> list[str]:
    """The anchors of ``segment`` that ``obs`` does not show."""
    return [describe(t) for a in segment for t in targets(a)
            if isinstance(t, AnchorTarget) and anchor_element(t, obs) is None]
