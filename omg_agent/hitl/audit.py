"""Every human action on the mirror, written down: to the run's trace when the mirror is
attached to a run, else to a JSON-lines file of its own."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


class AuditLog:
    """Appends one record per human action; ``sink`` receives each one too (the trace)."""

    def __init__(self, path: Path | None = None,
                 sink: Callable[[dict[str, Any]], object] | None = None) -> None:
        self.path = path
        self.sink = sink
        self._lock = threading.Lock()
        self.entries: list[dict[str, Any]] = []
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)

    def write(self, action: str, **data: Any) -> dict[str, Any]:
        entry = {"t": round(time.time(), 3), "actor": "human", "action": action, **data}
        with self._lock:
            self.entries.append(entry)
            if self.path is not None:
                with self.path.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(entry, ensure_ascii=False) + "\n")
            if self.sink is not None:
                self.sink(entry)
        return entry

    @classmethod
    def to_trace(cls, recorder: Any) -> AuditLog:
        """Records go to ``recorder`` (a TraceRecorder) as ``human`` events."""
        return cls(sink=lambda entry: recorder.record_event("human", **entry))
