"""Pure data shared by every layer: geometry, the action space, observations.

Nothing here does I/O or knows about devices or models (DESIGN.md §2–3).
"""

from omg_agent.core.actions import Action, is_boundary, parse_action
from omg_agent.core.geometry import Bounds, Point, ScreenGeometry
from omg_agent.core.observation import Observation, OcrBox, UIElement

__all__ = ["Action", "Bounds", "Observation", "OcrBox", "Point", "ScreenGeometry",
           "UIElement", "is_boundary", "parse_action"]
