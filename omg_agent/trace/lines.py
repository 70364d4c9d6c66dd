"""The JSON shapes a trace line holds: any value made JSON-ready (:func:`to_jsonable`), an
element's compact summary with password texts redacted (:func:`element_summary`), and the
small record of a turn a run keeps in memory (:func:`turn_of`). Pure functions; the
recorder writes them.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from omg_agent.core.observation import UIElement

REDACTED = "<redacted>"
SUMMARY_ELEMENTS = 40  # elements kept per observation in a step line


def to_jsonable(obj: Any) -> Any:
    """A JSON-ready copy of ``obj``: pydantic models, dataclasses, mappings, sequences."""
    if obj is None or isinstance(obj, bool | int | float | str):
        return obj
    if hasattr(obj, "model_dump"):  # pydantic model (an action)
        return obj.model_dump(mode="json", by_alias=True, exclude_none=True)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, enum.Enum):
        return to_jsonable(obj.value)
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, Path):
        return str(obj)
    return str(obj)


def element_summary(e: UIElement) -> dict[str, Any]:
    """The compact form of an element kept in a trace; password texts are redacted."""
    text = REDACTED if e.password and e.text else e.text
    summary: dict[str, Any] = {"id": e.id, "role": e.role, "text": text,
                               "bounds": list(e.bounds)}
    if e.desc:
        summary["desc"] = e.desc
    if e.resource_id:
        summary["resource_id"] = e.resource_id
    if e.password:
        summary["password"] = True
    return summary


def turn_of(record: Mapping[str, Any]) -> dict[str, Any]:
    """What :func:`omg_agent.brain.budget.done_so_far` reads of a step line: its actions,
    their results (without screens) and the elements its actions name by id (kept small:
    a run holds one of these per turn)."""
    actions = list(record.get("actions") or [])
    named = {t.get("id") for a in actions if isinstance(a, Mapping)
             and isinstance(t := a.get("target"), Mapping) and t.get("kind") == "element"}
    obs = record.get("observation") or {}
    elements = [{"id": e.get("id"), "text": e.get("text"), "desc": e.get("desc")}
                for e in obs.get("elements") or []
                if isinstance(e, Mapping) and e.get("id") in named]
    results = [{k: r.get(k) for k in ("index", "ok", "landed") if k in r}
               if isinstance(r, Mapping) else r
               for r in record.get("results") or []]
    return {"step": record.get("step"), "actions": actions, "results": results,
            "elements": elements}
