"""Live progress of a benchmark on stderr: phase, what just finished (task · variant), a
bar, done/total, elapsed time and ETA.

Drawn only when stderr is a terminal, or when ``OMG_PROGRESS=1`` forces it (``0`` turns it
off), so piped output and tests stay clean; stdout (tables, ``--json``) is never touched.
"""

from __future__ import annotations

import os
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from omg_agent.cli.console import err_console

ENV = "OMG_PROGRESS"


def wanted(console: Console = err_console) -> bool:
    forced = os.environ.get(ENV, "").strip().lower()
    if forced in ("1", "true", "yes", "on"):
        return True
    if forced in ("0", "false", "no", "off"):
        return False
    return console.is_terminal


class BenchProgress:
    """A :class:`omg_agent.bench.progress.Progress` drawn with rich; a no-op when not
    :func:`wanted`. Use as a context manager around the bench."""

    def __init__(self, console: Console | None = None) -> None:
        self.enabled = wanted()
        if console is None:  # forced on a pipe: draw anyway
            console = (err_console if err_console.is_terminal or not self.enabled
                       else Console(stderr=True, force_terminal=True))
        self.console = console
        self._bar = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[detail]}"), TextColumn("·"), TimeElapsedColumn(),
            TextColumn("ETA"), TimeRemainingColumn(), console=console)
        self._task: TaskID | None = None

    def __enter__(self) -> BenchProgress:
        if self.enabled:
            self._bar.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.enabled:
            self._bar.stop()

    def phase(self, label: str, total: int) -> None:
        if not self.enabled:
            return
        if self._task is not None:  # the last phase ends here, even if it ended early
            self._bar.update(self._task, completed=self._bar.tasks[-1].total)
        self._task = self._bar.add_task(label, total=total, detail="")

    def advance(self, detail: str = "") -> None:
        if self.enabled and self._task is not None:
            self._bar.update(self._task, advance=1, detail=detail)

    def print(self, *objects: Any, **kw: Any) -> None:
        """A line above the bar (or plainly on stderr without one)."""
        (self._bar.console if self.enabled else err_console).print(*objects, **kw)
