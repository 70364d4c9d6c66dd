"""The orchestrator: the state machine that ties planner (L1), operator (L2) and memory (L3).

::

    PLAN ──► THINK ⇄ (ACT → OBSERVE, one operator turn) ──► REPLAN ──► THINK … ──► DONE
               │  step claimed ─► checks pass ─► tick ─► REPLAN (predefined plan: next step)
               │  step failed ─► post-mortem ─► on_fail: retry | jump_to:N | replan |
               │                                       ask_user | abort (FAILED)
               └─ ask_user ─► ASK_USER ─► answer ─► REPLAN ─► THINK   (no answer: stop,
                                                                       resumable)

:meth:`Orchestrator.step` runs one turn and returns a :class:`StepResult` (``Continue`` or
``Finished`` with the :class:`RunResult`); :meth:`Orchestrator.run` is a thin loop over it,
with the step budget checked at the top of every turn (DESIGN.md §3). The first plan is
free; every operator reply attempt and replan attempt counts one step (the bundle a reply
carries is part of it), and so does each move the loop guard or a rollback makes alone.

Honest outcomes (DESIGN.md §3): a claimed step is ticked only when its checks pass on the
screen (:mod:`omg_agent.brain.verify` — each check about one element, the app or memory); a
claimed *goal* is verified against the plan's last step, which describes the end state.
Prose criteria without checks go to the planner, which confirms with the screenshot. The
run ends ``done`` only when every step is ticked or the planner confirmed a verified claim;
a planner "done" after a failed or unticked step ends the run ``failed`` (or ``infeasible``)
with the planner's words as the reason. Every ``done`` is then held to honest done
(:mod:`omg_agent.brain.honest`): a check that held before the run acted proves nothing,
and a task that asks to pay, send or delete needs that action in the gate's ledger —
otherwise the run ends ``unverified``. A verified step's screen becomes the checkpoint a
later failed step rolls back to (back presses until the screen hash matches).

This module owns the loop: beginning a run (or resuming one after the user's answer),
sending each turn to its phase, ending the run at a step boundary when the budget is spent
or a model or device call fails, and the result with the run's model usage. The phases
are functions of the run's :class:`~omg_agent.brain.run_context.RunContext`, each in its
own module: :mod:`.planning` (PLAN, REPLAN, the evidence rule on the planner's 'done'),
:mod:`.operator_turn` (THINK: one operator turn, its claims and ticks), :mod:`.recovery`
(a failed step's post-mortem and ``on_fail``, rollback, the loop ladder) and
:mod:`.dialogue` (ASK_USER, the gate's hold, the user's no) with :mod:`.held` (a yes on
resume carries out the held action itself). Saving and resuming a run across
processes is :mod:`.resume`.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from omg_agent.brain import dialogue, operator_turn, planning
from omg_agent.brain.budget import StepBudget, StopReport, exhaustion_report
from omg_agent.brain.llm import LLMClient
from omg_agent.brain.loopwatch import LoopWatch
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.operator import Operator
from omg_agent.brain.planner import Planner
from omg_agent.brain.ports import Checkpoint, LearnedSteps, RunPorts
from omg_agent.brain.recovery import record_post_mortem
from omg_agent.brain.run_context import RunContext
from omg_agent.brain.run_state import (
    FINAL_PHASES,
    Continue,
    Finished,
    Phase,
    Progress,
    RunResult,
    RunState,
    StepResult,
    at_boundary,
)
from omg_agent.config import Settings
from omg_agent.core.contracts import TaskStep
from omg_agent.core.results import FailureKind
from omg_agent.core.secrets import SecretVault
from omg_agent.drivers.base import Driver
from omg_agent.errors import BudgetExhausted, DiskTrouble, LLMError, LLMReplyError, OmgError
from omg_agent.guards.gatekeeper import GateKeeper
from omg_agent.guards.loops import LoopGuard
from omg_agent.guards.system import SystemGuard

log = logging.getLogger(__name__)

FAILURE_THRESHOLD = 3


class Orchestrator:
    """Runs tasks on one device. ``ask_user(question) -> answer | None`` waits for a human."""

    def __init__(self, driver: Driver, planner_llm: LLMClient, operator_llm: LLMClient,
                 memory: MemoryBank, settings: Settings, recorder: Any = None,
                 ask_user: Callable[[str], str | None] | None = None, *,
                 on_progress: Callable[[Progress], None] | None = None,
                 failure_threshold: int = FAILURE_THRESHOLD,
                 gatekeeper: GateKeeper | None = None,
                 secrets: SecretVault | None = None, macros: Any = None,
                 learned: LearnedSteps | None = None,
                 route: Callable[[TaskStep], str | None] | None = None,
                 before_turn: Callable[[], None] | None = None,
                 checkpoint: Checkpoint | None = None) -> None:
        self.system = SystemGuard(ask_user)  # ANR, crashes, permissions, screen off: by rule
        driver = self.system.watching(driver)  # it sees our back/home/launch (crash or not)
        self.driver = driver
        self.planner = Planner(planner_llm)
        self.gatekeeper = gatekeeper
        self.secrets = secrets  # answers about passwords join it; results leave masked
        self.operator = Operator(driver, operator_llm, memory, recorder=recorder,
                                 gatekeeper=gatekeeper, planning=settings.planning,
                                 macros=macros)
        self.llms = [planner_llm] if planner_llm is operator_llm else [planner_llm,
                                                                       operator_llm]
        self.memory = memory
        self.settings = settings
        self.recorder = recorder
        self.ask_user = ask_user
        self.on_progress = on_progress
        self.failure_threshold = failure_threshold
        self.loops = LoopWatch(LoopGuard(human_reachable=ask_user is not None),
                               enabled=settings.loop_guard)
        self.learned = learned  # hitl.learn.Learner: a human's steps offered before the model
        self.state: RunState | None = None
        self._context: RunContext | None = None  # the state and what the phases share
        self._started = 0.0
        self._base: list[tuple[int, int, int]] = []
        self._cached_base = 0
        self._prior = (0, 0, 0)  # model calls and tokens of earlier processes (resume)
        # several devices (drivers.desktop.router): called with each step before it is
        # observed; answers the device it switched to, if it switched
        self.route = route
        # called at the top of every turn, next to the budget check: the CLI's Ctrl-C check
        # (cli/ctrlc.py) raises KeyboardInterrupt there when the one it raised got lost
        self.before_turn = before_turn
        # saves the run's state at every turn boundary (brain/resume.py RunCheckpoint)
        self.checkpoint = checkpoint

    # -- the loop ------------------------------------------------------------------------
    def run(self, task: str, plan_file: Path | None = None) -> RunResult:
        """Plan ``task`` (or follow ``plan_file``) and step until the run ends."""
        return self.start(RunState(task, StepBudget(self.settings.max_steps)), plan_file)

    def start(self, state: RunState, plan_file: Path | None = None) -> RunResult:
        """Plan ``state``'s task from the start (its turns and usage carried on: a run
        interrupted while planning) and step until the run ends."""
        self.begin(state)
        if self._guarded(lambda: planning.plan(self._ctx, self.planner, state.task,
                                               plan_file)):
            self._progress()
        return self.finish_loop()

    def resume(self, state: RunState, answer: str) -> RunResult:
        """Go on with a run that stopped for the user's answer (see :mod:`.resume`): an
        answer to a question, or yes / no to the sensitive action the gate held."""
        self.begin(state)
        held = state.held
        if state.phase == "NEEDS_CONFIRMATION" and held is not None:
            # a yes carries the held action out here, before any model turn
            if self._guarded(lambda: dialogue.confirmed(self._ctx, held, answer)):
                self._progress()
        else:
            dialogue.answered(self._ctx, answer, self.secrets)
        return self.finish_loop()

    def begin(self, state: RunState) -> None:
        self.state = state
        if self.gatekeeper is not None:  # one ledger: the gate adds to it, a checkpoint saves it
            if not state.spent.paid:  # a new run keeps what a cached replay paid before it
                state.spent = self.gatekeeper.gate.ledger
            self.gatekeeper.gate.ledger = state.spent
        if self.gatekeeper is not None:  # what the gate let go in earlier processes too
            state.passed = self.gatekeeper.passed.restore(state.passed)
        self._context = RunContext(state, self.driver, self.memory, self.settings,
                                   self.loops, self.recorder, self.gatekeeper,
                                   self.failure_threshold)
        state.budget.start_clock(self.settings.run_timeout_s, self.llms)
        # the operator's mode and turn count come from the state (a resumed run's too)
        self.operator.planning = state.planning or self.operator.planning
        self.operator.turns = max(self.operator.turns, state.turns)
        self.operator.kept = state.kept  # the run's scans, saved with its state
        self._prior = state.usage
        self._started = time.perf_counter()
        self._base = [(c.totals.replies, c.totals.prompt_tokens, c.totals.completion_tokens)
                      for c in self.llms]
        self._cached_base = sum(c.totals.cached_tokens for c in self.llms)

    def finish_loop(self) -> RunResult:
        while isinstance(outcome := self.step(), Continue):
            pass
        if self.secrets is not None:
            return self.secrets.scrub(outcome.result)
        return outcome.result

    def step(self) -> StepResult:
        """One turn of the state machine (the budget is checked first)."""
        s = self._s
        if s.phase not in FINAL_PHASES:
            self._guarded(self._turn)
            self._progress()
        if s.phase in FINAL_PHASES:
            return Finished(self._result())
        return Continue(s.phase)

    def _turn(self) -> None:
        s = self._s
        s.budget.check()
        if self.before_turn is not None:
            self.before_turn()
        match s.phase:
            case "THINK":
                learned = self.learned  # it replays through this run's driver and gate
                operator_turn.think(
                    self._ctx, self.operator, self.system, route=self.route,
                    learned=None if learned is None else
                    lambda step, obs: bool(learned.offer(self.ports, step, obs)))
            case "REPLAN":
                planning.replan(self._ctx, self.planner, self.operator)
            case "ASK_USER":
                dialogue.ask(self._ctx, self.ask_user, self.secrets)

    def _guarded(self, action: Callable[[], None]) -> bool:
        """Run ``action``; a spent budget or a failed model/device call ends the run here,
        at the step boundary (STYLE.md #6). True when the run goes on."""
        s = self._s
        try:
            action()
        except DiskTrouble:
            raise  # not the run's failure: it stops interrupted, resumable (cli/ctrlc.py)
        except BudgetExhausted:
            self._budget_spent()
        except (LLMError, OmgError) as exc:
            if isinstance(exc, LLMReplyError) and s.budget.exhausted:
                self._budget_spent()  # the last replies allowed were invalid
            else:
                log.warning("run stopped: %s", exc)
                s.finish("FAILED", "", StopReport(self.done_so_far(), f"error: {exc}",
                                                  _error_hint(exc)))
                self._ctx.event("error", message=str(exc))
        return s.phase not in FINAL_PHASES

    def outcome(self) -> RunResult:
        """The run's result as it stands, the trace left as it is (see :meth:`_result`)."""
        result = self._s.result(time.perf_counter() - self._started, self._usage())
        cached = sum(c.totals.cached_tokens for c in self.llms) - self._cached_base
        return dataclasses.replace(result, tokens_cached=cached)

    def _result(self) -> RunResult:
        result = self.outcome()
        if self.recorder is not None:
            self.recorder.finish(result.status, result.answer, {
                "model_calls": result.model_calls, "prompt_tokens": result.tokens_in,
                "completion_tokens": result.tokens_out, "steps_used": result.steps_used,
                "cached_tokens": result.tokens_cached, "confirm_calls": result.confirm_calls,
                "todo": result.todo, "stop_report": result.summary()})
        return result

    def _budget_spent(self) -> None:
        s = self._s
        s.finish("FAILED", "", exhaustion_report(s.budget.limit, self.done_so_far(),
                                                 s.todo.pending(), s.current_step))
        self._ctx.event("budget", used=s.budget.used, limit=s.budget.limit)
        index = s.todo.cursor
        if index is not None:
            record_post_mortem(self._ctx, index, s.todo.steps[index], FailureKind.BUDGET)

    def done_so_far(self) -> tuple[str, ...]:
        """The ticked plan steps and the actions the device carried out, from the trace."""
        return self._s.done_so_far(dialogue.trace_of(self._ctx))

    # -- plumbing ------------------------------------------------------------------------
    @property
    def ports(self) -> RunPorts:
        """What the replay cache and learned steps work through: not the orchestrator."""
        return RunPorts(self.driver, self.gatekeeper, self.recorder, self.memory,
                        self.secrets)

    def save_checkpoint(self) -> None:
        """Save the run's state now (a resumed run's first boundary), when it is saved."""
        if self.checkpoint is not None and self.state is not None:
            at_boundary(self.state, self.operator.turns, self._usage())
            self.checkpoint(self.state)

    def _usage(self) -> tuple[int, int, int]:
        calls, tin, tout = self._prior
        for client, (r, p, c) in zip(self.llms, self._base, strict=True):
            calls += client.totals.replies - r
            tin += client.totals.prompt_tokens - p
            tout += client.totals.completion_tokens - c
        return calls, tin, tout

    def _progress(self) -> None:
        if self.state is None:
            return
        usage = self._usage()
        at_boundary(self.state, self.operator.turns, usage)
        if self.checkpoint is not None:
            self.checkpoint(self.state)
        if self.on_progress is not None:
            self.on_progress(self.state.progress(usage[1:]))

    @property
    def _s(self) -> RunState:
        assert self.state is not None, "run() first"
        return self.state

    @property
    def _ctx(self) -> RunContext:
        assert self._context is not None, "run() first"
        return self._context


def _error_hint(exc: Exception) -> str:
    if isinstance(exc, LLMError):
        return "check the model endpoint and model name (OMG_BASE_URL, OMG_MODEL), then rerun"
    return "fix the problem named above (device connection, plan file), then rerun"


__all__ = ["Orchestrator", "Phase", "Progress", "RunResult"]
