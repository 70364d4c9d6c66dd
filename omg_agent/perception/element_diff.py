"""What differs between two element lists: elements added, removed, or changed in their
state (text, checked, focused, …), matched by class, resource id and bounds. Catches small
changes (a toggled switch, a typed character) that a perceptual screen hash may not
resolve; the loop watch uses it to tell whether an action did anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from omg_agent.core.observation import UIElement

_STATE_FIELDS = ("text", "desc", "extra_texts", "checked", "focused", "enabled", "selected")


@dataclass(frozen=True)
class ElementChange:
    """One difference between two element lists: added (``old`` None), removed (``new``
    None), or changed in ``fields``."""

    old: UIElement | None
    new: UIElement | None
    fields: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        if self.old is None:
            return "added"
        return "removed" if self.new is None else "changed"


def changed_elements(old: Sequence[UIElement], new: Sequence[UIElement]) -> list[ElementChange]:
    """What differs between two element lists, matching elements by class, id and bounds.

    A toggled switch or typed text shows as ``changed``; a scroll or a new screen shows as
    elements ``removed`` and ``added``. Empty when the lists show the same UI state.
    """
    def key(e: UIElement) -> tuple:
        return (e.cls, e.resource_id, e.bounds)

    pool: dict[tuple, list[UIElement]] = {}
    for e in old:
        pool.setdefault(key(e), []).append(e)
    changes: list[ElementChange] = []
    for e in new:
        bucket = pool.get(key(e))
        if not bucket:
            changes.append(ElementChange(None, e))
            continue
        before = bucket.pop(0)
        diff = tuple(f for f in _STATE_FIELDS if getattr(before, f) != getattr(e, f))
        if diff:
            changes.append(ElementChange(before, e, diff))
    changes.extend(ElementChange(e, None) for bucket in pool.values() for e in bucket)
    return changes
