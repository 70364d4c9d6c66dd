"""The run in hand: its state and the collaborators every phase of the orchestrator uses.

:class:`RunContext` is what the phase modules (:mod:`.planning`, :mod:`.operator_turn`,
:mod:`.recovery`, :mod:`.dialogue`) take as their first argument instead of the whole
orchestrator: the :class:`~omg_agent.brain.run_state.RunState` they change; the device,
memory, settings and loop watch they read; and the three small rules every phase shares —
record an event (log and trace), verify a step on a screen, and whether the run has a
planner (yet). :meth:`Orchestrator.begin <omg_agent.brain.orchestrator.Orchestrator.begin>`
makes one per run; what a single phase alone needs (the planner, the operator, the system
guard, the user) is passed to that phase's function explicitly.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from omg_agent.brain.dialects import judgeless
from omg_agent.brain.loopwatch import LoopWatch
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.modes import plannerless
from omg_agent.brain.run_state import RunState
from omg_agent.brain.verify import verify_step
from omg_agent.config import Settings
from omg_agent.core.contracts import TaskStep
from omg_agent.core.observation import Observation
from omg_agent.core.results import Failure
from omg_agent.drivers.base import Driver
from omg_agent.guards.gatekeeper import GateKeeper

# the run's events are the orchestrator's log lines, whichever phase module records them
log = logging.getLogger("omg_agent.brain.orchestrator")


@dataclass
class RunContext:
    """One run's state plus the collaborators the phases share (see the module doc)."""

    state: RunState
    driver: Driver
    memory: MemoryBank
    settings: Settings
    loops: LoopWatch
    recorder: Any  # the trace recorder, or None
    gatekeeper: GateKeeper | None
    failure_threshold: int  # consecutive failed turns that fail a step

    def event(self, kind: str, **data: Any) -> None:
        """Log an event and add it to the trace (when the run is recorded)."""
        log.info("%s: %s", kind, data)
        if self.recorder is not None:
            self.recorder.record_event(kind, **data)

    def verify(self, step: TaskStep, obs: Observation) -> Failure | None:
        """``step``'s checks on ``obs`` with this run's memory (``None``: verified)."""
        return verify_step(step, obs, self.memory.get, self.memory.substitute)

    @property
    def plannerless(self) -> bool:
        """No planner in this run (yet): ``flat`` never has one; ``unified`` until a step
        failed and the planner took over with its post-mortem."""
        return plannerless(self.settings.planning) and not self.state.planned

    @property
    def judgeless(self) -> bool:
        """No model of this run can confirm a finished task from the screen (a dialect
        model alone: :func:`~omg_agent.brain.dialects.judgeless`)."""
        return judgeless(self.settings)


__all__ = ["RunContext"]
