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
from typing import Any, TypeVar

from omg_agent.brain.budget import StepBudget, StopReport, exhaustion_report
from omg_agent.brain.gatekeeper import GateKeeper
from omg_agent.brain.llm import LLMClient
from omg_agent.brain.loopwatch import LoopWatch, plan_text
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.modes import (
    ONE_ACTION,
    adopt_end_checks,
    own_todo,
    plannerless,
    task_as_plan,
    unforeseen,
)
from omg_agent.brain.operator import Operator, TurnContext, TurnResult
from omg_agent.brain.planner import Planner, TodoList, load_plan_file
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
    post_mortem,
)
from omg_agent.brain.verdicts import DONE_HINT, planner_verdict, unproven
from omg_agent.brain.verify import verify_step
from omg_agent.config import Settings
from omg_agent.core.actions import Back, Wait
from omg_agent.core.checks import ElementCheck
from omg_agent.core.contracts import Replan, TaskStep
from omg_agent.core.observation import Observation
from omg_agent.core.results import Failure, FailureKind, PostMortem
from omg_agent.core.secrets import SecretVault
from omg_agent.drivers.base import Driver
from omg_agent.errors import BudgetExhausted, LLMError, LLMReplyError, OmgError
from omg_agent.guards.injection import without_foreign
from omg_agent.guards.loops import LoopGuard, Rung, Verdict
from omg_agent.guards.system import SystemGuard
from omg_agent.perception.elementlist import render

log = logging.getLogger(__name__)
T = TypeVar("T")

FAILURE_THRESHOLD = 3
MAX_JUMPS = 2
MAX_BACKS = 3  # rollback presses before giving up on the checkpoint
YES = ("yes", "y", "ok", "okay", "allow", "go ahead", "是", "好", "确认", "可以")


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
        self._started = 0.0
        self._base: list[tuple[int, int, int]] = []
        self.prior_usage = (0, 0, 0)  # model calls and tokens of earlier processes (resume)
        # several devices (drivers.desktop.router): called with each step before it is
        # observed; answers the device it switched to, if it switched
        self.route: Callable[[TaskStep], str | None] | None = None
        # called at the top of every turn, next to the budget check: the CLI's Ctrl-C check
        # (cli/ctrlc.py) raises KeyboardInterrupt there when the one it raised got lost
        self.before_turn: Callable[[], None] | None = None

    # -- the loop ------------------------------------------------------------------------
    def run(self, task: str, plan_file: Path | None = None) -> RunResult:
        """Plan ``task`` (or follow ``plan_file``) and step until the run ends."""
        self.begin(RunState(task, StepBudget(self.settings.max_steps)))
        if self._guarded(lambda: self._plan(task, plan_file)):
            self._progress()
        return self.finish_loop()

    def resume(self, state: RunState, answer: str) -> RunResult:
        """Go on with a run that stopped for the user's answer (see :mod:`.resume`): an
        answer to a question, or yes / no to the sensitive action the gate held."""
        self.begin(state)
        if state.phase == "NEEDS_CONFIRMATION" and state.held is not None:
            self._confirmed(state.held, answer)
        else:
            self._answered(answer)
        return self.finish_loop()

    def _confirmed(self, held: str, answer: str) -> None:
        s = self._s
        yes = answer.strip().lower().startswith(YES)
        self._event("user_confirmation", action=held, answer=yes)
        s.dialogue, s.held = s.dialogue.answered("yes" if yes else "no"), None
        if yes and self.gatekeeper is not None:
            self.gatekeeper.approve(held)
        s.note = (f"The user confirmed: {held}. Go ahead with it." if yes else
                  f"The user said no to: {held}. Do not do it; find another way or stop.")
        s.phase = "THINK"

    def begin(self, state: RunState) -> None:
        self.state = state
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
        if self.before_turn is not None:
            self.before_turn()
        match s.phase:
            case "THINK":
                self._think()
            case "REPLAN":
                self._replan()
            case "ASK_USER":
                self._ask()

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
                self._event("error", message=str(exc))
        return s.phase not in FINAL_PHASES

    def outcome(self) -> RunResult:
        """The run's result as it stands, the trace left as it is (see :meth:`_result`)."""
        return self._s.result(time.perf_counter() - self._started, self._usage())

    def _result(self) -> RunResult:
        result = self.outcome()
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
        self._event("budget", used=s.budget.used, limit=s.budget.limit)
        index = s.todo.cursor
        if index is not None:
            pm = post_mortem(index + 1, s.todo.steps[index], s, FailureKind.BUDGET)
            s.post_mortems.append(pm)
            self._event("post_mortem", **pm.for_prompt())

    # -- phases --------------------------------------------------------------------------
    def _plan(self, task: str, plan_file: Path | None) -> None:
        s = self._s
        tokens: dict[str, int] = {}
        if plan_file is not None:
            plan = load_plan_file(plan_file)
            s.predefined = True
        elif self._plannerless:
            plan = task_as_plan(task)
        else:
            obs = self.driver.observe()
            plan, record = self._planner_call(lambda: self.planner.plan(
                task, screen=_screen_summary(obs), screenshot=obs))
            tokens = {"prompt_tokens": record.prompt_tokens,
                      "completion_tokens": record.completion_tokens}
        s.todo = TodoList.of(plan)
        s.todo.goal = s.todo.goal or task
        self.loops.plan_tried(plan.steps)
        self._event("plan", predefined=s.predefined, mode=self.settings.planning,
                    todo=s.todo.markdown(), **tokens)
        s.phase = "THINK"

    def _think(self) -> None:
        s = self._s
        index = s.todo.cursor
        if index is None:
            self._all_ticked()
            return
        step = s.todo.steps[index]
        if self.route is not None and (switched := self.route(step)):
            self._event("device", step=index + 1, device=switched)
        started = time.perf_counter()
        obs = self.driver.observe()
        if (move := self.system.react(obs, s.last_obs)) is not None:
            self._event("system", situation=move.situation, note=move.note)
            self.system.carry_out(self.driver, move, obs)
            return
        verdict = self.loops.judge(obs)  # a loop is named a loop before tries run out
        if verdict is not None and verdict.escalated:
            self._climb(index, step, verdict, obs)
            return
        if self._auto_verified(index, step, obs):
            return
        if not self._plannerless and (s.attempt.turns >= step.max_tries
                                      or s.attempt.elapsed() > step.time_budget_s):
            # out of time, or out of tries while making progress: a timeout, not a loop
            self._fail_step(index, step, FailureKind.TIMEOUT
                            if s.attempt.turns < step.max_tries or not s.attempt.failures
                            else None)
            return
        if self.learned is not None and self.learned.offer(self, step, obs):
            return  # learned steps ran instead of the model: look again
        todo = s.own_todo if self._plannerless and s.own_todo else s.todo.markdown()
        ctx = TurnContext(s.task, step, index + 1, todo, s.history(),
                          "\n".join([s.dialogue.for_operator(), s.note]).strip())
        try:
            turn = self.operator.turn(ctx, s.budget, observation=obs,
                                      observe_s=time.perf_counter() - started)
        except LLMReplyError as exc:
            s.budget.check()
            s.attempt = s.attempt.after_turn("", Failure(FailureKind.NO_DECISION,
                                                         f"no valid decision: {exc}"))
            self._maybe_fail_step(index, step)
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
                held = turn.held.request.describe
                s.dialogue, s.held = s.dialogue.ask(turn.question or held), held
                self._event("needs_confirmation", step=index + 1, action=held)
                s.finish("NEEDS_CONFIRMATION", "", StopReport(
                    tuple(s.todo.done()), f"waiting for the user's yes to: {held}",
                    "answer with: omg-agent run --resume RUN_DIR --answer yes (or no)"))
            case "infeasible":
                why = turn.answer or "the operator found the task cannot be done"
                self._event("infeasible", step=index + 1, reason=why)
                s.finish("INFEASIBLE", why, StopReport(
                    tuple(s.todo.done()), f"the task cannot be done: {why}",
                    "check the task (names, items, settings) and run a feasible one"))
            case "step_complete" | "goal_complete" if problem is None:
                self._ticked(index, step, turn.observation,
                             goal=turn.kind == "goal_complete", answer=turn.answer or "",
                             acted_on_next=turn.acted)
            case _ if problem is not None:
                if claimed:
                    self._event("not_verified", step=index + 1, reason=problem.message)
                self._maybe_fail_step(index, step)
            case "acted" if self._plan_unfit(turn):
                s.phase = "REPLAN"

    def _operator_plan(self, index: int, step: TaskStep, turn: TurnResult) -> TaskStep:
        """A plannerless operator keeps the plan: its checklist is shown back to it, and the
        end-state checks it wrote on its first turn become the task step's checks."""
        s = self._s
        if not self._plannerless or self.settings.planning == ONE_ACTION:
            return step  # flat is the peers' loop: the task is the plan, claims are confirmed
        if turn.bundle.todo:
            s.own_todo = own_todo(turn.bundle.todo)
        adopted = adopt_end_checks(step, turn.bundle)
        if adopted is None:
            return step
        s.todo.entries[index] = (adopted, False)
        self._event("end_checks", step=index + 1,
                    checks=[c.describe() for c in adopted.checks])
        return adopted

    def _plan_unfit(self, turn: TurnResult) -> bool:
        """Whether the planner must see the plan again after a turn that worked: the
        operator says the plan no longer fits, or it saved data no step foresaw."""
        s = self._s
        if self._plannerless or s.predefined:
            return False
        extra = unforeseen(turn.saved, s.todo.steps)
        why = turn.bundle.plan_outdated or (
            f"the operator saved {', '.join(extra)}, which no step foresaw" if extra else "")
        if not why:
            return False
        self._event("plan_unfit", reason=why)
        s.outcome = f"the operator reports the plan no longer fits: {why}"
        return True

    def _climb(self, index: int, step: TaskStep, verdict: Verdict, obs: Observation) -> None:
        """A rung of the loop ladder: wait / re-tap offset / back run here without a model
        call; then a LOOP post-mortem; then the user (or a stop)."""
        s = self._s
        self._event("loop_guard", step=index + 1, rung=str(verdict.rung),
                    reason=verdict.reason, trigger=verdict.trigger)
        failure = Failure(FailureKind.LOOP, verdict.reason)
        s.records.append(TurnRecord(index + 1, f"loop guard: {verdict.reason}",
                                    obs.screen_hash, failure))
        s.last_obs = obs
        if verdict.action is not None:
            s.budget.charge("bundle")
            action = verdict.action
            if self.gatekeeper is not None and self.gatekeeper.holds(action, obs):
                action = Wait(seconds=0.1)  # never re-tap a sensitive target unasked
            executed = self.driver.execute([action], obs)
            self.loops.acted(executed, obs)
            return
        s.attempt = s.attempt.failed(failure)
        self._loop_end(verdict, index, step)

    def _loop_end(self, verdict: Verdict, index: int | None, step: TaskStep | None) -> None:
        s = self._s
        if verdict.rung is Rung.POST_MORTEM and index is not None and step is not None:
            self._fail_step(index, step, FailureKind.LOOP)
        elif verdict.rung is Rung.ASK_USER:
            s.dialogue = s.dialogue.ask(f"I am stuck: {verdict.reason.removeprefix('LOOP: ')}."
                                        f" I could {verdict.hint}. How should I continue?")
            s.phase = "ASK_USER"
        else:
            why, hint = self.loops.guard.stop_message()
            s.finish("FAILED", "", StopReport(tuple(s.todo.done()), why, hint))

    def _verify_claim(self, step: TaskStep, turn: TurnResult) -> Failure | None:
        """Whether the screen shows what the operator claims: a step is checked against its
        own checks, the whole goal against the plan's last step (the end state)."""
        final = self._s.todo.steps[-1]
        if turn.kind == "step_complete" or final is step:
            return self._verify(step, turn.observation)
        return self._verify(final, turn.observation) or verify_step(
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
        self._event("step_done", step=index + 1, todo=s.todo.markdown())
        acted = acted_on_next  # the claiming reply's actions already work on the next step
        s.new_attempt()
        s.attempt = replace(s.attempt, acted=acted)
        self.loops.new_step()
        s.outcome = f"step {index + 1} '{step.description}' done"
        if not goal and not s.todo.complete or (s.predefined and not s.todo.complete):
            replan = not s.predefined and not self._plannerless and (
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
        if not self.settings.auto_verify or not s.attempt.acted or not _positive(step):
            return False
        if self._verify(step, obs) is not None:
            return False
        s.last_obs = obs
        s.records.append(TurnRecord(index + 1, "checks passed on the screen: step done",
                                    obs.screen_hash))
        self._event("auto_verified", step=index + 1)
        self._ticked(index, step, obs)
        return True

    def _summary(self) -> str:
        """The answer for the user when no model wrote one: the goal and the saved values."""
        s = self._s
        saved = "; ".join(f"{k} = {v}" for k, v in self.memory.snapshot().items())
        return f"Done: {s.todo.goal or s.task}" + (f" ({saved})" if saved else "")

    def _maybe_fail_step(self, index: int, step: TaskStep) -> None:
        if self._s.attempt.failures >= self.failure_threshold:
            self._fail_step(index, step, None)

    def _fail_step(self, index: int, step: TaskStep, reason: FailureKind | None) -> None:
        s = self._s
        pm = post_mortem(index + 1, step, s, reason)
        s.post_mortems.append(pm)
        self._event("post_mortem", **pm.for_prompt())
        s.outcome = f"step {index + 1} '{step.description}' failed ({pm.reason})"
        s.new_attempt()
        self.loops.new_step()
        on_fail, jump = step.on_fail, step.jump_target
        if on_fail not in ("ask_user", "abort"):
            self._rollback()
        if on_fail == "retry" and index not in s.retried and pm.reason != FailureKind.LOOP:
            s.retried.add(index)
            s.note = f"Retrying after a failure ({pm.reason}): {pm.suggested_recovery}"
        elif jump is not None and s.jumps.get(index, 0) < MAX_JUMPS:
            s.jumps[index] = s.jumps.get(index, 0) + 1
            s.todo.untick_from(jump - 1)
        elif on_fail == "ask_user":
            s.dialogue = s.dialogue.ask(
                f"I could not finish '{step.description}' ({pm.reason}: "
                f"{pm.last_error or 'no progress'}). How should I continue?")
            s.phase = "ASK_USER"
        elif on_fail == "abort" or s.predefined or self.settings.planning == ONE_ACTION:
            s.finish("FAILED", "", StopReport(tuple(s.todo.done()), s.outcome,
                                              pm.suggested_recovery))
        else:
            s.pending_pm, s.phase = pm, "REPLAN"

    def _rollback(self) -> None:
        """Press back until the screen is the last verified one again (a few presses)."""
        s = self._s
        if not s.checkpoint:
            return
        for presses in range(MAX_BACKS + 1):
            if self.driver.observe().screen_hash == s.checkpoint:
                self._event("rollback", presses=presses, reached=True)
                return
            if presses < MAX_BACKS:
                s.budget.charge("bundle")
                self.driver.execute([Back()])
        self._event("rollback", presses=MAX_BACKS, reached=False)

    def _ask(self) -> None:
        s = self._s
        question = self.memory.substitute(s.dialogue.pending or "")
        s.dialogue = s.dialogue.ask(question)
        self._event("ask_user", question=question)
        answer = self.ask_user(question) if self.ask_user is not None else None
        if answer is None:
            s.finish("ASK_USER_PENDING", "", StopReport(
                tuple(s.todo.done()), f"waiting for the user: {question}",
                "answer with: omg-agent run --resume RUN_DIR --answer \"…\""))
            return
        self._answered(answer)

    def _answered(self, answer: str) -> None:
        s = self._s
        if self.secrets is not None:  # before the answer is recorded, logged or sent
            self.secrets.note_answer(s.dialogue.pending or "", answer)
        self._event("user_answer", question=s.dialogue.pending, answer=answer)
        s.dialogue = s.dialogue.answered(answer)
        s.note = ""
        s.new_attempt()
        s.outcome = s.outcome or "the operator needed the user's input"
        s.phase = "THINK" if s.predefined or self._plannerless else "REPLAN"

    def _replan(self) -> None:
        s = self._s
        fresh = s.dialogue.fresh
        confirming = s.claim is not None
        replan, record = self._planner_call(lambda: self.planner.replan(
            s.task, s.todo, outcome=s.outcome or "(none yet)",
            post_mortem=s.pending_pm.for_prompt() if s.pending_pm else None,
            memory=self.memory.prompt_listing(),
            user_answer=fresh[1] if fresh else None, question=fresh[0] if fresh else None,
            screen=_screen_summary(s.last_obs) if s.last_obs else "",
            screenshot=s.last_obs, confirming=confirming,
            on_attempt=s.budget.counter("replan"),
            attempts=s.budget.attempts(self.settings.parse_attempts)))
        self._event("replan", status=replan.status, response=replan.response,
                    confirming=confirming,
                    plan=replan.plan.model_dump(mode="json") if replan.plan else None,
                    prompt_tokens=record.prompt_tokens,
                    completion_tokens=record.completion_tokens)
        failed_step, claim = s.pending_pm, s.claim
        s.pending_pm, s.claim, s.dialogue = None, None, s.dialogue.seen()
        if replan.status == "replanned":
            assert replan.plan is not None
            if self._plannerless:  # a unified run's failed step: the planner takes over
                s.planned = True
                self.operator.planning = "adaptive"
                self._event("planner_takes_over", reason=s.outcome)
            # the same plan again after a failure is a loop; after progress or an answer
            # the situation changed, and the same plan may well be right
            tried = self.loops.plan_tried(replan.plan.steps)
            if tried and self.loops.enabled and failed_step is not None:
                self._repeated_plan(replan)
                return
            s.todo.replace_pending(replan.plan)
            s.phase = "THINK"
            return
        self._planner_ends(replan, failed=failed_step is not None, claim=claim)

    def _repeated_plan(self, replan: Replan) -> None:
        """A plan already tried is a loop: the first time it goes back to the planner as a
        LOOP post-mortem, the second time the user is asked (or the run stops)."""
        s = self._s
        s.plan_repeats += 1
        if s.plan_repeats > 1:
            self._loop_end(self.loops.guard.give_up(
                "the planner sent a plan that was already tried, twice"), None, None)
            return
        assert replan.plan is not None
        index = s.todo.cursor if s.todo.cursor is not None else len(s.todo.steps) - 1
        s.pending_pm = PostMortem(
            step=index + 1, description=s.todo.steps[index].description,
            reason=FailureKind.LOOP,
            last_screen=_screen_summary(s.last_obs) if s.last_obs else "no observation",
            strategies_tried=(plan_text(replan.plan.steps),),
            last_error="this plan was already tried and did not work",
            suggested_recovery="write a different plan: another route, smaller steps, or "
                               "give_up with an honest response")
        self._event("post_mortem", **s.pending_pm.for_prompt())
        s.outcome = "the planner sent a plan that was already tried"

    def _planner_ends(self, replan: Replan, *, failed: bool, claim: str | None) -> None:
        """The planner says the run is over: :func:`~.verdicts.planner_verdict` decides
        whether the phone backs it."""
        s = self._s
        words = self.memory.substitute(replan.response or "")
        final = s.todo.steps[-1]
        if replan.status == "done" and claim is not None and not failed and not final.checks:
            why = unproven(replan.evidence, lambda checks: self._verify(
                final.model_copy(update={"checks": list(checks)}), self._confirm_screen()))
            if why is not None:
                self._unproven_claim(why, words)
                return
        ending = planner_verdict(
            replan, words, done=s.todo.done(), pending=s.todo.pending(),
            failed_outcome=s.outcome if failed else None,
            claim=self.memory.substitute(claim) if claim is not None else None,
            end_state_shown=self._end_state_shown)
        if ending.phase == "DONE":
            s.todo.tick_all()
        s.finish(ending.phase, ending.answer, ending.report)
        if ending.refused:
            self._event(ending.refused, reason=ending.report.stopped_because, response=words)

    def _confirm_screen(self) -> Observation:
        s = self._s
        if s.last_obs is None:
            s.last_obs = self.driver.observe()
        return s.last_obs

    def _unproven_claim(self, why: str, words: str) -> None:
        """The planner confirmed the operator's 'done' but the screen does not back it: the
        operator gets one more try to finish or show the end state; a second unproven
        confirmation ends the run failed — never done on words alone."""
        s = self._s
        s.unproven_claims += 1
        self._event("confirmation_unproven", reason=why, response=words,
                    attempt=s.unproven_claims)
        if s.unproven_claims > 1:
            s.finish("FAILED", "", StopReport(
                tuple(s.todo.done()), f"the task was reported done but the screen never "
                f"showed it: {why}", "look at the phone: finish what is missing, or run the "
                "task again with criteria the screen can show"))
            return
        s.todo.untick_from(len(s.todo.steps) - 1)  # the end state is not shown yet
        s.note = (f"You reported the task done, but {why}. Finish what is missing, or bring "
                  "the screen that shows the finished task into view, then report done.")
        s.outcome = f"the 'done' report was not confirmed: {why}"
        s.new_attempt()
        s.phase = "THINK"

    def _end_state_shown(self) -> bool:
        """Whether the phone shows the plan's end state now: the last step's checks pass
        (a planner that says 'done' with steps unticked is believed only then)."""
        s = self._s
        final = s.todo.steps[-1]
        if not final.checks:
            return False
        s.last_obs = self.driver.observe()
        return self._verify(final, s.last_obs) is None

    def _all_ticked(self) -> None:
        s = self._s
        if not s.predefined and not self._plannerless:
            s.phase = "REPLAN"  # the planner writes the final answer (or adds steps)
            return
        self._done("all plan steps are done")

    def _done(self, answer: str) -> None:
        s = self._s
        s.finish("DONE", self.memory.substitute(answer), StopReport(
            tuple(s.todo.done()), "the task is complete", DONE_HINT))

    # -- plumbing ------------------------------------------------------------------------
    def _planner_call(self, call: Callable[[], T]) -> T:
        """A planner request; its replies count as the planner's calls."""
        before = self.planner.llm.totals.replies
        try:
            return call()
        finally:
            self._s.planner_calls += self.planner.llm.totals.replies - before

    @property
    def _plannerless(self) -> bool:
        """No planner in this run (yet): ``flat`` never has one; ``unified`` until a step
        failed and the planner took over with its post-mortem."""
        return plannerless(self.settings.planning) and not self._s.planned

    def _verify(self, step: TaskStep, obs: Observation) -> Failure | None:
        return verify_step(step, obs, self.memory.get, self.memory.substitute)

    def _usage(self) -> tuple[int, int, int]:
        calls, tin, tout = self.prior_usage
        for client, (r, p, c) in zip(self.llms, self._base, strict=True):
            calls += client.totals.replies - r
            tin += client.totals.prompt_tokens - p
            tout += client.totals.completion_tokens - c
        return calls, tin, tout

    def _event(self, kind: str, **data: Any) -> None:
        log.info("%s: %s", kind, data)
        if self.recorder is not None:
            self.recorder.record_event(kind, **data)

    def _progress(self) -> None:
        if self.on_progress is not None and self.state is not None:
            _, tin, tout = self._usage()
            self.on_progress(self.state.progress((tin, tout)))

    @property
    def _s(self) -> RunState:
        assert self.state is not None, "run() first"
        return self.state


def _positive(step: TaskStep) -> bool:
    """Whether a step's checks name something that must be on the screen (an element
    present): an absence, the app or a saved value alone also pass on a screen on the way
    (a note's editor 'lacks' the note's list row before anything is deleted)."""
    return any(isinstance(c, ElementCheck) and c.present for c in step.checks)


def _screen_summary(obs: Observation, limit: int = 40) -> str:
    """The screen for the planner: the app and the element list the operator sees (texts,
    merged texts, descriptions, ids, states) — not bare labels."""
    shown = without_foreign(obs)[:limit]
    return f"app {obs.package or '?'}\n" + render(shown, obs.screen)


def _error_hint(exc: Exception) -> str:
    if isinstance(exc, LLMError):
        return "check the model endpoint and model name (OMG_BASE_URL, OMG_MODEL), then rerun"
    return "fix the problem named above (device connection, plan file), then rerun"


__all__ = ["Orchestrator", "Phase", "Progress", "RunResult"]
