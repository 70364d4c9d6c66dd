"""Reading a screen for the layers above: the element a target names, the text a
``mem_save`` points at.

:func:`element_for` is the one way a target (element id, anchor, point) becomes an element
of an observation outside the executor — the bundle's segmenter and the test doubles use it;
:func:`read_from_screen` is how the operator and a flow's replay read a value off the
screen (an element's text, or the texts inside a region, OCR first). Both sit in perception
because the flows and the brain read screens the same way and the flows must not import the
brain for it (docs/architecture.md). Pure functions over an :class:`Observation`.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from omg_agent.core.actions import AnchorTarget, ElementTarget, MemSave, PointTarget, Target
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.core.results import FailureKind
from omg_agent.errors import TurnFailed
from omg_agent.perception.anchor import match_anchor


def element_for(target: Target, obs: Observation,
                having: Callable[[UIElement], object] | None = None, *,
                touched: bool = False) -> UIElement | None:
    """The element ``target`` names in ``obs``: under a point, the smallest one (of those
    ``having`` accepts, when given); for an anchor, the element it matches — or, with
    ``touched``, the clickable element a tap on it lands on (as the drivers tap it)."""
    match target:
        case ElementTarget(id=element_id):
            return obs.element(element_id)
        case AnchorTarget():
            found = match_anchor(target, obs.elements, obs.screen.safe_zone)
            if found is None:
                return None
            return found.target if touched else found.element
        case PointTarget(x=x, y=y):
            return obs.element_at(obs.to_pixels((x, y)), having)
    return None


def _element_text(element: UIElement) -> str:
    return element.text or element.desc or " ".join(element.extra_texts)


def read_from_screen(action: MemSave, obs: Observation) -> str:
    """The text ``action.from_screen`` points at in ``obs``; raises when there is none."""
    source = action.from_screen
    assert source is not None
    texts: list[str] = []
    if source.target is not None:
        element = element_for(source.target, obs, having=_element_text)
        texts = [_element_text(element)] if element is not None else []
    if source.region is not None:
        r = source.region
        region = obs.region_to_pixels(Bounds(r.left, r.top, r.right, r.bottom))
        boxes = [(b.bounds, b.text) for b in obs.ocr or ()] or [
            (e.bounds, _element_text(e)) for e in obs.elements]
        texts = [t for b, t in boxes if t and region.contains(b.center)]
    value = " ".join(t for t in texts if t).strip()
    if not value:
        where = json.dumps(source.model_dump(mode="json", exclude_none=True))
        raise TurnFailed(f"mem_save {action.key}: nothing readable on screen at {where}",
                         FailureKind.ELEMENT_NOT_FOUND)
    return value
