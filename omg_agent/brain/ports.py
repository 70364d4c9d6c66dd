"""The typed ports a run lends to what acts beside the model, instead of the orchestrator.

The replay cache (:func:`omg_agent.flows.cache.run_cached`) and a human's learned steps
(:meth:`omg_agent.hitl.learn.Learner.offer`) replay flows on the run's device, through the
run's gate, into the run's trace and memory. They get exactly those parts as a
:class:`RunPorts` — the driver (:class:`~omg_agent.drivers.base.Driver`), the gate, a
:class:`TraceSink` and the memory bank — never the orchestrator and its private state.
:class:`Checkpoint` is the port the orchestrator saves its run state through.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from omg_agent.brain.memory import MemoryBank
    from omg_agent.brain.run_state import RunState
    from omg_agent.core.observation import Observation
    from omg_agent.core.secrets import SecretVault
    from omg_agent.drivers.base import Driver
    from omg_agent.guards.gatekeeper import GateKeeper


class TraceSink(Protocol):
    """What a replay writes to the run's trace (:class:`~omg_agent.trace.recorder.
    TraceRecorder` is one)."""

    run_dir: Path

    def record_event(self, kind: str, **data: Any) -> Any: ...

    def finish(self, status: str, answer: str, summary: Any = None) -> Any: ...


@dataclass(frozen=True)
class RunPorts:
    """One run's device, gate, trace and memory, lent to a replay."""

    driver: Driver
    gate: GateKeeper | None
    recorder: TraceSink | None
    memory: MemoryBank
    secrets: SecretVault | None = None  # what never reaches a file: the task shown masked


class LearnedSteps(Protocol):
    """A human's steps offered before the model (:class:`omg_agent.hitl.learn.Learner`)."""

    def offer(self, ports: RunPorts, step: Any, obs: Observation) -> bool: ...


class Checkpoint(Protocol):
    """Saves the run's state at each turn boundary (:class:`omg_agent.brain.resume.
    RunCheckpoint`); ``retryable`` once a failed run can go on from its last boundary."""

    retryable: bool

    def __call__(self, state: RunState) -> None: ...

    def save(self, state: RunState, plan_file: str | None = None) -> None: ...


__all__ = ["Checkpoint", "LearnedSteps", "RunPorts", "TraceSink"]
