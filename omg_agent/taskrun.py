"""One task run, assembled the same way for ``omg-agent run``, the MCP server and the
Python API (issue 28): the agent over a driver (:func:`omg_agent.brain.agent.open_agent`)
with the learned takeover steps, the first checkpoint, the replay cache, a resume from a
saved run, and the result as shown (masked, with the resume hint).

The callers keep what is theirs: the CLI its live view, Ctrl-C and mirror; the MCP server
its progress notifications and elicitation; the Python API its callbacks. None of them
assembles a run by hand. This module sits above the brain, flows and hitl (it wires them)
and below the CLI, the MCP server and the Python API.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omg_agent.errors import ConfigError

if TYPE_CHECKING:
    from omg_agent.brain.orchestrator import Orchestrator
    from omg_agent.brain.resume import SavedRun
    from omg_agent.brain.run_state import RunResult
    from omg_agent.config import Settings
    from omg_agent.core.secrets import SecretVault
    from omg_agent.drivers.base import Driver
    from omg_agent.guards.confirmation import ConfirmationChannel


class UnclearAnswer(ConfigError):
    """An answer to a held action that is neither yes nor no (the CLI's exit 2)."""


def open_run(stack: ExitStack, driver: Driver, settings: Settings, task: str, run_dir: Path,
             secrets: SecretVault, *, serial: str,
             ask: Callable[[str], str | None] | None = None,
             confirm: ConfirmationChannel | None = None,
             on_progress: Callable[[Any], None] | None = None, macros: Any = None,
             resume: bool = False, session: str | None = None,
             learn: bool = True) -> Orchestrator:
    """The Orchestrator of one run on ``driver`` (closed with ``stack``): a trace and a
    checkpoint in ``run_dir``, the gate asking ``confirm`` (``None``: a held action stops
    the run resumable), and, with ``learn``, a human's takeover steps offered before the
    model (issue 16)."""
    from omg_agent.brain.agent import open_agent

    orchestrator = open_agent(
        stack, driver, settings, task, run_dir=run_dir, memory_path=settings.memory_path,
        long_term=settings.long_term_memory, resume=resume, session=session,
        checkpoint=serial, macros=macros, ask_user=ask, confirm=confirm,
        on_progress=on_progress, secrets=secrets)
    if learn:
        from omg_agent.hitl.learn import LEARNED_DIR, LearnedStore, Learner

        orchestrator.learned = Learner(LearnedStore(settings.runs_dir / LEARNED_DIR),
                                       secrets, source_run=str(run_dir))
    return orchestrator


def first_checkpoint(orchestrator: Orchestrator, task: str, plan: Path | None) -> None:
    """Save the run before it plans, so a kill during planning is resumable too."""
    from omg_agent.brain.budget import StepBudget
    from omg_agent.brain.resume import RunCheckpoint
    from omg_agent.brain.run_state import RunState

    hook = orchestrator.on_progress
    if isinstance(hook, RunCheckpoint):
        hook.save(RunState(task, StepBudget(orchestrator.settings.max_steps)),
                  plan_file=str(plan.resolve()) if plan is not None else None)


def begin(orchestrator: Orchestrator, task: str, plan: Path | None = None, *,
          use_cache: bool = True) -> RunResult:
    """Run a new task: saved first, then through the replay cache."""
    from omg_agent.flows.cache import run_cached

    first_checkpoint(orchestrator, task, plan)
    return run_cached(orchestrator, task, plan, enabled=use_cache)


def saved_run(run_dir: Path, answer: str | None, *, flag: str = "answer") -> SavedRun:
    """The saved state of ``run_dir``, checked against ``answer``: an interrupted run goes
    on without one, a stopped run needs one, and a held action needs a clear yes or no
    (:class:`UnclearAnswer` otherwise: nothing resumes on an unclear yes). ``flag`` is
    how the caller's user gives the answer (``--answer`` on the command line)."""
    from omg_agent.brain.resume import load_state
    from omg_agent.guards.answers import read_answer, unclear

    saved = load_state(run_dir)
    if saved.interrupted and answer is not None:
        raise ConfigError(f"{run_dir} was interrupted, not stopped for an answer: resume it "
                          f"without {flag}")
    if not saved.interrupted and answer is None:
        raise ConfigError(f"{run_dir} waits for an answer to: "
                          f"{saved.state.dialogue.pending or '?'} — give it with {flag} "
                          "(yes / no for a held action)")
    if answer is not None and saved.state.held and read_answer(answer) is None:
        raise UnclearAnswer(f"{flag}: {unclear(answer)}")
    return saved


def restore(orchestrator: Orchestrator, saved: SavedRun) -> None:
    """Give a resumed run its memory, usage and turn count back."""
    from omg_agent.brain.resume import restore_memory

    restore_memory(orchestrator.memory, saved.memory)
    orchestrator.prior_usage = saved.usage
    recorded = orchestrator.recorder.last_step if orchestrator.recorder else 0
    orchestrator.operator.turns = max(saved.turns, recorded)


def go_on(orchestrator: Orchestrator, saved: SavedRun, answer: str | None) -> RunResult:
    """Continue a restored run: an interrupted one, or one waiting for ``answer``."""
    from omg_agent.brain.resume import continue_interrupted

    if answer is None:
        return continue_interrupted(orchestrator, saved)
    return orchestrator.resume(saved.state, answer)


def shown(orchestrator: Orchestrator, result: RunResult, run_dir: Path,
          secrets: SecretVault) -> RunResult:
    """The result as shown: masked, and for a failed run that can go on from its last
    turn boundary (device lost, model down), the command that does. (``state.json`` was
    saved at the last turn boundary, which for a run waiting for a human is its stop.)"""
    from omg_agent.brain.resume import RunCheckpoint

    hook = orchestrator.on_progress
    if "RUN_DIR" in result.next_hint:  # the resume command as the user types it
        result = replace(result, next_hint=result.next_hint.replace(
            "RUN_DIR", shlex.quote(str(run_dir))))
    if result.status == "failed" and isinstance(hook, RunCheckpoint) and hook.retryable:
        result = replace(result, next_hint=f"{result.next_hint}; then go on from the last "
                                           f"turn: omg-agent run --resume {run_dir}")
    return secrets.scrub(result)
