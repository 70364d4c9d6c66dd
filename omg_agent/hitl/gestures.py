"""What a gesture on the mirror page means: the action it becomes (coordinates 0–1000 of the
screen) and what the audit keeps of it (typed text only by its length)."""

from __future__ import annotations

from typing import Any

from omg_agent.core.actions import Key, LongPress, PointTarget, Swipe, Tap, TypeText

KEYS = ("back", "home", "recents", "enter", "delete")  # buttons, and the page's keyboard
DRAG_MS = 300


def _point(body: dict[str, Any], x: str = "x", y: str = "y") -> PointTarget:
    return PointTarget(x=body[x], y=body[y])


def to_action(kind: str, body: dict[str, Any]) -> Any:
    """The action a page gesture means (coordinates 0–1000 of the screen)."""
    if kind == "tap":
        return Tap(target=_point(body))
    if kind == "long_press":
        return LongPress(target=_point(body))
    if kind == "swipe":
        return Swipe.model_validate({"from": _point(body, "x1", "y1"),
                                     "to": _point(body, "x2", "y2"),
                                     "duration_ms": body.get("duration_ms", DRAG_MS)})
    if kind == "type":
        if not isinstance(body["text"], str):
            raise TypeError("text must be a string")
        return TypeText(text=body["text"])
    if kind == "key":
        if body.get("key") not in KEYS:
            raise ValueError(f"key must be one of {', '.join(KEYS)}")
        return Key(key=body["key"])
    raise ValueError(f"unknown action {kind!r}; accepted: tap, long_press, swipe, type, key")


def audit_fields(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """What the audit keeps of a gesture: typed text only by its length (it may be a
    password)."""
    if kind == "type":
        return {"chars": len(str(body.get("text", "")))}
    return {k: body[k] for k in ("x", "y", "x1", "y1", "x2", "y2", "key") if k in body}


__all__ = ["DRAG_MS", "KEYS", "audit_fields", "to_action"]
