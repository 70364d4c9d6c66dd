"""The user's part of a run: questions (ASK_USER) and the gate's hold for a yes.

- :func:`ask` — the ASK_USER phase: the pending question (values filled in) goes to the
  ``ask_user`` callback; no answer (nobody there, or the callback declined) stops the run
  ``ASK_USER_PENDING``, resumable with ``--answer``.
- :func:`answered` — an answer came (now, or on resume): the answer to a question the
  operator flagged ``secret`` joins the vault before it is recorded (a yes, a no or a short
  word never does), and the run goes back to the planner (or, with none, the operator).
- :func:`hold` — the gate held a sensitive action: the run stops ``NEEDS_CONFIRMATION``,
  the action kept exactly (:class:`~omg_agent.brain.run_state.HeldAction`).
- :func:`confirmed` — the yes or no to the held action, on resume: a yes carries it out
  at once when the screen still shows it (:func:`omg_agent.brain.held.carry_out`, no model
  turn first); a no is recorded; the operator is told either way.
- :func:`refused` — the user said no to the gate while the run waited (terminal, mirror).
- :func:`refused_before` / :func:`insists` — the gate holds again what the user refused:
  never asked twice; the model is told the no stands, and a second try ends the run
  declined;
- :func:`declined` — the operator stops because the user said no: the run ends
  ``DECLINED`` with the user's words, what was done before, and how to do it after all.

A paused or declined run lists what it did so far from its own record
(:meth:`~omg_agent.brain.run_state.RunState.done_so_far`), not only the ticked steps.

The run's state lives in the :class:`~omg_agent.brain.run_context.RunContext`; the
``ask_user`` callback and the secret vault are passed in by the orchestrator.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable

from omg_agent.brain import held as held_action
from omg_agent.brain.budget import StopReport
from omg_agent.brain.run_context import RunContext
from omg_agent.brain.run_state import HeldAction, Refusal
from omg_agent.core.secrets import SecretVault
from omg_agent.guards.answers import is_yes, read_answer
from omg_agent.guards.gatekeeper import GateStop

INSIST = 2  # reaching again for a refused action: told once, the second time ends the run
TASK_SHOWN = 120  # a longer task is not quoted in a declined run's next step


def ask(run: RunContext, ask_user: Callable[[str], str | None] | None,
        secrets: SecretVault | None) -> None:
    """Ask the pending question; stop the run resumable when no answer comes."""
    s = run.state
    question = run.memory.substitute(s.dialogue.pending or "")
    s.dialogue = s.dialogue.ask(question, secret=s.dialogue.secret)
    run.event("ask_user", question=question)
    answer = ask_user(question) if ask_user is not None else None
    if answer is None:
        s.finish("ASK_USER_PENDING", "", StopReport(
            s.done_so_far(trace_of(run)), f"waiting for the user: {question}",
            "answer with: omg-agent run --resume RUN_DIR --answer \"…\""))
        return
    answered(run, answer, secrets)


def answered(run: RunContext, answer: str, secrets: SecretVault | None) -> None:
    """The user's answer to the pending question: recorded, then a fresh attempt."""
    s = run.state
    if secrets is not None:  # before the answer is recorded, logged or sent
        # a secret only when the operator's question asked for one — never a yes or a no
        secrets.note_answer(s.dialogue.pending or "", answer,
                            secret=s.dialogue.secret and read_answer(answer) is None)
    run.event("user_answer", question=s.dialogue.pending, answer=answer)
    if read_answer(answer) == "no":  # a no the operator may stop on (user_declined)
        s.refusal = Refusal(answer, s.dialogue.pending or "", "", len(s.records))
    s.dialogue = s.dialogue.answered(answer)
    s.note = ""
    s.new_attempt()
    s.outcome = s.outcome or "the operator needed the user's input"
    s.phase = "THINK" if s.predefined or run.plannerless else "REPLAN"


def hold(run: RunContext, held: HeldAction, question: str | None) -> None:
    """The gate held ``held``: stop until the user says yes or no."""
    s = run.state
    s.dialogue, s.held = s.dialogue.ask(question or held.describe), held
    run.event("needs_confirmation", step=held.step, action=held.describe)
    s.finish("NEEDS_CONFIRMATION", "", StopReport(
        s.done_so_far(trace_of(run)), f"waiting for the user's yes to: {held.describe}",
        "answer with: omg-agent run --resume RUN_DIR --answer yes (or no)"))


def confirmed(run: RunContext, held: HeldAction, answer: str) -> None:
    """The user's yes or no to the held action (on resume): a yes carries it out now."""
    s = run.state
    yes = is_yes(answer)  # the one answer rule; neither is refused before a resume
    run.event("user_confirmation", action=held.describe, answer=yes)
    s.dialogue, s.held = s.dialogue.answered(answer.strip() or ("yes" if yes else "no")), None
    s.phase = "THINK"
    if yes:
        held_action.carry_out(run, held)
        return
    s.refusal = Refusal(answer.strip() or "no", held.describe, held.cls, len(s.records))
    if run.gatekeeper is not None:
        run.gatekeeper.refuse(held.describe)
    s.note = (f"The user said no to: {held.describe}. Do not do it; find another way, or "
              "stop with user_declined.")


def refused(run: RunContext, stop: GateStop) -> None:
    """The user said no, while the run waited, to the action the gate asked about."""
    s = run.state
    said = stop.said or "no"  # the channel's record of it: never a no the user did not say
    s.refusal = Refusal(said, stop.request.describe, stop.request.cls, len(s.records))
    if run.gatekeeper is not None:
        run.gatekeeper.refuse(stop.request.describe)
    s.dialogue = s.dialogue.ask(stop.question).answered(said)


def trace_of(run: RunContext) -> tuple[dict[str, object], ...]:
    """The run's recorded step lines, for :meth:`RunState.done_so_far` (none without a
    recorder)."""
    return tuple(getattr(run.recorder, "turns", ()))


def refused_before(run: RunContext, stop: GateStop) -> bool:
    """Whether the gate holds exactly what the user already said no to in this run: asking
    again would hand a persistent model a second chance at the same payment."""
    refusal = run.state.refusal
    return refusal is not None and refusal.what == stop.request.describe


def insists(run: RunContext, stop: GateStop) -> bool:
    """Whether the model reaches for a refused action once too often: a second time after
    it was told the no stands, or in a way the gate would ask about again (a resumed run)."""
    if stop.answer is None or run.gatekeeper is None:
        return True
    return run.gatekeeper.refused.get(stop.request.describe, 0) >= INSIST


def declined(run: RunContext, why: str) -> bool:
    """The operator stops because the user said no (``why``: its words): the run ends
    ``DECLINED`` — only when the user did say no in this run (False: they did not)."""
    s = run.state
    refusal = s.refusal
    if refusal is None:
        return False
    run.event("declined", words=refusal.words, what=refusal.what, reason=why)
    s.finish("DECLINED", why, StopReport(
        s.done_so_far(trace_of(run)),
        f"the user declined: {_quoted(refusal.words)} (to: {refusal.what})",
        declined_hint(s.task, refusal)))
    return True


def _quoted(words: str) -> str:
    """The user's words in quotes; a channel's note in its parentheses ("(no clear answer
    in 3 tries)") is not a quote."""
    return words if words.startswith("(") and words.endswith(")") else f'"{words}"'


def just_refused(run: RunContext) -> bool:
    """The operator's turn just recorded is its first since the user said no (a model that
    cannot say ``user_declined`` — a dialect's "give up" — stops on the no this way)."""
    s = run.state
    return s.refusal is not None and s.refusal.turn == len(s.records) - 1


def declined_hint(task: str, refusal: Refusal) -> str:
    """An honest next step after a no: what was not done, and how to do it after all."""
    again = "omg-agent run " + (shlex.quote(task) if len(task) <= TASK_SHOWN else "TASK")
    how = (f"{again} --allow {refusal.cls} (or run it again and answer yes when asked)"
           if refusal.cls else f"{again} and answer yes when asked")
    return f"what the user refused was not done. To do it after all: {how}"


__all__ = ["answered", "ask", "confirmed", "declined", "declined_hint", "hold",
           "insists", "just_refused", "refused", "refused_before"]
