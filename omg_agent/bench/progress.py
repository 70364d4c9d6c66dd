"""How a long benchmark says how far it got: phases of known size, advanced one unit at a
time. The CLI draws it (:mod:`omg_agent.cli.progress`: a bar with elapsed time and ETA on
stderr); a caller that passes nothing gets :data:`SILENT`."""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    def phase(self, label: str, total: int) -> None:
        """A new part of the bench starts: ``total`` units of ``label``."""

    def advance(self, detail: str = "") -> None:
        """One unit of the current phase is done; ``detail`` names it (task, variant)."""


class _Silent:
    def phase(self, label: str, total: int) -> None:
        pass

    def advance(self, detail: str = "") -> None:
        pass


SILENT: Progress = _Silent()
