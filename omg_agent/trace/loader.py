"""Reading a run folder back: :func:`load_trace` turns ``trace.jsonl`` into a :class:`Trace`.

The reader is forgiving on purpose: a run that crashed mid-write leaves a truncated last line,
and one bad line must not hide the rest of the run. A line that is not valid JSON (or not a
known record) is skipped with a warning naming the file and line number; the warnings travel
with the :class:`Trace` so the report can show them. A missing ``trace.jsonl`` is an error.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omg_agent.errors import ConfigError
from omg_agent.trace.recorder import RESULT_FILE, TRACE_FILE

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StepRecord:
    step: int
    phase: str
    t: float
    observation: dict[str, Any] | None
    prompt_tokens: int
    completion_tokens: int
    model_reply: str
    actions: tuple[dict[str, Any], ...]
    results: tuple[dict[str, Any], ...]
    timings: dict[str, float]
    note: str
    line: int


@dataclass(frozen=True)
class EventRecord:
    kind: str
    t: float
    data: dict[str, Any]
    line: int


@dataclass(frozen=True)
class Trace:
    """One run as recorded. ``result`` is ``None`` for a run that never finished."""

    run_dir: Path
    task: str
    steps: tuple[StepRecord, ...]
    events: tuple[EventRecord, ...]
    result: dict[str, Any] | None
    timeline: tuple[StepRecord | EventRecord, ...] = ()
    warnings: tuple[str, ...] = field(default=())

    @property
    def plan(self) -> EventRecord | None:
        """The latest event carrying the todo list (``todo_markdown`` or ``todo`` text, e.g.
        plan, replan, step_done) or a plan/replan with ``steps``."""
        return next((e for e in reversed(self.events) if _has_plan(e)), None)


def _has_plan(event: EventRecord) -> bool:
    data = event.data
    if isinstance(data.get("todo_markdown"), str) or isinstance(data.get("todo"), str):
        return True
    return event.kind in ("plan", "replan") and isinstance(data.get("steps"), list)


def load_trace(run_dir: Path) -> Trace:
    """Read ``run_dir``; raises :class:`ConfigError` when it holds no ``trace.jsonl``."""
    run_dir = Path(run_dir)
    path = run_dir / TRACE_FILE
    if not run_dir.is_dir():
        raise ConfigError(f"{run_dir} is not a folder (expected a run folder with {TRACE_FILE})")
    if not path.is_file():
        raise ConfigError(f"{run_dir} has no {TRACE_FILE}: not a run folder, or the run never "
                          "started")
    warnings: list[str] = []
    task = ""
    finish: dict[str, Any] | None = None
    timeline: list[StepRecord | EventRecord] = []
    with path.open(encoding="utf-8", errors="replace") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            record = _parse_line(path, lineno, raw, warnings)
            if record is None:
                continue
            kind = record.get("record")
            try:
                if kind == "task":
                    task = str(record.get("task", ""))
                elif kind == "step":
                    timeline.append(_step(record, lineno))
                elif kind == "event":
                    timeline.append(EventRecord(str(record.get("kind", "")),
                                                float(record.get("t") or 0.0),
                                                dict(record.get("data") or {}), lineno))
                elif kind == "finish":
                    finish = record
                else:
                    _warn(warnings, f"{path}:{lineno}: skipped a line of unknown record "
                                    f"type {kind!r}")
            except (KeyError, TypeError, ValueError) as exc:
                _warn(warnings, f"{path}:{lineno}: skipped a malformed {kind} record ({exc})")
    result = _read_result(run_dir / RESULT_FILE, warnings) or finish
    if result is not None:
        result = {k: v for k, v in result.items() if k != "record"}
    steps = tuple(r for r in timeline if isinstance(r, StepRecord))
    events = tuple(r for r in timeline if isinstance(r, EventRecord))
    return Trace(run_dir, task, steps, events, result, tuple(timeline), tuple(warnings))


def _parse_line(path: Path, lineno: int, raw: str, warnings: list[str]) -> dict | None:
    try:
        record = json.loads(raw)
    except json.JSONDecodeError as exc:
        _warn(warnings, f"{path}:{lineno}: skipped a corrupt line ({exc.msg} at column "
                        f"{exc.colno}; a truncated last line means the run was cut short)")
        return None
    if not isinstance(record, dict):
        _warn(warnings, f"{path}:{lineno}: skipped a line that is not a JSON object")
        return None
    return record


def _step(record: dict[str, Any], lineno: int) -> StepRecord:
    observation = record.get("observation")
    return StepRecord(
        step=int(record["step"]), phase=str(record.get("phase", "act")),
        t=float(record.get("t") or 0.0),
        observation=observation if isinstance(observation, dict) else None,
        prompt_tokens=int(record.get("prompt_tokens") or 0),
        completion_tokens=int(record.get("completion_tokens") or 0),
        model_reply=str(record.get("model_reply") or ""),
        actions=tuple(a for a in record.get("actions") or () if isinstance(a, dict)),
        results=tuple(r for r in record.get("results") or () if isinstance(r, dict)),
        timings={str(k): float(v) for k, v in dict(record.get("timings") or {}).items()},
        note=str(record.get("note") or ""), line=lineno)


def _read_result(path: Path, warnings: list[str]) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        _warn(warnings, f"{path}: unreadable ({exc}); using the trace's finish line")
        return None
    return result if isinstance(result, dict) else None


def _warn(warnings: list[str], message: str) -> None:
    log.warning("%s", message)
    warnings.append(message)
