"""The orchestrator: the state machine that ties planner (L1), operator (L2) and memory (L3).

::

    PLAN ──► THINK ⇄ (ACT → OBSERVE, one operator turn) ──► REPLAN ──► THINK … ──► DONE
               │  step complete & verified ─► tick ─► REPLAN (predefined plan: next step)
               │  step failed ─► post-mortem ─► on_fail: retry | jump_to:N | replan |
               │                                       ask_user | abort (FAILED)
               └─ ask_user ─► ASK_USER ─► answer ─► REPLAN ─► THINK   (no answer: ASK_USER)

:meth:`Orchestrator.run` is a thin loop over :meth:`Orchestrator.step`, with the step budget
checked at the top of every turn (DESIGN.md §3). The first plan is free; every operator
reply attempt, replan attempt and executed bundle counts. A step is verified by the model's
``step_complete`` plus, when its ``success_criteria`` quotes visible text ("…"), that text
being on the screen outside edit fields (typed, unsent text proves nothing), plus its
``data_output`` key being saved; its screen becomes the checkpoint that a later failed step
rolls back to (back presses until the screen hash matches) before retrying or replanning.
When the operator says the whole goal is done, the planner confirms it (``confirm_done``).
A predefined plan (YAML) is followed in order and the run finishes only when its todo list
is fully ticked.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from omg_agent.brain.budget import StepBudget, StopReport, exhaustion_report
from omg_agent.brain.llm import LLMClient
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.operator import Operator, TurnContext, TurnResult
from omg_agent.brain.planner import Planner, TodoList, load_plan_file
from omg_agent.brain.run_state import (
    FINAL_PHASES,
    Phase,
    Progress,
    RunResult,
    RunState,
    post_mortem,
)
from omg_agent.config import Settings
from omg_agent.core.actions import Back
from omg_agent.core.contracts import TaskStep
from omg_agent.core.observation import Observation
from omg_agent.drivers.base import Driver
from omg_agent.errors import BudgetExhausted, LLMError, LLMReplyError, OmgError

log = logging.getLogger(__name__)

_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”")
FAILURE_THRESHOLD = 3
MAX_JUMPS = 2
MAX_BACKS = 3  # rollback presses before giving up on the checkpoint


class Orchestrator:
    """Runs tasks on one device. ``ask_user(question) -> answer | None`` waits for a human."""

    def __init__(self, driver: Driver, planner_llm: LLMClient, operator_llm: LLMClient,
                 memory: MemoryBank, settings: Settings, recorder: Any = None,
                 ask_user: Callable[[str], str | None] | None = None, *,
                 on_progress: Callable[[Progress], None] | None = None,
                 failure_threshold: int = FAILURE_THRESHOLD) -> None:
        self.driver = driver
        self.planner = Planner(planner_llm)
        self.operator = Operator(driver, operator_llm, memory, recorder=recorder)
        self.llms = [planner_llm] if planner_llm is operator_llm else [planner_llm,
                                                                       operator_llm]
        self.memory = memory
        self.settings = settings
        self.recorder = recorder
        self.ask_user = ask_user
        self.on_progress = on_progress
        self.failure_threshold = failure_threshold
        self.state: RunState | None = None

    # -- the loop ------------------------------------------------------------------------
    def run(self, task: str, plan_file: Path | None = None) -> RunResult:
        started = time.perf_counter()
        base = [(c.totals.replies, c.totals.prompt_tokens, c.totals.completion_tokens)
                for c in self.llms]
        self.state = s = RunState(task, StepBudget(self.settings.max_steps))
        try:
            self._plan(task, plan_file)
            while s.phase not in FINAL_PHASES:
                self.step()
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
        result = s.result(time.perf_counter() - started, self._usage(base))
        if self.recorder is not None:
            self.recorder.finish(result.status, result.answer, {
                "model_calls": result.model_calls, "prompt_tokens": result.tokens_in,
                "completion_tokens": result.tokens_out, "steps_used": result.steps_used,
                "todo": result.todo, "stop_report": result.summary()})
        self._progress()
        return result

    def _budget_spent(self) -> None:
        s = self._s
        s.finish("FAILED", "", exhaustion_report(s.budget.limit, s.todo.done(),
                                                 s.todo.pending(), s.current_step))
        self._event("budget", used=s.budget.used, limit=s.budget.limit)
        index = s.todo.cursor
        if index is not None:
            pm = post_mortem(index + 1, s.todo.steps[index], s, "BUDGET")
            s.post_mortems.append(pm)
            self._event("post_mortem", **pm)

    def step(self) -> None:
        """One turn of the state machine (the budget is checked first)."""
        s = self._s
        s.budget.check()
        match s.phase:
            case "THINK":
                self._think()
            case "REPLAN":
                self._replan()
            case "ASK_USER":
                self._ask()
        self._progress()

    # -- phases --------------------------------------------------------------------------
    def _plan(self, task: str, plan_file: Path | None) -> None:
        s = self._s
        tokens: dict[str, int] = {}
        if plan_file is not None:
            plan = load_plan_file(plan_file)
            s.predefined = True
        else:
            screen = _screen_summary(self.driver.observe())
            plan, record = self.planner.plan(task, screen=screen)
            tokens = {"prompt_tokens": record.prompt_tokens,
                      "completion_tokens": record.completion_tokens}
        s.todo = TodoList.of(plan)
        s.todo.goal = s.todo.goal or task
        self._event("plan", predefined=s.predefined, todo=s.todo.markdown(), **tokens)
        s.phase = "THINK"

    def _think(self) -> None:
        s = self._s
        index = s.todo.cursor
        if index is None:
            self._all_ticked("")
            return
        step = s.todo.steps[index]
        if s.step_turns >= step.max_tries or s.step_elapsed() > step.time_budget_s:
            self._fail_step(index, step, "TIMEOUT" if s.step_turns < step.max_tries
                            else None)
            return
        answers = [f"The user was asked {q!r} and answered: {a}" for q, a in s.answers]
        ctx = TurnContext(s.task, step, index + 1, s.todo.markdown(), tuple(s.history),
                          "\n".join([*answers, s.note]).strip())
        try:
            turn = self.operator.turn(ctx, s.budget)
        except LLMReplyError as exc:
            s.budget.check()
            s.step_turns += 1
            self._failed_turn(index, step, f"no valid decision: {exc}")
            return
        s.step_turns += 1
        s.last_obs = turn.observation
        s.last_action = turn.summary()
        s.history.append(f"(step {index + 1}) {turn.summary()}")
        s.screen_hashes.append(turn.observation.screen_hash)
        self._after_turn(index, step, turn)

    def _after_turn(self, index: int, step: TaskStep, turn: TurnResult) -> None:
        s = self._s
        if turn.kind == "ask_user":
            s.question, s.phase = turn.question, "ASK_USER"
            return
        if turn.kind == "infeasible":
            why = turn.answer or "the operator found the task cannot be done"
            self._event("infeasible", step=index + 1, reason=why)
            s.finish("INFEASIBLE", why, StopReport(
                tuple(s.todo.done()), f"the task cannot be done: {why}",
                "check the task (names, items, settings) and run a feasible one"))
            return
        if turn.kind in ("step_complete", "goal_complete"):
            problem = self._unverified(step, turn.observation)
            if problem:
                s.history.append(f"(step {index + 1}) not verified: {problem}")
                self._failed_turn(index, step, problem)
                return
            s.todo.tick(index)
            s.checkpoint, s.note = turn.observation.screen_hash, ""
            self._event("step_done", step=index + 1, todo=s.todo.markdown())
            s.reset_step()
            s.outcome = f"step {index + 1} '{step.description}' done"
            if turn.kind == "goal_complete" and (s.todo.complete or not s.predefined):
                s.outcome += f"; the operator reports the whole task done: {turn.answer}"
                s.final_answer = turn.answer or ""
                if s.todo.complete and (s.predefined or not self._confirms(step)):
                    self._all_ticked(turn.answer or "")
                    return
            s.phase = "THINK" if s.predefined else "REPLAN"
            return
        if turn.failed:
            self._failed_turn(index, step, turn.error or "the last actions did not work")
        else:
            s.failures = 0

    def _failed_turn(self, index: int, step: TaskStep, why: str) -> None:
        s = self._s
        s.failures += 1
        s.last_error = why
        if s.failures >= self.failure_threshold:
            self._fail_step(index, step, None)

    def _fail_step(self, index: int, step: TaskStep, reason: str | None) -> None:
        s = self._s
        pm = post_mortem(index + 1, step, s, reason)
        s.post_mortems.append(pm)
        self._event("post_mortem", **pm)
        s.outcome = f"step {index + 1} '{step.description}' failed ({pm['reason']})"
        s.reset_step()
        on_fail, jump = step.on_fail, step.jump_target
        if on_fail not in ("ask_user", "abort"):
            self._rollback()
        if on_fail == "retry" and index not in s.retried:
            s.retried.add(index)
            s.note = f"Retrying after a failure ({pm['reason']}): {pm['suggested_recovery']}"
        elif jump is not None and s.jumps.get(index, 0) < MAX_JUMPS:
            s.jumps[index] = s.jumps.get(index, 0) + 1
            s.todo.untick_from(jump - 1)
        elif on_fail == "ask_user":
            s.question = (f"I could not finish '{step.description}' ({pm['reason']}: "
                          f"{s.last_error or 'no progress'}). How should I continue?")
            s.phase = "ASK_USER"
        elif on_fail == "abort" or s.predefined:
            s.finish("FAILED", "", StopReport(tuple(s.todo.done()), s.outcome,
                                              pm["suggested_recovery"]))
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
        question = self.memory.substitute(s.question or "")
        self._event("ask_user", question=question)
        answer = self.ask_user(question) if self.ask_user is not None else None
        if answer is None:
            s.finish("ASK_USER_PENDING", "", StopReport(
                tuple(s.todo.done()), f"waiting for the user: {question}",
                "answer the question and run the task again with the answer in it"))
            s.pending_question = question
            return
        self._event("user_answer", question=question, answer=answer)
        s.answers.append((question, answer))
        s.note = ""
        s.reset_step()
        s.user_answer, s.asked = answer, question
        s.outcome = s.outcome or "the operator needed the user's input"
        s.phase = "THINK" if s.predefined else "REPLAN"

    def _replan(self) -> None:
        s = self._s
        replan, record = self.planner.replan(
            s.task, s.todo, outcome=s.outcome or "(none yet)", post_mortem=s.pending_pm,
            memory=self.memory.prompt_listing(), user_answer=s.user_answer,
            question=s.asked, screen=_screen_summary(s.last_obs) if s.last_obs else "",
            on_attempt=s.budget.counter("replan"),
            attempts=s.budget.attempts(self.settings.parse_attempts))
        self._event("replan", status=replan.status, response=replan.response,
                    plan=replan.plan.model_dump(mode="json") if replan.plan else None,
                    prompt_tokens=record.prompt_tokens,
                    completion_tokens=record.completion_tokens)
        s.pending_pm, s.user_answer, s.asked = None, None, None
        if replan.status == "done":
            answer = s.final_answer or replan.response or ""
            s.finish("DONE", self.memory.substitute(answer), StopReport(
                tuple(s.todo.done()), "the task is complete", "nothing: the task is done"))
            return
        assert replan.plan is not None
        s.final_answer = ""
        s.todo.replace_pending(replan.plan)
        s.phase = "THINK"

    def _all_ticked(self, answer: str) -> None:
        s = self._s
        if not s.predefined and not answer:
            s.phase = "REPLAN"
            return
        s.finish("DONE", self.memory.substitute(answer or "all plan steps are done"),
                 StopReport(tuple(s.todo.done()), "the task is complete",
                            "nothing: the task is done"))

    def _confirms(self, step: TaskStep) -> bool:
        """Whether the planner must confirm a 'goal complete' on ``step`` (see Settings)."""
        mode = self.settings.confirm_done
        return mode == "always" or (mode == "unverified"
                                    and not _QUOTED.search(step.success_criteria))

    # -- checks and plumbing -------------------------------------------------------------
    def _unverified(self, step: TaskStep, obs: Observation) -> str:
        """Why ``step`` is not verified on ``obs`` ('' when it is)."""
        if step.data_output and self.memory.get(step.data_output) is None:
            return f"the step must save ${step.data_output} (mem_save) first"
        on_screen = _screen_texts(obs)
        for m in _QUOTED.finditer(step.success_criteria):
            wanted = self.memory.substitute(m.group(1) or m.group(2)).strip().lower()
            if wanted and not any(wanted in t for t in on_screen):
                return f'"{wanted}" is not on the screen (success criteria)'
        return ""

    def _usage(self, base: list[tuple[int, int, int]]) -> tuple[int, int, int]:
        calls = tin = tout = 0
        for client, (r, p, c) in zip(self.llms, base, strict=True):
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
            self.on_progress(self.state.progress(self._usage_now()))

    def _usage_now(self) -> tuple[int, int]:
        return (sum(c.totals.prompt_tokens for c in self.llms),
                sum(c.totals.completion_tokens for c in self.llms))

    @property
    def _s(self) -> RunState:
        assert self.state is not None, "run() first"
        return self.state


def _screen_texts(obs: Observation) -> list[str]:
    """The screen's text as evidence of an outcome: what the user typed into an edit field
    (still there, unsent) proves nothing, so fields — and OCR read inside them — are left out."""
    fields = [e.bounds for e in obs.elements if e.editable]
    texts = [t for e in obs.elements if not e.editable
             for t in (e.text, e.desc, *e.extra_texts) if t]
    texts += [b.text for b in obs.ocr or ()
              if not any(f.left <= b.bounds.center.x <= f.right
                         and f.top <= b.bounds.center.y <= f.bottom for f in fields)]
    return [t.lower() for t in texts]


def _screen_summary(obs: Observation, limit: int = 25) -> str:
    labels = [e.label for e in obs.elements if e.label][:limit]
    return f"app {obs.package or '?'}; shows: " + "; ".join(labels)


def _error_hint(exc: Exception) -> str:
    if isinstance(exc, LLMError):
        return "check the model endpoint and model name (OMG_BASE_URL, OMG_MODEL), then rerun"
    return "fix the problem named above (device connection, plan file), then rerun"


__all__ = ["Orchestrator", "Phase", "Progress", "RunResult"]
