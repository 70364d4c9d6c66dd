"""The element under the page's cursor: the current tree as boxes in 0–1000 screen units,
with each element's text / resource-id / description — a password field's text masked."""

from __future__ import annotations

from typing import Any

from omg_agent.core.geometry import pixel_to_norm
from omg_agent.core.observation import Observation

MASK = "••••••"


def element_boxes(obs: Observation) -> list[dict[str, Any]]:
    size = obs.size
    boxes = []
    for e in obs.elements:
        if e.bounds.right <= e.bounds.left or e.bounds.bottom <= e.bounds.top:
            continue
        x1, y1 = pixel_to_norm((e.bounds.left, e.bounds.top), size)
        x2, y2 = pixel_to_norm((e.bounds.right, e.bounds.bottom), size)
        boxes.append({"x1": round(x1), "y1": round(y1), "x2": round(x2), "y2": round(y2),
                      "text": MASK if e.password and e.text else e.text,
                      "resource_id": e.resource_id, "desc": e.desc, "cls": e.cls})
    return boxes
