"""The user's part of a run: questions (ASK_USER) and the gate's hold for a yes.

- :func:`ask` — the ASK_USER phase: the pending question (values filled in) goes to the
  ``ask_user`` callback; no answer (nobody there, or the callback declined) stops the run
  ``ASK_USER_PENDING``, resumable with ``--answer``.
- :func:`answered` — an answer came (now, or on resume): secrets in it join the vault
  before it is recorded, and the run goes back to the planner (or, with none, the operator).
- :func:`hold` — the gate held a sensitive action: the run stops ``NEEDS_CONFIRMATION``.
- :func:`confirmed` — the yes or no to the held action, on resume: a yes approves it at
  the gate, and the operator is told either way.

The run's state lives in the :class:`~omg_agent.brain.run_context.RunContext`; the
``ask_user`` callback and the secret vault are passed in by the orchestrator.
"""

from __future__ import annotations

from collections.abc import Callable

from omg_agent.brain.budget import StopReport
from omg_agent.brain.run_context import RunContext
from omg_agent.core.secrets import SecretVault
from omg_agent.guards.answers import is_yes


def ask(run: RunContext, ask_user: Callable[[str], str | None] | None,
        secrets: SecretVault | None) -> None:
    """Ask the pending question; stop the run resumable when no answer comes."""
    s = run.state
    question = run.memory.substitute(s.dialogue.pending or "")
    s.dialogue = s.dialogue.ask(question)
    run.event("ask_user", question=question)
    answer = ask_user(question) if ask_user is not None else None
    if answer is None:
        s.finish("ASK_USER_PENDING", "", StopReport(
            tuple(s.todo.done()), f"waiting for the user: {question}",
            "answer with: omg-agent run --resume RUN_DIR --answer \"…\""))
        return
    answered(run, answer, secrets)


def answered(run: RunContext, answer: str, secrets: SecretVault | None) -> None:
    """The user's answer to the pending question: recorded, then a fresh attempt."""
    s = run.state
    if secrets is not None:  # before the answer is recorded, logged or sent
        secrets.note_answer(s.dialogue.pending or "", answer)
    run.event("user_answer", question=s.dialogue.pending, answer=answer)
    s.dialogue = s.dialogue.answered(answer)
    s.note = ""
    s.new_attempt()
    s.outcome = s.outcome or "the operator needed the user's input"
    s.phase = "THINK" if s.predefined or run.plannerless else "REPLAN"


def hold(run: RunContext, step_number: int, held: str, question: str | None) -> None:
    """The gate held ``held`` (its description): stop until the user says yes or no."""
    s = run.state
    s.dialogue, s.held = s.dialogue.ask(question or held), held
    run.event("needs_confirmation", step=step_number, action=held)
    s.finish("NEEDS_CONFIRMATION", "", StopReport(
        tuple(s.todo.done()), f"waiting for the user's yes to: {held}",
        "answer with: omg-agent run --resume RUN_DIR --answer yes (or no)"))


def confirmed(run: RunContext, held: str, answer: str) -> None:
    """The user's yes or no to the held action: the gate approves it on a yes."""
    s = run.state
    yes = is_yes(answer)  # the one answer rule; neither is refused before a resume
    run.event("user_confirmation", action=held, answer=yes)
    s.dialogue, s.held = s.dialogue.answered("yes" if yes else "no"), None
    if yes and run.gatekeeper is not None:
        run.gatekeeper.approve(held)
    s.note = (f"The user confirmed: {held}. Go ahead with it." if yes else
              f"The user said no to: {held}. Do not do it; find another way or stop.")
    s.phase = "THINK"


__all__ = ["answered", "ask", "confirmed", "hold"]
