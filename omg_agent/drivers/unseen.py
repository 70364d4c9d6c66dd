"""A segment of a bundle on a screen the model has not seen: what may run there, and the wait
for it to show what the segment names.

A bundle's first segment runs on the screen the model decided on. After a boundary the
:class:`~omg_agent.drivers.executor.BundleExecutor` may go on with the next segment only if
it is *anchored*: every action in it either finds its element by an anchor (text /
resource-id / desc) on the NEW screen, or does not depend on the screen at all (``launch``,
``home``, ``wait``, a ``mem_save`` of a given value), and the keys / untargeted typing /
back it holds come after an anchored action of the same segment (:func:`blind_reason`).
Element ids and points name things on the old screen, so they never follow a screen
change. A new screen may still be loading: :func:`await_anchors` looks again until the
segment's anchors are on it, for up to :data:`ANCHOR_WAIT_S` — a screen that stands still
with no progress indicator is not loading, it is another screen (a popup), so it stops
there. This is how one model call can open an app and act in it without acting blind.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TypeVar

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
    PointTarget,
    Scan,
    Swipe,
    Tap,
    TypeText,
    Wait,
    ends_bundle,
)
from omg_agent.core.observation import Observation
from omg_agent.drivers.loading import loading_signs
from omg_agent.errors import AnchorNotFound

ANCHOR_WAIT_S = 3.0  # how long a new screen may take to show a segment's anchors
ANCHOR_POLL_S = 0.3

Target = ElementTarget | AnchorTarget | PointTarget
T = TypeVar("T")


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


def extent(actions: Sequence[Action], planned: int | None = None) -> Sequence[Action]:
    """The actions of the segment ``actions`` begins with: the ``planned`` ones, or before
    planning, up to the first that may end it wherever a tap lands."""
    if planned is not None:
        return actions[:planned]
    end = next((i for i, a in enumerate(actions) if ends_bundle(a)), len(actions) - 1)
    return actions[:end + 1]


def missing_anchors(action: Action, error: Exception | None) -> list[str]:
    """The anchors of ``action`` when planning it failed for want of one (``[]``: not)."""
    if not isinstance(error, AnchorNotFound):
        return []
    return [describe(t) for t in targets(action) if isinstance(t, AnchorTarget)]


def await_anchors(observe: Callable[[], Observation], plan: Callable[[Observation], T],
                  missing: Callable[[T], list[str]], *,
                  clock: Callable[[], float] = time.monotonic,
                  sleep: Callable[[float], None] = time.sleep) -> tuple[Observation, T]:
    """Look at the new screen and ``plan`` the segment on it until nothing is ``missing``,
    the screen stands still without loading signs, or :data:`ANCHOR_WAIT_S` is over."""
    deadline = clock() + ANCHOR_WAIT_S
    previous = ""
    while True:
        screen = observe()
        planned = plan(screen)
        settled = bool(previous) and screen.screen_hash == previous and not \
            loading_signs(screen)
        if not missing(planned) or settled or clock() >= deadline:
            return screen, planned
        previous = screen.screen_hash
        sleep(ANCHOR_POLL_S)


__all__ = ["ANCHOR_POLL_S", "ANCHOR_WAIT_S", "await_anchors", "blind_reason", "describe",
           "extent", "missing_anchors", "targets"]
