"""The planner's phases (L1): the first plan, each replan, and the rule for its 'done'.

- :func:`plan` — PLAN: a plan file (predefined: followed as written), the task as its own
  one-step plan (no planner: ``flat``, ``unified``), or the planner's plan of the task from
  the first screen. The first plan is free of the step budget.
- :func:`replan` — REPLAN: the planner sees the todo list, the last outcome and
  post-mortem, memory, the user's fresh answer and the screen. A new plan replaces the
  unticked steps — unless it is a plan already tried after a failure, which is a loop
  (:func:`repeated_plan`); in a ``unified`` run the planner takes over here. Any other
  status ends the run (:func:`planner_ends`) — ``declined`` when the planner gives up right
  after the user said no (:func:`~.dialogue.declined`).
- :func:`planner_ends` — the evidence rule: a 'done' that confirms the operator's claim on
  a prose end state must name evidence the screen shows (:func:`~.verdicts.unproven`; a
  second unproven one fails the run) that the run itself changed (:mod:`.honest`: evidence
  that already held before the run acted proves nothing); then
  :func:`~.verdicts.planner_verdict` decides the ending from what the phone backs, and a
  ``done`` goes through :func:`~.honest.finish_done` (the baseline and the gate's ledger).

Every planner request's replies count as the planner's calls (:func:`planner_call`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from omg_agent.brain import dialogue, honest, prompts
from omg_agent.brain.budget import StopReport
from omg_agent.brain.loopwatch import plan_text
from omg_agent.brain.modes import task_as_plan
from omg_agent.brain.operator import Operator
from omg_agent.brain.planner import Planner, TodoList, load_plan_file
from omg_agent.brain.recovery import loop_end
from omg_agent.brain.run_context import RunContext
from omg_agent.brain.verdicts import planner_verdict, unproven
from omg_agent.core.contracts import Replan
from omg_agent.core.observation import Observation
from omg_agent.core.results import FailureKind, PostMortem
from omg_agent.guards.answers import read_answer
from omg_agent.guards.injection import without_foreign
from omg_agent.perception.elementlist import render

T = TypeVar("T")


def plan(run: RunContext, planner: Planner, task: str, plan_file: Path | None) -> None:
    """The run's first plan; the run goes on to THINK."""
    s = run.state
    tokens: dict[str, int] = {}
    if plan_file is not None:
        first = load_plan_file(plan_file)
        s.predefined = True
    elif run.plannerless:
        first = task_as_plan(task)
    else:
        obs = run.driver.observe()
        honest.look(run, obs)  # the run's first screen: every check's baseline
        first, record = planner_call(run, planner, lambda: planner.plan(
            task, screen=screen_summary(obs, mask=_mask(planner)), screenshot=obs,
            device=prompts.device_of(run.driver.info().driver)))
        tokens = {"prompt_tokens": record.prompt_tokens,
                  "completion_tokens": record.completion_tokens}
    s.todo = TodoList.of(first)
    s.todo.goal = s.todo.goal or task
    run.loops.plan_tried(first.steps)
    run.event("plan", predefined=s.predefined, mode=run.settings.planning,
              todo=s.todo.markdown(), **tokens)
    s.phase = "THINK"


def replan(run: RunContext, planner: Planner, operator: Operator) -> None:
    """Ask the planner about the run so far: a new plan, or the run's end."""
    s = run.state
    # the planner sees the phone as it is now: the last turn's observation was taken
    # before its actions ran (a tap that liked a post still shows "Like" there)
    s.last_obs = run.driver.observe()
    honest.look(run, s.last_obs)
    fresh = s.dialogue.fresh
    confirming = s.claim is not None
    before = planner.llm.totals.replies
    reply, record = planner_call(run, planner, lambda: planner.replan(
        s.task, s.todo, outcome=s.outcome or "(none yet)",
        post_mortem=s.pending_pm.for_prompt() if s.pending_pm else None,
        memory=run.memory.prompt_listing(),
        user_answer=fresh[1] if fresh else None, question=fresh[0] if fresh else None,
        screen=screen_summary(s.last_obs, mask=_mask(planner)) if s.last_obs else "",
        screenshot=s.last_obs, confirming=confirming, operator_view=operator_view(run),
        on_attempt=s.budget.counter("replan", tries := s.budget.attempts(
            run.settings.parse_attempts)), attempts=tries,
        device=prompts.device_of(run.driver.info().driver)))
    if confirming:  # counted per task (bench calls, the result): the cost of prose ends
        s.confirm_calls += planner.llm.totals.replies - before
    run.event("replan", status=reply.status, response=reply.response,
              confirming=confirming,
              plan=reply.plan.model_dump(mode="json") if reply.plan else None,
              prompt_tokens=record.prompt_tokens,
              completion_tokens=record.completion_tokens)
    failed_step, claim = s.pending_pm, s.claim
    s.pending_pm, s.claim, s.dialogue = None, None, s.dialogue.seen()
    if reply.status == "replanned":
        assert reply.plan is not None
        if run.plannerless:  # a unified run's failed step: the planner takes over
            s.planned = True
            operator.planning = "adaptive"
            run.event("planner_takes_over", reason=s.outcome)
        # the same plan again after a failure is a loop; after progress or an answer
        # the situation changed, and the same plan may well be right
        tried = run.loops.plan_tried(reply.plan.steps)
        if tried and run.loops.enabled and failed_step is not None:
            repeated_plan(run, reply)
            return
        s.todo.replace_pending(reply.plan)
        s.phase = "THINK"
        return
    if reply.status in ("infeasible", "give_up") and fresh is not None \
            and read_answer(fresh[1]) == "no" \
            and dialogue.declined(run, run.memory.substitute(reply.response or "")):
        return  # the planner stopped on the user's no: the user declined
    planner_ends(run, reply, failed=failed_step is not None, claim=claim)


OPERATOR_TURNS = 6  # the operator's last turns handed to a planner that takes over


def operator_view(run: RunContext) -> str:
    """What a plannerless operator knew, for the planner taking over (issue #27): its own
    checklist — where it notes values as it scans — and its last turns. Empty once the
    planner's plan is the one being followed."""
    s = run.state
    if not run.plannerless:
        return ""
    turns = "\n".join(s.history()[-OPERATOR_TURNS:])
    parts = [f"Checklist:\n{s.own_todo}" if s.own_todo else "",
             f"Last turns:\n{turns}" if turns else ""]
    return "\n".join(p for p in parts if p)


def repeated_plan(run: RunContext, reply: Replan) -> None:
    """A plan already tried is a loop: the first time it goes back to the planner as a
    LOOP post-mortem, the second time the user is asked (or the run stops)."""
    s = run.state
    s.plan_repeats += 1
    if s.plan_repeats > 1:
        loop_end(run, run.loops.guard.give_up(
            "the planner sent a plan that was already tried, twice"), None, None)
        return
    assert reply.plan is not None
    index = s.todo.cursor if s.todo.cursor is not None else len(s.todo.steps) - 1
    s.pending_pm = PostMortem(
        step=index + 1, description=s.todo.steps[index].description,
        reason=FailureKind.LOOP,
        last_screen=screen_summary(s.last_obs) if s.last_obs else "no observation",
        strategies_tried=(plan_text(reply.plan.steps),),
        last_error="this plan was already tried and did not work",
        suggested_recovery="write a different plan: another route, smaller steps, or "
                           "give_up with an honest response")
    run.event("post_mortem", **s.pending_pm.for_prompt())
    s.outcome = "the planner sent a plan that was already tried"


def planner_ends(run: RunContext, reply: Replan, *, failed: bool, claim: str | None) -> None:
    """The planner says the run is over: :func:`~.verdicts.planner_verdict` decides
    whether the phone backs it."""
    s = run.state
    words = run.memory.substitute(reply.response or "")
    final = s.todo.steps[-1]
    if reply.status == "done" and claim is not None and not failed and not final.checks:
        why = unproven(reply.evidence, lambda checks: run.verify(
            final.model_copy(update={"checks": list(checks)}), _confirm_screen(run)))
        # quoting the screen is not a check: what it quotes must be the run's doing
        # (a task that only looks or asks changes nothing: its answer rests on what is shown)
        if why is None and not final.data_output and not honest.observes_only(s.task):
            why = honest.unproven_end(run, list(reply.evidence or ()))
        if why is not None:
            unproven_claim(run, why, words)
            return
    ending = planner_verdict(
        reply, words, done=s.todo.done(), pending=s.todo.pending(),
        failed_outcome=s.outcome if failed else None,
        claim=run.memory.substitute(claim) if claim is not None else None,
        end_state_shown=lambda: end_state_shown(run))
    if ending.phase == "DONE":
        s.todo.tick_all()
        honest.finish_done(run, ending.answer, ending.report)
    else:
        s.finish(ending.phase, ending.answer, ending.report)
    if ending.refused:
        run.event(ending.refused, reason=ending.report.stopped_because, response=words)


def _confirm_screen(run: RunContext) -> Observation:
    """The screen the planner confirmed from (the last one; observed when there is none)."""
    s = run.state
    if s.last_obs is None:
        s.last_obs = run.driver.observe()
    return s.last_obs


def unproven_claim(run: RunContext, why: str, words: str) -> None:
    """The planner confirmed the operator's 'done' but the screen does not back it: the
    operator gets one more try to finish or show the end state; a second unproven
    confirmation ends the run failed — never done on words alone."""
    s = run.state
    s.unproven_claims += 1
    run.event("confirmation_unproven", reason=why, response=words,
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


def end_state_shown(run: RunContext) -> bool:
    """Whether the phone shows the plan's end state now: the last step's checks pass
    (a planner that says 'done' with steps unticked is believed only then)."""
    s = run.state
    final = s.todo.steps[-1]
    if not final.checks:
        return False
    s.last_obs = run.driver.observe()
    honest.look(run, s.last_obs)
    return run.verify(final, s.last_obs) is None


def planner_call(run: RunContext, planner: Planner, call: Callable[[], T], *,
                 clock: Callable[[], float] = time.monotonic) -> T:
    """A planner request; its replies count as the planner's calls, and its wait is model
    time, which no step's clock counts (a slow planner must not time out the step it
    planned before the operator's first turn)."""
    before, started = planner.llm.totals.replies, clock()
    try:
        return call()
    finally:
        s = run.state
        s.planner_calls += planner.llm.totals.replies - before
        s.attempt = s.attempt.waited(clock() - started)


def _mask(planner: Planner) -> Callable[[str], str] | None:
    """The planner's secrets' mask (its requests are masked anyway: this masks the screen's
    texts before they are cut)."""
    secrets = getattr(planner.llm, "secrets", None)
    return secrets.mask if secrets is not None else None


def screen_summary(obs: Observation, limit: int = 40, *,
                   mask: Callable[[str], str] | None = None) -> str:
    """The screen for the planner: the app and the element list the operator sees (texts,
    merged texts, descriptions, ids, states) — not bare labels; ``mask``: the run's secrets,
    masked before a text is cut to fit."""
    shown = without_foreign(obs)[:limit]
    return f"app {obs.package or '?'}\n" + render(shown, obs.screen, mask=mask)


__all__ = ["end_state_shown", "plan", "planner_call", "planner_ends", "repeated_plan",
           "replan", "screen_summary", "unproven_claim"]
