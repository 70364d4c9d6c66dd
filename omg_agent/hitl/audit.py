"""Every human action on the mirror, written down: to the run's trace when the mirror is
attached to a run, else to a JSON-lines file of its own.

The log is in the order the actions were *received*, not the order they finished: a
gesture takes its place (:meth:`AuditLog.place`) when its request arrives, and its entry —
written when the device has answered — waits for the places before it. A drag that is slow
to finish is still written before the long press that came after it."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


class Place:
    """A reserved place in the log: :meth:`write` fills it, in the log's receive order."""

    def __init__(self, log: AuditLog, number: int) -> None:
        self._log = log
        self.number = number
        self.t = round(time.time(), 3)  # when the action was received
        self.filled = False

    def write(self, action: str, **data: Any) -> dict[str, Any]:
        entry = {"t": self.t, "actor": "human", "action": action, **data}
        self._log._fill(self, entry)
        return entry


class AuditLog:
    """Appends one record per human action; ``sink`` receives each one too (the trace)."""

    def __init__(self, path: Path | None = None,
                 sink: Callable[[dict[str, Any]], object] | None = None) -> None:
        self.path = path
        self.sink = sink
        self._lock = threading.Lock()
        self.entries: list[dict[str, Any]] = []
        self._next = 0  # the number the next place gets
        self._written = 0  # the number of the first place not written out yet
        # filled places waiting for an earlier one (None: given up)
        self._held: dict[int, dict[str, Any] | None] = {}
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)

    @contextmanager
    def place(self) -> Iterator[Place]:
        """A place for an action received now; given up if the block ends without writing
        it, so the entries after it are not held back for ever."""
        with self._lock:
            place = Place(self, self._next)
            self._next += 1
        try:
            yield place
        finally:
            if not place.filled:
                self._fill(place, None)  # given up: the request failed before its entry

    def write(self, action: str, **data: Any) -> dict[str, Any]:
        """An action received and done now (it still follows the places taken before it)."""
        with self.place() as place:
            return place.write(action, **data)

    def _fill(self, place: Place, entry: dict[str, Any] | None) -> None:
        with self._lock:
            place.filled = True
            self._held[place.number] = entry
            while self._written in self._held:
                ready = self._held.pop(self._written)
                self._written += 1
                if ready is not None:
                    self._append(ready)

    def _append(self, entry: dict[str, Any]) -> None:
        self.entries.append(entry)
        if self.path is not None:
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(entry, ensure_ascii=False) + "\n")
        if self.sink is not None:
            self.sink(entry)

    @classmethod
    def to_trace(cls, recorder: Any) -> AuditLog:
        """Records go to ``recorder`` (a TraceRecorder) as ``human`` events."""
        return cls(sink=lambda entry: recorder.record_event("human", **entry))
