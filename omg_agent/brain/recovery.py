"""When a step goes wrong: its post-mortem and ``on_fail``, the rollback, the loop ladder.

- :func:`fail_step` (and :func:`maybe_fail_step`, after each failed turn) — a step out of
  tries, out of time or looping gets its post-mortem (:func:`record_post_mortem`); then its
  ``on_fail`` decides: retry once, jump back to an earlier step (at most
  :data:`MAX_JUMPS` times), ask the user, stop the run, or hand the post-mortem to the
  planner (REPLAN). A predefined or ``flat`` run has no planner to hand it to: it stops.
- :func:`rollback` — back presses until the screen is the last verified one (the
  checkpoint) again, at most :data:`MAX_BACKS`.
- :func:`climb` / :func:`loop_end` — a rung of the loop guard's ladder: its own move (wait,
  an offset re-tap, back) without a model call; then a LOOP post-mortem; then the user (or
  a stop).

Each function takes the :class:`~omg_agent.brain.run_context.RunContext` and changes its
state; none asks a model.
"""

from __future__ import annotations

from omg_agent.brain.budget import StopReport
from omg_agent.brain.modes import ONE_ACTION
from omg_agent.brain.run_context import RunContext
from omg_agent.brain.run_state import TurnRecord, post_mortem
from omg_agent.core.actions import Back, Wait
from omg_agent.core.contracts import TaskStep
from omg_agent.core.observation import Observation
from omg_agent.core.results import Failure, FailureKind, PostMortem
from omg_agent.guards.loops import Rung, Verdict

MAX_JUMPS = 2
MAX_BACKS = 3  # rollback presses before giving up on the checkpoint


def record_post_mortem(run: RunContext, index: int, step: TaskStep,
                       reason: FailureKind | None) -> PostMortem:
    """The post-mortem of step ``index`` (0-based), kept with the run and traced."""
    pm = post_mortem(index + 1, step, run.state, reason)
    run.state.post_mortems.append(pm)
    run.event("post_mortem", **pm.for_prompt())
    return pm


def maybe_fail_step(run: RunContext, index: int, step: TaskStep) -> None:
    """Fail the step once its failed turns in a row reach the run's threshold."""
    if run.state.attempt.failures >= run.failure_threshold:
        fail_step(run, index, step, None)


def fail_step(run: RunContext, index: int, step: TaskStep, reason: FailureKind | None) -> None:
    """The step failed (``reason``, or the one its attempt shows): post-mortem, then
    ``on_fail``."""
    s = run.state
    pm = record_post_mortem(run, index, step, reason)
    s.outcome = f"step {index + 1} '{step.description}' failed ({pm.reason})"
    s.new_attempt()
    run.loops.new_step()
    on_fail, jump = step.on_fail, step.jump_target
    if on_fail not in ("ask_user", "abort"):
        rollback(run)
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
    elif on_fail == "abort" or s.predefined or run.settings.planning == ONE_ACTION:
        s.finish("FAILED", "", StopReport(tuple(s.todo.done()), s.outcome,
                                          pm.suggested_recovery))
    else:
        s.pending_pm, s.phase = pm, "REPLAN"


def rollback(run: RunContext) -> None:
    """Press back until the screen is the last verified one again (a few presses)."""
    s = run.state
    if not s.checkpoint:
        return
    for presses in range(MAX_BACKS + 1):
        if run.driver.observe().screen_hash == s.checkpoint:
            run.event("rollback", presses=presses, reached=True)
            return
        if presses < MAX_BACKS:
            s.budget.charge("move")
            run.driver.execute([Back()])
    run.event("rollback", presses=MAX_BACKS, reached=False)


def climb(run: RunContext, index: int, step: TaskStep, verdict: Verdict,
          obs: Observation) -> None:
    """A rung of the loop ladder: wait / re-tap offset / back run here without a model
    call; then a LOOP post-mortem; then the user (or a stop)."""
    s = run.state
    run.event("loop_guard", step=index + 1, rung=str(verdict.rung),
              reason=verdict.reason, trigger=verdict.trigger)
    failure = Failure(FailureKind.LOOP, verdict.reason)
    s.records.append(TurnRecord(index + 1, f"loop guard: {verdict.reason}",
                                obs.screen_hash, failure))
    s.last_obs = obs
    if verdict.action is not None:
        s.budget.charge("move")
        action = verdict.action
        if run.gatekeeper is not None and run.gatekeeper.holds(action, obs):
            action = Wait(seconds=0.1)  # never re-tap a sensitive target unasked
        executed = run.driver.execute([action], obs)
        run.loops.acted(executed, obs)
        return
    s.attempt = s.attempt.failed(failure)
    loop_end(run, verdict, index, step)


def loop_end(run: RunContext, verdict: Verdict, index: int | None,
             step: TaskStep | None) -> None:
    """The ladder's last rungs: the step's LOOP post-mortem (when there is a step), the
    user, or the guard's stop message."""
    s = run.state
    if verdict.rung is Rung.POST_MORTEM and index is not None and step is not None:
        fail_step(run, index, step, FailureKind.LOOP)
    elif verdict.rung is Rung.ASK_USER:
        s.dialogue = s.dialogue.ask(f"I am stuck: {verdict.reason.removeprefix('LOOP: ')}."
                                    f" I could {verdict.hint}. How should I continue?")
        s.phase = "ASK_USER"
    else:
        why, hint = run.loops.guard.stop_message()
        s.finish("FAILED", "", StopReport(tuple(s.todo.done()), why, hint))


__all__ = ["MAX_BACKS", "MAX_JUMPS", "climb", "fail_step", "loop_end", "maybe_fail_step",
           "record_post_mortem", "rollback"]
