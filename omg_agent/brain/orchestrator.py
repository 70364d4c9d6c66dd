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
free; every operator reply attempt, replan attempt and executed bundle counts.

Honest outcomes (DESIGN.md §3): a claimed step is ticked only when its checks pass on the
screen (:mod:`omg_agent.brain.verify` — each check about one element, the app or memory); a
claimed *goal* is verified against the plan's last step, which describes the end state.
Prose criteria without checks go to the planner, which confirms with the screenshot. The
run ends ``done`` only when every step is ticked or the planner confirmed a verified claim;
a planner "done" after a failed or unticked step ends the run ``failed`` (or ``infeasible``)
with the planner's words as the reason. A verified step's screen becomes the checkpoint a
later failed step rolls back to (back presses until the screen hash matches).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from omg_agent.brain import dialogue, planning
from omg_agent.brain.budget import StepBudget, StopReport, exhaustion_report
from omg_agent.brain.gatekeeper import GateKeeper
from omg_agent.brain.llm import LLMClient
from omg_agent.brain.loopwatch import LoopWatch
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.modes import (
    ONE_ACTION,
    adopt_end_checks,
    own_todo,
    unforeseen,
)
from omg_agent.brain.operator import Operator, TurnContext, TurnResult
from omg_agent.brain.planner import Planner
from omg_agent.brain.recovery import (
    climb,
    fail_step,
    maybe_fail_step,
    record_post_mortem,
)
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
    TurnRecord,
)
from omg_agent.brain.verdicts import DONE_HINT
from omg_agent.brain.verify import names_present_element, verify_step
from omg_agent.config import Settings
from omg_agent.core.contracts import TaskStep
from omg_agent.core.observation import Observation
from omg_agent.core.results import Failure, FailureKind
from omg_agent.core.secrets import SecretVault
from omg_agent.drivers.base import Driver
from omg_agent.errors import BudgetExhausted, LLMError, LLMReplyError, OmgError
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
                 secrets: SecretVault | None = None, macros: Any = None) -> None:
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
        self.learned: Any = None  # hitl.learn.Learner: a human's steps offered before the model
        self.state: RunState | None = None
        self._context: RunContext | None = None  # the state and what the phases share
        self._started = 0.0
        self._base: list[tuple[int, int, int]] = []
        self.prior_usage = (0, 0, 0)  # model calls and tokens of earlier processes (resume)
        # several devices (drivers.desktop.router): called with each step before it is
        # observed; answers the device it switched to, if it switched
        self.route: Callable[[TaskStep], str | None] | None = None

    # -- the loop ------------------------------------------------------------------------
    def run(self, task: str, plan_file: Path | None = None) -> RunResult:
        """Plan ``task`` (or follow ``plan_file``) and step until the run ends."""
        self.begin(RunState(task, StepBudget(self.settings.max_steps)))
        if self._guarded(lambda: planning.plan(self._ctx, self.planner, task, plan_file)):
            self._progress()
        return self.finish_loop()

    def resume(self, state: RunState, answer: str) -> RunResult:
        """Go on with a run that stopped for the user's answer (see :mod:`.resume`): an
        answer to a question, or yes / no to the sensitive action the gate held."""
        self.begin(state)
        if state.phase == "NEEDS_CONFIRMATION" and state.held is not None:
            dialogue.confirmed(self._ctx, state.held, answer)
        else:
            dialogue.answered(self._ctx, answer, self.secrets)
        return self.finish_loop()

    def begin(self, state: RunState) -> None:
        self.state = state
        self._context = RunContext(state, self.driver, self.memory, self.settings,
                                   self.loops, self.recorder, self.gatekeeper,
                                   self.failure_threshold)
        state.budget.start_clock(self.settings.run_timeout_s, self.llms)
        if state.planned:  # a resumed unified run whose planner had taken over
            self.operator.planning = "adaptive"
        self._started = time.perf_counter()
        self._base = [(c.totals.replies, c.totals.prompt_tokens, c.totals.completion_tokens)
                      for c in self.llms]

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
        match s.phase:
            case "THINK":
                self._think()
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
        except BudgetExhausted:
            self._budget_spent()
        except (LLMError, OmgError) as exc:
            if isinstance(exc, LLMReplyError) and s.budget.exhausted:
                self._budget_spent()  # the last replies allowed were invalid
            else:
                log.warning("run stopped: %s", exc)
                s.finish("FAILED", "", StopReport(tuple(s.todo.done()), f"error: {exc}",
                                                  _error_hint(exc)))
                self._ctx.event("error", message=str(exc))
        return s.phase not in FINAL_PHASES

    def _result(self) -> RunResult:
        s = self._s
        calls, tin, tout = self._usage()
        result = s.result(time.perf_counter() - self._started, (calls, tin, tout))
        if self.recorder is not None:
            self.recorder.finish(result.status, result.answer, {
                "model_calls": result.model_calls, "prompt_tokens": result.tokens_in,
                "completion_tokens": result.tokens_out, "steps_used": result.steps_used,
                "todo": result.todo, "stop_report": result.summary()})
        return result

    def _budget_spent(self) -> None:
        s = self._s
        s.finish("FAILED", "", exhaustion_report(s.budget.limit, s.todo.done(),
                                                 s.todo.pending(), s.current_step))
        self._ctx.event("budget", used=s.budget.used, limit=s.budget.limit)
        index = s.todo.cursor
        if index is not None:
            record_post_mortem(self._ctx, index, s.todo.steps[index], FailureKind.BUDGET)

    # -- phases --------------------------------------------------------------------------
    def _think(self) -> None:
        s = self._s
        index = s.todo.cursor
        if index is None:
            self._all_ticked()
            return
        step = s.todo.steps[index]
        if self.route is not None and (switched := self.route(step)):
            self._ctx.event("device", step=index + 1, device=switched)
        started = time.perf_counter()
        obs = self.driver.observe()
        if (move := self.system.react(obs, s.last_obs)) is not None:
            self._ctx.event("system", situation=move.situation, note=move.note)
            self.system.carry_out(self.driver, move, obs)
            return
        verdict = self.loops.judge(obs)  # a loop is named a loop before tries run out
        if verdict is not None and verdict.escalated:
            climb(self._ctx, index, step, verdict, obs)
            return
        if self._auto_verified(index, step, obs):
            return
        if not self._ctx.plannerless and (s.attempt.turns >= step.max_tries
                                      or s.attempt.elapsed() > step.time_budget_s):
            # out of time, or out of tries while making progress: a timeout, not a loop
            fail_step(self._ctx, index, step, FailureKind.TIMEOUT
                            if s.attempt.turns < step.max_tries or not s.attempt.failures
                            else None)
            return
        if self.learned is not None and self.learned.offer(self, step, obs):
            return  # learned steps ran instead of the model: look again
        todo = s.own_todo if self._ctx.plannerless and s.own_todo else s.todo.markdown()
        ctx = TurnContext(s.task, step, index + 1, todo, s.history(),
                          "\n".join([s.dialogue.for_operator(), s.note]).strip())
        try:
            turn = self.operator.turn(ctx, s.budget, observation=obs,
                                      observe_s=time.perf_counter() - started)
        except LLMReplyError as exc:
            s.budget.check()
            s.attempt = s.attempt.after_turn("", Failure(FailureKind.NO_DECISION,
                                                         f"no valid decision: {exc}"))
            maybe_fail_step(self._ctx, index, step)
            return
        s.last_obs = turn.observation
        if turn.actions and all(a.get("type") == "wait" for a in turn.actions):
            s.wait_turns += 1
        step = self._operator_plan(index, step, turn)
        claimed = turn.kind in ("step_complete", "goal_complete")
        problem = self._verify_claim(step, turn) if claimed else (
            turn.problem if turn.kind == "acted" else None)
        s.attempt = s.attempt.after_turn(turn.observation.screen_hash, problem,
                                         model_s=turn.decide_s, acted=turn.acted)
        summary = turn.summary() + (f" → {problem.message}" if claimed and problem else "")
        s.records.append(TurnRecord(index + 1, summary, turn.observation.screen_hash,
                                    problem))
        self.loops.acted(turn.executed, turn.observation)
        match turn.kind:
            case "ask_user":
                s.dialogue, s.phase = s.dialogue.ask(turn.question or ""), "ASK_USER"
            case "needs_confirmation" if turn.held is not None:
                dialogue.hold(self._ctx, index + 1, turn.held.request.describe, turn.question)
            case "infeasible":
                why = turn.answer or "the operator found the task cannot be done"
                self._ctx.event("infeasible", step=index + 1, reason=why)
                s.finish("INFEASIBLE", why, StopReport(
                    tuple(s.todo.done()), f"the task cannot be done: {why}",
                    "check the task (names, items, settings) and run a feasible one"))
            case "step_complete" | "goal_complete" if problem is None:
                self._ticked(index, step, turn.observation,
                             goal=turn.kind == "goal_complete", answer=turn.answer or "",
                             acted_on_next=turn.acted)
            case _ if problem is not None:
                if claimed:
                    self._ctx.event("not_verified", step=index + 1, reason=problem.message)
                maybe_fail_step(self._ctx, index, step)
            case "acted" if self._plan_unfit(turn):
                s.phase = "REPLAN"

    def _operator_plan(self, index: int, step: TaskStep, turn: TurnResult) -> TaskStep:
        """A plannerless operator keeps the plan: its checklist is shown back to it, and the
        end-state checks it wrote on its first turn become the task step's checks."""
        s = self._s
        if not self._ctx.plannerless or self.settings.planning == ONE_ACTION:
            return step  # flat is the peers' loop: the task is the plan, claims are confirmed
        if turn.bundle.todo:
            s.own_todo = own_todo(turn.bundle.todo)
        adopted = adopt_end_checks(step, turn.bundle)
        if adopted is None:
            return step
        s.todo.entries[index] = (adopted, False)
        self._ctx.event("end_checks", step=index + 1,
                    checks=[c.describe() for c in adopted.checks])
        return adopted

    def _plan_unfit(self, turn: TurnResult) -> bool:
        """Whether the planner must see the plan again after a turn that worked: the
        operator says the plan no longer fits, or it saved data no step foresaw."""
        s = self._s
        if self._ctx.plannerless or s.predefined:
            return False
        extra = unforeseen(turn.saved, s.todo.steps)
        why = turn.bundle.plan_outdated or (
            f"the operator saved {', '.join(extra)}, which no step foresaw" if extra else "")
        if not why:
            return False
        self._ctx.event("plan_unfit", reason=why)
        s.outcome = f"the operator reports the plan no longer fits: {why}"
        return True

    def _verify_claim(self, step: TaskStep, turn: TurnResult) -> Failure | None:
        """Whether the screen shows what the operator claims: a step is checked against its
        own checks, the whole goal against the plan's last step (the end state)."""
        final = self._s.todo.steps[-1]
        if turn.kind == "step_complete" or final is step:
            return self._ctx.verify(step, turn.observation)
        return self._ctx.verify(final, turn.observation) or verify_step(
            step.model_copy(update={"checks": []}), turn.observation, self.memory.get)

    def _ticked(self, index: int, step: TaskStep, obs: Observation, *, goal: bool = False,
                answer: str = "", acted_on_next: bool = False) -> None:
        """A verified step: tick it. A verified goal — or the last step — ends the run unless
        the planner must confirm it (prose criteria: it looks at the screenshot). Otherwise
        the next step starts; ``replan-each`` asks the planner first, ``adaptive`` only
        when a user's answer came in."""
        s = self._s
        s.todo.tick(index)
        s.checkpoint, s.note, s.pending_pm = obs.screen_hash, "", None
        self._ctx.event("step_done", step=index + 1, todo=s.todo.markdown())
        acted = acted_on_next  # the claiming reply's actions already work on the next step
        s.new_attempt()
        s.attempt = replace(s.attempt, acted=acted)
        self.loops.new_step()
        s.outcome = f"step {index + 1} '{step.description}' done"
        if not goal and not s.todo.complete or (s.predefined and not s.todo.complete):
            replan = not s.predefined and not self._ctx.plannerless and (
                self.settings.planning == "replan-each" or s.dialogue.fresh is not None)
            s.phase = "REPLAN" if replan else "THINK"
            return
        if goal:
            s.outcome += f"; the operator reports the whole task done: {answer}"
        mode = self.settings.confirm_done
        confirm = mode == "always" or (mode == "unverified" and not s.todo.steps[-1].checks)
        if s.predefined or not confirm:
            s.todo.tick_all()
            self._done(answer or self._summary())
            return
        s.claim, s.phase = answer, "REPLAN"  # the planner confirms, with the screenshot

    def _auto_verified(self, index: int, step: TaskStep, obs: Observation) -> bool:
        """The step's checks already pass on the screen after the operator acted: tick it
        without asking any model (a claim-only turn would add nothing). Only steps with an
        element that must be present — absences, the app and saved values also pass on
        screens on the way there."""
        s = self._s
        if not self.settings.auto_verify or not s.attempt.acted \
                or not names_present_element(step.checks):
            return False
        if self._ctx.verify(step, obs) is not None:
            return False
        s.last_obs = obs
        s.records.append(TurnRecord(index + 1, "checks passed on the screen: step done",
                                    obs.screen_hash))
        self._ctx.event("auto_verified", step=index + 1)
        self._ticked(index, step, obs)
        return True

    def _summary(self) -> str:
        """The answer for the user when no model wrote one: the goal and the saved values."""
        s = self._s
        saved = "; ".join(f"{k} = {v}" for k, v in self.memory.snapshot().items())
        return f"Done: {s.todo.goal or s.task}" + (f" ({saved})" if saved else "")

    def _all_ticked(self) -> None:
        s = self._s
        if not s.predefined and not self._ctx.plannerless:
            s.phase = "REPLAN"  # the planner writes the final answer (or adds steps)
            return
        self._done("all plan steps are done")

    def _done(self, answer: str) -> None:
        s = self._s
        s.finish("DONE", self.memory.substitute(answer), StopReport(
            tuple(s.todo.done()), "the task is complete", DONE_HINT))

    # -- plumbing ------------------------------------------------------------------------
    def _usage(self) -> tuple[int, int, int]:
        calls, tin, tout = self.prior_usage
        for client, (r, p, c) in zip(self.llms, self._base, strict=True):
            calls += client.totals.replies - r
            tin += client.totals.prompt_tokens - p
            tout += client.totals.completion_tokens - c
        return calls, tin, tout

    def _progress(self) -> None:
        if self.on_progress is not None and self.state is not None:
            _, tin, tout = self._usage()
            self.on_progress(self.state.progress((tin, tout)))

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
