"""Pure data shared by every layer: geometry, the action space, observations.

Nothing here does I/O or knows about devices or models (DESIGN.md §2–3).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omg_agent.core.actions import Action, is_boundary, parse_action
    from omg_agent.core.geometry import Bounds, Point, ScreenGeometry
    from omg_agent.core.observation import Observation, OcrBox, UIElement

# Names load on first use: importing one small module (geometry) does not build the
# action models (pydantic).
_EXPORTS = {"Action": "actions", "is_boundary": "actions", "parse_action": "actions",
            "Bounds": "geometry", "Point": "geometry", "ScreenGeometry": "geometry",
            "Observation": "observation", "OcrBox": "observation", "UIElement": "observation"}

__all__ = ["Action", "Bounds", "Observation", "OcrBox", "Point", "ScreenGeometry",
           "UIElement", "is_boundary", "parse_action"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'omg_agent.core' has no attribute {name!r}")
    return getattr(importlib.import_module(f"omg_agent.core.{module}"), name)
