"""The THINK phase: one operator turn on the current step, and what it leaves behind.

:func:`think` looks at the screen first and lets rules act before any model: the system
guard (ANR, crash, permission, screen off), the loop guard's ladder, auto-verify (the
step's checks already pass after the operator acted: :func:`auto_verified`), the step's
tries and time, and steps a human taught (``learned``). Only then does the operator
model decide (:meth:`~omg_agent.brain.operator.Operator.turn`). Its turn is booked — the
attempt, the turn record, the loop watch, a plannerless operator's own checklist and end
checks (:func:`operator_plan`) — and its outcome routed: a question, the gate's hold (or
the user's no to it), an infeasible task, a stop because the user said no (believed only
when they did: :func:`unbacked_decline`), a claim (ticked only when :func:`verify_claim`
passes), a failed turn, or a plan that no longer fits (:func:`plan_unfit`: back to the
planner).

:func:`ticked` is a verified step: tick it, make its screen the checkpoint, then the next
step, the planner, or the run's end (:func:`done`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from omg_agent.brain import dialogue, held, honest, own_checks
from omg_agent.brain.budget import StopReport
from omg_agent.brain.dialects import dialect_for
from omg_agent.brain.dialects.solo import unverified
from omg_agent.brain.effects import effect_note
from omg_agent.brain.modes import ONE_ACTION, own_todo, unforeseen
from omg_agent.brain.operator import Operator, TurnContext, TurnResult
from omg_agent.brain.quoted import quoted_on_screen, values_on_screen
from omg_agent.brain.recovery import climb, fail_step, maybe_fail_step
from omg_agent.brain.run_context import RunContext
from omg_agent.brain.run_state import RunState, TurnRecord
from omg_agent.brain.verdicts import INFEASIBLE_HINT
from omg_agent.brain.verify import names_present_element, verify_step
from omg_agent.core.contracts import TaskStep
from omg_agent.core.observation import Observation
from omg_agent.core.results import Failure, FailureKind
from omg_agent.core.todo import read_todo
from omg_agent.errors import LLMReplyError
from omg_agent.guards.system import SystemGuard


@dataclass(frozen=True)
class Booked:
    """A booked turn: the step as the operator's own plan left it, whether the turn claimed
    it done, and why the turn counts as failed (``None``: it does not)."""

    step: TaskStep
    claimed: bool
    problem: Failure | None


Route = Callable[[TaskStep], str | None]  # a step -> the device switched to, if it switched
Learned = Callable[[TaskStep, Observation], bool]  # True: learned steps ran instead


def think(run: RunContext, operator: Operator, system: SystemGuard, *,
          route: Route | None = None, learned: Learned | None = None) -> None:
    """One THINK turn on the step at the cursor (or the end of the plan)."""
    s = run.state
    index = s.todo.cursor
    if index is None:
        all_ticked(run)
        return
    step = s.todo.steps[index]
    if route is not None and (switched := route(step)):
        run.event("device", step=index + 1, device=switched)
    started = time.perf_counter()
    obs = run.driver.observe()
    note_effect(s, obs)
    honest.look(run, obs)
    if rules_acted(run, index, step, obs, system, learned):
        return
    todo = s.own_todo if run.plannerless and s.own_todo else s.todo.markdown()
    ctx = TurnContext(s.task, step, index + 1, todo, s.history(),
                      "\n".join([s.dialogue.for_operator(), s.note]).strip())
    try:
        turn = operator.turn(ctx, s.budget, observation=obs,
                             observe_s=time.perf_counter() - started)
    except LLMReplyError as exc:
        s.budget.check()
        s.attempt = s.attempt.after_turn("", Failure(FailureKind.NO_DECISION,
                                                     f"no valid decision: {exc}"))
        maybe_fail_step(run, index, step)
        return
    booked = book(run, index, step, turn)
    if booked is not None:
        routed(run, index, booked, turn)


def note_effect(s: RunState, obs: Observation) -> None:
    """Add to the last acting turn's record what its actions changed, read from ``obs``,
    the first screen seen after it (once: later looks may follow the system's moves)."""
    if s.effect_of is None:
        return
    at, before, touched = s.effect_of
    s.effect_of = None
    if at < len(s.records) and (note := effect_note(before, obs, touched)):
        s.records[at] = replace(s.records[at],
                                            summary=f"{s.records[at].summary} → {note}")


def rules_acted(run: RunContext, index: int, step: TaskStep, obs: Observation,
                system: SystemGuard, learned: Learned | None) -> bool:
    """Let rules act on ``obs`` before any model: the system guard, the loop guard's ladder,
    auto-verify, the step's tries and time, learned steps (``True``: one of them did)."""
    s = run.state
    if (move := system.react(obs, s.last_obs)) is not None:
        run.event("system", situation=move.situation, note=move.note)
        system.carry_out(run.driver, move, obs)
        return True
    verdict = run.loops.judge(obs)  # a loop is named a loop before tries run out
    if verdict is not None and verdict.escalated:
        climb(run, index, step, verdict, obs)
        return True
    if verdict is not None and verdict.note:  # the end of a list: said, never a loop
        run.event("loop_guard", step=index + 1, rung="note", reason=verdict.note, trigger="")
        s.records.append(TurnRecord(index + 1, verdict.note, obs.screen_hash))
    if auto_verified(run, index, step, obs):
        return True
    if not run.plannerless and (s.attempt.turns >= step.max_tries
                                or s.attempt.elapsed() > step.time_budget_s):
        # out of time, or out of tries while making progress: a timeout, not a loop
        fail_step(run, index, step, FailureKind.TIMEOUT
                  if s.attempt.turns < step.max_tries or not s.attempt.failures else None)
        return True
    return learned is not None and learned(step, obs)  # ran instead of the model: look again


def book(run: RunContext, index: int, step: TaskStep, turn: TurnResult) -> Booked | None:
    """Book the operator's turn: the attempt, the turn record, the loop watch, the
    operator's own checklist; ``None`` when the turn ended the run (the user's no, insisted
    on)."""
    s = run.state
    s.last_obs = turn.observation
    if turn.actions and all(a.get("type") == "wait" for a in turn.actions):
        s.wait_turns += 1
    step = operator_plan(run, index, step, turn)
    claimed = turn.kind in ("step_complete", "goal_complete")
    problem = verify_claim(run, step, turn) if claimed else (
        turn.problem if turn.kind == "acted" and not replans(turn) else None)
    s.attempt = s.attempt.after_turn(turn.observation.screen_hash, problem,
                                     model_s=turn.decide_s, acted=turn.acted)
    summary = turn.summary() + (f" → {problem.message}" if claimed and problem else "")
    intent = turn.bundle.execute_now.intent if turn.bundle.execute_now else ""
    s.records.append(TurnRecord(index + 1, summary, turn.observation.screen_hash, problem,
                                intent=intent, acted=turn.acted))
    touched = tuple(o.element for o in turn.executed.outcomes if o.ok and o.element is not None) \
        if turn.executed is not None else ()
    s.effect_of = (len(s.records) - 1, turn.observation, touched) if turn.acted else None
    run.loops.acted(turn.executed, turn.observation)
    if turn.executed is not None:
        honest.acted_on(s, turn.executed.outcomes)
    if turn.held is not None and turn.held.answer is not True and dialogue.refused_before(
            run, turn.held):  # the model reached again for what the user said no to
        if dialogue.insists(run, turn.held):
            dialogue.declined(run, "the model tried again what the user had refused")
            return None
        s.note = (f"The user already said no to: {turn.held.request.describe}. It will not "
                  "be done: carry on with the rest of the task without it, or stop with "
                  "user_declined.")
    elif turn.held is not None and turn.held.answer is False:
        dialogue.refused(run, turn.held)
    return Booked(step, claimed, problem)


def routed(run: RunContext, index: int, booked: Booked, turn: TurnResult) -> None:
    """Route the booked turn's outcome: a question, the gate's hold, a decline, an
    infeasible task, a verified claim, a failure, or a plan that no longer fits."""
    s, step, problem = run.state, booked.step, booked.problem
    match turn.kind:
        case "ask_user":
            s.dialogue = s.dialogue.ask(turn.question or "", secret=turn.asks_secret)
            s.phase = "ASK_USER"
        case "needs_confirmation" if turn.held is not None:
            dialogue.hold(run, held.capture(turn.held, index + 1, turn.held_rest),
                          turn.question)
        case "declined":
            if not dialogue.declined(run, turn.answer or "the user declined"):
                unbacked_decline(run, index, step)
        case "infeasible" if dialogue.just_refused(run):  # giving up on the user's no
            dialogue.declined(run, turn.answer or "the operator stopped on the user's no")
        case "infeasible":
            why = turn.answer or "the operator found the task cannot be done"
            run.event("infeasible", step=index + 1, reason=why)
            s.finish("INFEASIBLE", why, StopReport(
                tuple(s.todo.done()), f"the task cannot be done: {why}", INFEASIBLE_HINT))
        case "step_complete" | "goal_complete" if problem is None:
            ticked(run, index, step, turn.observation, goal=turn.kind == "goal_complete",
                   answer=turn.answer or "", acted_on_next=turn.acted)
        case "acted" if plan_unfit(run, turn):  # its own outcome, never a failure
            s.phase = "REPLAN"
        case _ if problem is not None:
            if booked.claimed:
                run.event("not_verified", step=index + 1, reason=problem.message)
                if own_plan(run):  # the reply right after may correct what failed
                    own_checks.refused(run, turn.observation)
            maybe_fail_step(run, index, step)


def unbacked_decline(run: RunContext, index: int, step: TaskStep) -> None:
    """The operator stopped for a no the user never said: not believed, a failed turn."""
    s = run.state
    s.note = ("You set user_declined, but the user has said no to nothing in this run: go "
              "on with the task, or ask with ask_user.")
    s.attempt = s.attempt.failed(Failure(FailureKind.MODEL_REPORTED,
                                         "user_declined, but the user said no to nothing"))
    run.event("not_verified", step=index + 1, reason="user_declined without a no")
    maybe_fail_step(run, index, step)


def own_plan(run: RunContext) -> bool:
    """The operator keeps the plan: a ``unified`` run its planner has not taken over (flat is
    the peers' loop: the task is the plan, claims are confirmed)."""
    return run.plannerless and run.settings.planning != ONE_ACTION


def operator_plan(run: RunContext, index: int, step: TaskStep, turn: TurnResult) -> TaskStep:
    """A plannerless operator keeps the plan: its checklist is shown back to it, and the
    end-state checks it wrote become the task step's checks — once, but for those a refused
    claim found failing, which the reply right after may correct (:mod:`.own_checks`)."""
    s = run.state
    if not own_plan(run):
        return step
    if turn.bundle.todo:
        s.own_todo = own_todo(turn.bundle.todo)
    s.checks_fresh = bool(turn.bundle.end_checks)
    refused_keys, s.refused_checks = s.refused_checks, []
    if refused_keys and s.note.startswith(own_checks.CORRECT_NOTE[:20]):
        s.note = ""  # said for this reply only
    adopted = own_checks.adopt(step, turn.bundle, refused_keys)
    if adopted is None:
        return step
    s.todo.entries[index] = (adopted, False)
    run.event("end_checks", step=index + 1, checks=[c.describe() for c in adopted.checks],
              corrected=bool(refused_keys))
    return adopted


def replans(turn: TurnResult) -> bool:
    """The operator says the plan no longer fits and nothing it ran failed: its judgement
    that the last actions failed is why, not a failed turn (issue 36: such turns added up
    to a LOOP post-mortem)."""
    problem = turn.problem
    return bool(turn.bundle.plan_outdated) and (
        problem is None or problem.kind is FailureKind.MODEL_REPORTED
        and turn.failure is None)


PLAN_OUTDATED_HINT = ("nothing failed: plan the rest from the screen as it is now — keep the "
                      "steps that still fit, drop what is done, add what is missing")


def plan_unfit(run: RunContext, turn: TurnResult) -> bool:
    """Whether the planner must see the plan again after a turn: the operator says the plan
    no longer fits (a ``unified`` run's planner takes over), or it saved data no step of
    the planner's foresaw. Its own outcome for the planner, never a failure."""
    s = run.state
    if s.predefined or run.plannerless and not own_plan(run):
        return False
    extra = [] if run.plannerless else unforeseen(turn.saved, s.todo.steps)
    why = turn.bundle.plan_outdated or (
        f"the operator saved {', '.join(extra)}, which no step foresaw" if extra else "")
    if not why or not turn.bundle.plan_outdated and turn.problem is not None:
        return False
    run.event("plan_unfit", reason=why)
    s.outcome = f"the operator reports the plan no longer fits: {why} ({PLAN_OUTDATED_HINT})"
    return True


def verify_claim(run: RunContext, step: TaskStep, turn: TurnResult) -> Failure | None:
    """Whether the screen shows what the operator claims: a step is checked against its
    own checks, the whole goal against the plan's last step (the end state)."""
    final = run.state.todo.steps[-1]
    if turn.kind == "step_complete" or final is step:
        return run.verify(step, turn.observation)
    return run.verify(final, turn.observation) or verify_step(
        step.model_copy(update={"checks": []}), turn.observation, run.memory.get)


def ticked(run: RunContext, index: int, step: TaskStep, obs: Observation, *,
           goal: bool = False, answer: str = "", acted_on_next: bool = False) -> None:
    """A verified step: tick it. A verified goal — or the last step — ends the run unless
    the planner must confirm it (prose criteria: it looks at the screenshot). Otherwise
    the next step starts; ``replan-each`` asks the planner first, ``adaptive`` only
    when a user's answer came in."""
    s = run.state
    s.todo.tick(index)
    s.checkpoint, s.note, s.pending_pm = obs.screen_hash, "", None
    run.event("step_done", step=index + 1, todo=s.todo.markdown())
    acted = acted_on_next  # the claiming reply's actions already work on the next step
    s.new_attempt()
    s.attempt = replace(s.attempt, acted=acted)
    run.loops.new_step()
    s.outcome = f"step {index + 1} '{step.description}' done"
    if not goal and not s.todo.complete or (s.predefined and not s.todo.complete):
        replan = not s.predefined and not run.plannerless and (
            run.settings.planning == "replan-each" or s.dialogue.fresh is not None)
        s.phase = "REPLAN" if replan else "THINK"
        return
    if goal:
        s.outcome += f"; the operator reports the whole task done: {answer}"
        if honest.declined_on_price(run, answer, obs):
            return
    mode = run.settings.confirm_done
    open_claim = mode == "always" or mode == "unverified" and unproven(run, answer, obs)
    if run.judgeless and open_claim and not s.predefined:
        unverified(run, answer)  # nobody can look: say so (brain/dialects/solo.py), never done
        return
    # the flat loop of a JSON model asks no planner unless told to always (issue 40: the
    # peers' loop); a phone model's flat loop keeps the general model it was given to look
    peers = run.settings.planning == ONE_ACTION and dialect_for(run.settings) is None
    if s.predefined or not open_claim or mode != "always" and peers:
        s.todo.tick_all()
        done(run, answer or summary(run))
        return
    s.claim, s.phase = answer, "REPLAN"  # the planner confirms, with the screenshot


def unproven(run: RunContext, answer: str, obs: Observation) -> bool:
    """Whether the screen leaves a claimed done unproven (``confirm_done = unverified``
    then asks the planner): no end checks held, the answer's data was not read off the
    screen, and the answer does not quote the screen's own text — nor, for a task that only
    looks or asks, state only values the screen's own text shows (issue 40)."""
    final = run.state.todo.steps[-1]
    words = run.memory.substitute(answer)
    return not final.checks and not read_off_screen(run, final) \
        and not quoted_on_screen(words, obs) \
        and not (honest.observes_only(run.state.task) and values_on_screen(words, obs))


def read_off_screen(run: RunContext, step: TaskStep) -> bool:
    """Whether the step's data is evidence the system itself took: its ``data_output`` was
    saved by reading the screen (``mem_save from_screen``), not from the model's words — a
    planner looking again would confirm nothing more (issue 27)."""
    item = run.memory.item(step.data_output) if step.data_output else None
    return item is not None and item.source == "screen"


def auto_verified(run: RunContext, index: int, step: TaskStep, obs: Observation) -> bool:
    """The step's checks already pass on the screen after the operator acted: tick it
    without asking any model (a claim-only turn would add nothing). Only steps with an
    element that must be present — absences, the app and saved values also pass on
    screens on the way there."""
    s = run.state
    if not run.settings.auto_verify or not s.attempt.acted \
            or not names_present_element(step.checks):
        return False
    if own_plan(run) and not s.checks_fresh and any(
            not ticked_ for ticked_, _ in read_todo(s.own_todo)):
        # checks the operator wrote for an earlier turn's outcome, while its own checklist
        # says work is left: a screen on the way (a trash list showing the item to restore)
        # may hold them — the operator claims the end itself (relay, expenses.undo_delete)
        return False
    if run.verify(step, obs) is not None:
        return False
    s.last_obs = obs
    s.records.append(TurnRecord(index + 1, "checks passed on the screen: step done",
                                obs.screen_hash))
    run.event("auto_verified", step=index + 1)
    ticked(run, index, step, obs)
    return True


def summary(run: RunContext) -> str:
    """The answer for the user when no model wrote one: the goal and the saved values."""
    s = run.state
    saved = "; ".join(f"{k} = {v}" for k, v in run.memory.snapshot().items())
    return f"Done: {s.todo.goal or s.task}" + (f" ({saved})" if saved else "")


def all_ticked(run: RunContext) -> None:
    """Every step is ticked: the planner writes the final answer (or adds steps); a
    predefined or plannerless run is done."""
    s = run.state
    if not s.predefined and not run.plannerless:
        s.phase = "REPLAN"  # the planner writes the final answer (or adds steps)
        return
    done(run, "all plan steps are done")


def done(run: RunContext, answer: str) -> None:
    """The run ends done with ``answer`` (values filled in) — when the phone and the gate
    back it (:func:`~.honest.finish_done`), else ``unverified``."""
    honest.finish_done(run, answer)


__all__ = ["all_ticked", "auto_verified", "done", "operator_plan", "plan_unfit",
           "read_off_screen", "summary",
           "think", "ticked", "unbacked_decline", "verify_claim"]
