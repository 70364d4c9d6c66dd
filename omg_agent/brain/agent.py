"""Assembling one agent run: the model clients, the memory bank, the trace recorder and the
Orchestrator over a driver — the same way for ``omg-agent run``, the demo and the bench.

:func:`open_agent` enters everything it opens into the caller's ``ExitStack`` (closed with
it) and returns the Orchestrator, ready for ``run(task)``.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from omg_agent.brain.gatekeeper import GateKeeper
from omg_agent.brain.llm import LLMClient
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.orchestrator import Orchestrator
from omg_agent.config import Settings
from omg_agent.drivers.base import Driver
from omg_agent.errors import ConfigError
from omg_agent.guards.authorisation import parse_allow, parse_authorisations
from omg_agent.guards.confirmation import ConfirmationChannel
from omg_agent.guards.sensitive import Gate

log = logging.getLogger(__name__)


def open_agent(stack: ExitStack, driver: Driver, settings: Settings, task: str, *,
               run_dir: Path | None = None, memory_path: Path | None = None,
               long_term: bool = False, session: str | None = None,
               ask_user: Callable[[str], str | None] | None = None,
               on_progress: Callable[[Any], None] | None = None,
               confirm: ConfirmationChannel | None = None) -> Orchestrator:
    """An Orchestrator for ``task`` on ``driver``; with ``run_dir`` it records a trace there
    (the API key redacted). ``memory_path`` None keeps the memory bank in memory.
    ``confirm`` is where the sensitive-action gate asks for a yes (None: nobody — a held
    action stops the run resumable)."""
    planner = stack.enter_context(LLMClient(settings, "planner"))
    operator = stack.enter_context(LLMClient(settings, "operator"))
    memory = stack.enter_context(MemoryBank(memory_path, session or uuid.uuid4().hex[:12],
                                            long_term=long_term))
    recorder = None
    if run_dir is not None:
        from omg_agent.trace.recorder import TraceRecorder

        secrets = [settings.api_key.get_secret_value()] if settings.api_key else []
        recorder = stack.enter_context(TraceRecorder(run_dir, task=task, redact=secrets))
    return Orchestrator(driver, planner, operator, memory, settings, recorder, ask_user,
                        on_progress=on_progress, gatekeeper=gatekeeper(settings, task, confirm))


def gatekeeper(settings: Settings, task: str,
               confirm: ConfirmationChannel | None) -> GateKeeper | None:
    """The run's gate: what the task text and ``settings.allow`` pre-authorise, and who is
    asked for the rest (``None`` when the settings switch the gate off)."""
    if not settings.gate:
        return None
    try:
        allowed = parse_allow([settings.allow]) if settings.allow else []
    except ValueError as exc:
        raise ConfigError(f"allow: {exc}") from None
    return GateKeeper(Gate([*parse_authorisations(task), *allowed]), confirm, task)
