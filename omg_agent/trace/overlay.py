"""The SVG drawn over a step's screenshot in the report: where each action landed.

Taps (and long presses, double taps) are circles at the pixel ``point`` the driver reported
in the action's result (green when it went through, red when it failed, amber when it
ran but changed nothing); swipes are arrows from that point to the end point (the result's
``end``, else the action's own ``to`` target or direction). An action without a result point
but with a normalized point target is drawn dashed: "intended here". The SVG's viewBox is the
device screen in pixels, so the overlay scales with the image it covers.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from html import escape
from typing import Any

from omg_agent.core.geometry import NORM_MAX, norm_to_pixel

OK_COLOR = "#12a150"
BAD_COLOR = "#d92d20"
NO_EFFECT_COLOR = "#f59e0b"
PLAN_COLOR = "#2563eb"
_DIRECTIONS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}


def action_overlay(size: tuple[int, int], actions: Sequence[dict[str, Any]],
                   results: Sequence[dict[str, Any]],
                   elements: Sequence[dict[str, Any]] = ()) -> str:
    """An ``<svg>`` element for a screen of ``size`` pixels, or ``""`` if nothing to draw."""
    return numbered_overlay(size, [(i, a, r) for i, (a, r) in
                                   enumerate(pair_results(actions, results))], elements)


def numbered_overlay(size: tuple[int, int],
                     items: Sequence[tuple[int, dict[str, Any], dict[str, Any]]],
                     elements: Sequence[dict[str, Any]] = (),
                     no_effect: Collection[int] = ()) -> str:
    """The ``<svg>`` of some of a turn's actions, each ``(index, action, result)`` labelled
    ``index + 1``; those in ``no_effect`` are drawn in amber (ran, changed nothing)."""
    w, h = size
    if w <= 0 or h <= 0:
        return ""
    unit = max(w, h) / 100
    shapes: list[str] = []
    for i, action, result in items:
        shapes.extend(_shapes(i, action, result, (w, h), unit, elements, i in no_effect))
    if not shapes:
        return ""
    return (f'<svg class="overlay" viewBox="0 0 {w} {h}" preserveAspectRatio="none" '
            f'role="img" aria-label="actions">{"".join(shapes)}</svg>')


def pair_results(actions: Sequence[dict[str, Any]], results: Sequence[dict[str, Any]]
                 ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each action with its result, then the results no action claimed (with their action).

    A result belongs to action ``i`` when its ``index`` is ``i`` and its type (``type`` or
    ``action.type``) does not contradict; else to the first unclaimed result of the same
    type, since executors number only the actions they ran (not ``mem_save``, …); a result
    with neither index nor type goes by position.
    """
    free = list(range(len(results)))
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for i, action in enumerate(actions):
        kind = action.get("type")
        fits = [j for j in free if _result_type(results[j]) in (None, kind)]
        exact = [j for j in fits if results[j].get("index") == i]
        typed = [j for j in fits if _result_type(results[j]) == kind]
        positional = [j for j in fits if j == i and "index" not in results[j]]
        chosen = next(iter(exact or typed or positional), None)
        if chosen is None:
            pairs.append((action, {}))
            continue
        free.remove(chosen)
        pairs.append((action, results[chosen]))
    for j in free:
        nested = results[j].get("action")
        pairs.append((nested if isinstance(nested, dict)
                      else {"type": results[j].get("type", "?")}, results[j]))
    return pairs


def _result_type(result: dict[str, Any]) -> str | None:
    kind = result.get("type")
    if kind is None and isinstance(result.get("action"), dict):
        kind = result["action"].get("type")
    return str(kind) if kind is not None else None


def _shapes(i: int, action: dict[str, Any], result: dict[str, Any], size: tuple[int, int],
            unit: float, elements: Sequence[dict[str, Any]],
            no_effect: bool = False) -> list[str]:
    kind = str(action.get("type") or _result_type(result) or "")
    start = _point(result.get("point"))
    color = BAD_COLOR if result.get("ok") is False else NO_EFFECT_COLOR if no_effect \
        else OK_COLOR
    dashed = False
    if start is None:
        start = _target_point(action.get("target") or action.get("from"), size, elements)
        color, dashed = PLAN_COLOR, True
    if start is None:
        return []
    label = _label(i, start, unit, color)
    if kind == "swipe":
        end = (_point(result.get("end")) or _point(result.get("end_point"))
               or _target_point(action.get("to"), size, elements)
               or _direction_end(start, action, size))
        if end is not None:
            return [_arrow(start, end, unit, color, dashed), label]
    shapes = [_circle(start, unit * 2.2, unit * 0.6, color, dashed)]
    if kind == "double_tap":
        shapes.append(_circle(start, unit * 3.4, unit * 0.4, color, dashed))
    elif kind == "long_press":
        shapes.append(_circle(start, unit * 0.7, 0, color, dashed, fill=True))
    return [*shapes, label]


def _point(value: Any) -> tuple[float, float] | None:
    if isinstance(value, dict):
        value = (value.get("x"), value.get("y"))
    if isinstance(value, list | tuple) and len(value) == 2:
        try:
            x, y = float(value[0]), float(value[1])
        except (TypeError, ValueError):
            return None
        if math.isfinite(x) and math.isfinite(y):
            return x, y
    return None


def _target_point(target: Any, size: tuple[int, int],
                  elements: Sequence[dict[str, Any]]) -> tuple[float, float] | None:
    """Pixel point of a point target (normalized 0–1000) or of a listed element's centre."""
    if not isinstance(target, dict):
        return None
    if target.get("kind") == "point":
        p = _point((target.get("x"), target.get("y")))
        if p is not None:
            return norm_to_pixel(p, size)
    if target.get("kind") == "element":
        for element in elements:
            bounds = element.get("bounds")
            if element.get("id") == target.get("id") and isinstance(bounds, list) \
                    and len(bounds) == 4:
                return (float(bounds[0]) + float(bounds[2])) / 2, \
                    (float(bounds[1]) + float(bounds[3])) / 2
    return None


def _direction_end(start: tuple[float, float], action: dict[str, Any],
                   size: tuple[int, int]) -> tuple[float, float] | None:
    direction = _DIRECTIONS.get(str(action.get("direction")))
    if direction is None:
        return None
    try:
        distance = float(action.get("distance", 500)) / NORM_MAX
    except (TypeError, ValueError):
        distance = 0.5
    return (start[0] + direction[0] * distance * size[0],
            start[1] + direction[1] * distance * size[1])


def _circle(p: tuple[float, float], r: float, stroke: float, color: str, dashed: bool,
            fill: bool = False) -> str:
    dash = f' stroke-dasharray="{stroke * 2:.1f} {stroke * 1.5:.1f}"' if dashed else ""
    paint = f'fill="{color}" fill-opacity="0.8"' if fill else (
        f'fill="{color}" fill-opacity="0.18" stroke="{color}" stroke-width="{stroke:.1f}"')
    return f'<circle class="tap" cx="{p[0]:.1f}" cy="{p[1]:.1f}" r="{r:.1f}" {paint}{dash}/>'


def _arrow(a: tuple[float, float], b: tuple[float, float], unit: float, color: str,
           dashed: bool) -> str:
    angle = math.atan2(b[1] - a[1], b[0] - a[0])
    head = unit * 3
    left = (b[0] - head * math.cos(angle - 0.45), b[1] - head * math.sin(angle - 0.45))
    right = (b[0] - head * math.cos(angle + 0.45), b[1] - head * math.sin(angle + 0.45))
    dash = f' stroke-dasharray="{unit:.1f} {unit * 0.7:.1f}"' if dashed else ""
    return (f'<g class="swipe"><line x1="{a[0]:.1f}" y1="{a[1]:.1f}" x2="{b[0]:.1f}" '
            f'y2="{b[1]:.1f}" stroke="{color}" stroke-width="{unit * 0.8:.1f}" '
            f'stroke-linecap="round"{dash}/>'
            f'<circle cx="{a[0]:.1f}" cy="{a[1]:.1f}" r="{unit * 1.2:.1f}" fill="{color}"/>'
            f'<polygon points="{b[0]:.1f},{b[1]:.1f} {left[0]:.1f},{left[1]:.1f} '
            f'{right[0]:.1f},{right[1]:.1f}" fill="{color}"/></g>')


def _label(i: int, p: tuple[float, float], unit: float, color: str) -> str:
    x, y = p[0] + unit * 2.6, p[1] - unit * 2.6
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{unit * 3.2:.1f}" font-weight="700" '
            f'fill="{color}" stroke="#fff" stroke-width="{unit * 0.5:.1f}" '
            f'paint-order="stroke">{escape(str(i + 1))}</text>')
