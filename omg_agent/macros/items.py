"""Repeated items on one screen: where a macro's target shows, and what each item says.

A list screen repeats one structure: a card per post, a row per contact. The acted-on
element (a Like button) is the *anchor* of its item; the item's other fields (author, time,
text) lie in a *band* next to it along the scroll axis — ``above`` (from the previous
anchor's bottom edge to this anchor's bottom: a button at the foot of a card) or ``below``
(from this anchor's top to the next anchor's top: a checkbox at the head of a row). Pure
functions over :class:`~omg_agent.core.observation.UIElement` lists, shared by the detector
(which learns the shape from a trace) and the runner (which finds the next items on the live
screen), so both read items the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from omg_agent.core.observation import UIElement

Band = Literal["above", "below"]


@dataclass(frozen=True)
class Item:
    """One repetition of the structure on a screen."""

    key: str  # what names the item for good (its anchor's desc, else its fields)
    anchor: UIElement
    band: tuple[int, int]  # top and bottom of the item's band, pixels
    fields: dict[str, str] = field(default_factory=dict)  # field resource-id -> text
    whole: bool = True  # the anchor is not cut by the list's edge


def container_of(elements: Sequence[UIElement], resource_id: str) -> UIElement | None:
    """The scrollable list with ``resource_id`` (the largest, if several)."""
    hits = [e for e in elements if e.resource_id == resource_id]
    return max(hits, key=lambda e: e.bounds.area) if hits else None


def scroll_parent(elements: Sequence[UIElement], point: tuple[int, int]) -> UIElement | None:
    """The smallest scrollable element holding ``point`` (the list an item lives in)."""
    hits = [e for e in elements if e.scrollable and e.bounds.contains(point)]
    return min(hits, key=lambda e: e.bounds.area) if hits else None


def anchors(elements: Sequence[UIElement], container: UIElement, resource_id: str,
            role: str) -> list[UIElement]:
    """The anchors inside ``container``, top to bottom."""
    box = container.bounds
    found = [e for e in elements if e.resource_id == resource_id and e.role == role
             and e is not container and box.contains(e.center)]
    return sorted(found, key=lambda e: (e.bounds.top, e.bounds.left))


def items_on(elements: Sequence[UIElement], container: UIElement, resource_id: str,
             role: str, band: Band) -> list[Item]:
    """Every item whose anchor shows inside ``container``, top to bottom."""
    found = anchors(elements, container, resource_id, role)
    if not found:
        return []
    full = max(e.bounds.height for e in found)
    box = container.bounds
    items: list[Item] = []
    for i, anchor in enumerate(found):
        if band == "above":
            top = found[i - 1].bounds.bottom if i else box.top
            bottom = anchor.bounds.bottom
        else:
            top = anchor.bounds.top
            bottom = found[i + 1].bounds.top if i + 1 < len(found) else box.bottom
        fields = _fields(elements, container, anchor, (top, bottom))
        whole = anchor.bounds.height >= full - 2 and box.top <= anchor.bounds.top \
            and anchor.bounds.bottom <= box.bottom
        items.append(Item(item_key(anchor, fields), anchor, (top, bottom), fields, whole))
    return items


def _fields(elements: Sequence[UIElement], container: UIElement, anchor: UIElement,
            band: tuple[int, int]) -> dict[str, str]:
    top, bottom = band
    out: dict[str, str] = {}
    for e in elements:
        if e is anchor or e is container or not e.resource_id or not e.text:
            continue
        y = e.center.y
        if top < y <= bottom and container.bounds.contains(e.center):
            out.setdefault(e.resource_id, e.text)
    return out


def item_key(anchor: UIElement, fields: dict[str, str]) -> str:
    """What names an item for as long as the list lives: the anchor's description when it
    carries one ("Like post 7"), else the item's texts."""
    if anchor.desc:
        return anchor.desc
    return " | ".join(f"{k.rsplit('/', 1)[-1]}={v}" for k, v in sorted(fields.items()))
