"""Where an action lands, read as the executor reads it: the element a target resolves to,
and the OCR text under a point (for the gate's review of a planned segment)."""

from __future__ import annotations

from omg_agent.core.actions import AnchorTarget, ElementTarget, PointTarget, TypeText
from omg_agent.core.observation import Observation, UIElement
from omg_agent.errors import AnchorNotFound
from omg_agent.perception.anchor import Anchorer


def text_at(obs: Observation, point: tuple[int, int]) -> str | None:
    """The OCR text of ``obs`` under a pixel point (the smallest box), if OCR ran."""
    boxes = [b for b in obs.ocr or () if b.bounds.contains(point)]
    return min(boxes, key=lambda b: b.bounds.area).text if boxes else None


def target_element(action: object, obs: Observation, anchorer: Anchorer) -> UIElement | None:
    """The element ``action`` would land on, resolved as the executor resolves it (for
    callers that did not keep the executor's ``Resolved.element``); typing without a
    target lands on the focused field."""
    target = getattr(action, "target", None)
    if not isinstance(target, PointTarget | ElementTarget | AnchorTarget):
        return obs.focused if isinstance(action, TypeText) else None
    try:
        return anchorer.resolve(target, obs).element
    except AnchorNotFound:
        return None
