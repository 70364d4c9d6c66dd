"""The loop ladder's offset rung: where to tap again when a tap had no effect.

A tap by point moves to the centre of the clickable element under it, else of the nearest
clickable element within ``snap_px`` (~60 px), else of whatever element is under it. A tap by
element (or anchor, when the caller knows the element it landed on) becomes a point at the
centre of the element's visible part — of its clickable host or child when the element itself
is not clickable. Pure geometry over an :class:`Observation`; the one point↔pixel conversion
is :class:`ScreenGeometry`'s.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from omg_agent.core.actions import Action, DoubleTap, ElementTarget, LongPress, PointTarget, Tap
from omg_agent.core.geometry import Bounds, Point
from omg_agent.core.observation import Observation, UIElement
from omg_agent.perception.anchor import is_tappable

SNAP_PX = 60
MIN_MOVE_PX = 8  # a corrected point closer than this to the missed one is the same tap

TapLike = Tap | LongPress | DoubleTap


@dataclass(frozen=True)
class Retap:
    """The corrected tap and, for the trace, where it goes ("its centre", "'OK' 34 px away")."""

    action: TapLike
    note: str


def _name(e: UIElement) -> str:
    label = e.desc if e.password else e.label
    return repr(label) if label else (e.resource_id.rsplit("/", 1)[-1] or e.cls or "element")


def _smallest(elements: Iterable[UIElement]) -> UIElement | None:
    return min(elements, key=lambda e: (e.bounds.area, e.id), default=None)


def _visible_centre(bounds: Bounds, screen: Bounds) -> Point:
    """The centre of the part of ``bounds`` on screen: a point nudged inside the element."""
    return (bounds.intersection(screen) or bounds).center


def _nearest(point: Point, elements: Iterable[UIElement], snap_px: int
             ) -> tuple[float, UIElement] | None:
    near = [(e.bounds.distance_to(point), e.bounds.area, e.id, e) for e in elements
            if is_tappable(e) and e.bounds.distance_to(point) <= snap_px]
    if not near:
        return None
    distance, *_, e = min(near)
    return distance, e


def _for_point(point: Point, obs: Observation, snap_px: int) -> tuple[UIElement, str] | None:
    host = _smallest(e for e in obs.elements if is_tappable(e) and e.bounds.contains(point))
    if host is not None:
        return host, f"the centre of {_name(host)}"
    near = _nearest(point, obs.elements, snap_px)
    if near is not None:
        distance, e = near
        return e, f"the nearest clickable {_name(e)} ({distance:.0f} px away)"
    under = _smallest(e for e in obs.elements if e.bounds.contains(point))
    return (under, f"the centre of {_name(under)}") if under is not None else None


def _for_element(e: UIElement, obs: Observation, snap_px: int) -> tuple[UIElement, str] | None:
    if is_tappable(e):
        return e, "its centre"
    host = _smallest(h for h in obs.elements if is_tappable(h) and h.bounds.contains(e.center))
    if host is None:
        host = _smallest(c for c in obs.elements if is_tappable(c)
                         and c.bounds.intersection(e.bounds) == c.bounds)
    if host is not None:
        return host, f"the centre of {_name(host)}, the clickable part of {_name(e)}"
    near = _nearest(e.center, obs.elements, snap_px)
    if near is None:
        return None
    distance, found = near
    return found, f"the nearest clickable {_name(found)} ({distance:.0f} px from {_name(e)})"


def offset_retap(action: Action, observation: Observation, element: UIElement | None = None,
                 *, snap_px: int = SNAP_PX) -> Retap | None:
    """The same tap (long press, double tap) aimed better, or None when there is no better aim.

    ``element`` is the element the missed tap landed on, when the caller knows it (it must
    for anchors; element targets are looked up in ``observation``). None as well when the
    corrected point is where a missed point tap already went.
    """
    if not isinstance(action, TapLike):
        return None
    width, height = observation.size
    geometry = observation.screen  # the driver's: where its tap would land
    screen = Bounds(0, 0, width, height)
    target, missed = action.target, None
    if isinstance(target, PointTarget) and element is None:
        missed = geometry.to_pixels((target.x, target.y))
        found = _for_point(missed, observation, snap_px)
    else:
        if element is None and isinstance(target, ElementTarget):
            element = observation.element(target.id)
        if element is None:
            return None
        found = _for_element(element, observation, snap_px)
        if isinstance(target, PointTarget):
            missed = geometry.to_pixels((target.x, target.y))
    if found is None:
        return None
    e, note = found
    point = _visible_centre(e.bounds, screen)
    if missed is not None and ((point.x - missed.x) ** 2 + (point.y - missed.y) ** 2) ** 0.5 \
            < MIN_MOVE_PX:
        return None
    x, y = geometry.to_normalized(point)
    return Retap(action.model_copy(update={"target": PointTarget(x=x, y=y)}), note)
