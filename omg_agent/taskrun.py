"""The composition root: one task run, assembled in one place for ``omg-agent run``, the MCP
server and the Python API (issues 26, 28).

:func:`open_secrets` sets up the run's secrets and log masking, once, before anything shows
the task (the lease, the run folder's name). :func:`open_agent` then builds the whole run
on a :class:`RunDevice` from the caller's :class:`Hooks` — the gate, the learned takeover
steps, the route across devices, macros, the checkpoint, the Ctrl-C and disk checks — and
returns an :class:`Agent`; nothing is set on the orchestrator afterwards. The agent starts
a task (saved first, then through the replay cache), goes on with a saved run (its state
file holds everything a resume needs) and gives the result as shown (masked, with the
resume hint).

Who wrote the task decides whether its words grant (:func:`words_grant`, issue 35): the
CLI's task argument is the user's; an MCP client's or a Python caller's is put to the human
once before the run, or grants nothing. The decision is saved with the run's state.

The callers keep what is theirs: the CLI its live view, Ctrl-C and mirror; the MCP server
its progress notifications and elicitation; the Python API its callbacks. This module sits
above the brain, flows and hitl (it wires them) and below the CLI, MCP and Python API.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omg_agent.errors import ConfigError
from omg_agent.guards.provenance import WordsFrom

if TYPE_CHECKING:
    from omg_agent.brain.orchestrator import Orchestrator
    from omg_agent.brain.resume import SavedRun
    from omg_agent.brain.run_state import Progress, RunResult
    from omg_agent.config import Settings
    from omg_agent.core.contracts import TaskStep
    from omg_agent.core.secrets import SecretVault
    from omg_agent.drivers.base import Driver
    from omg_agent.guards.confirmation import ConfirmationChannel


class UnclearAnswer(ConfigError):
    """An answer to a held action that is neither yes nor no (the CLI's exit 2)."""


@dataclass(frozen=True)
class RunDevice:
    """The device a run drives: its driver, and the serial its state file names."""

    driver: Driver
    serial: str
    dry: bool = False  # --dry-run: nothing is sent, and its saved state never resumes


@dataclass(frozen=True)
class Hooks:
    """What the caller brings to a run; every part may be left out."""

    ask: Callable[[str], str | None] | None = None  # the agent's questions (None: stop)
    confirm: ConfirmationChannel | None = None  # the gate's (None: a held action stops)
    on_progress: Callable[[Progress], None] | None = None  # every turn (already masked)
    on_notice: Callable[[str], None] | None = None  # a model request's retry (masked)
    safe_point: Callable[[], None] | None = None  # Ctrl-C: each turn and model reply
    route: Callable[[TaskStep], str | None] | None = None  # several devices: each step's
    macros: Any = None  # a macros.MacroSession: macros offered for repeated work
    learn: bool = True  # a human's takeover steps offered before the model (issue 16)
    use_cache: bool = True  # the replay cache (issue 15)


def open_secrets(stack: ExitStack, task: str, settings: Settings) -> SecretVault:
    """The run's secrets (:func:`omg_agent.brain.agent.run_secrets`), masked in every log
    line from here to the end of ``stack``: set up once per run, first."""
    from omg_agent.brain.agent import run_secrets
    from omg_agent.trace.logmask import masking_logs

    secrets = run_secrets(task, settings)
    stack.enter_context(masking_logs(secrets))
    return secrets


def open_agent(stack: ExitStack, settings: Settings, device: RunDevice, hooks: Hooks, *,
               task: str, run_dir: Path, secrets: SecretVault, words_from: WordsFrom,
               saved: SavedRun | None = None) -> Agent:
    """The whole run of ``task`` on ``device`` (closed with ``stack``): a trace and a
    checkpoint in ``run_dir``, ``secrets`` from :func:`open_secrets`, and, for a resume,
    the ``saved`` run's memory back in the bank. ``words_from`` says who wrote ``task``:
    ``human`` (the CLI's task argument) or ``client`` (an MCP client, a Python caller) —
    see :func:`words_grant`."""
    from omg_agent.brain.agent import open_agent as open_brain
    from omg_agent.guards.confirmation import MaskingChannel

    learned = None
    if hooks.learn:
        from omg_agent.hitl.learn import LEARNED_DIR, LearnedStore, Learner

        learned = Learner(LearnedStore(settings.runs_dir / LEARNED_DIR), secrets,
                          source_run=str(run_dir))
    progress = hooks.on_progress
    shown = None if hooks.confirm is None else MaskingChannel(hooks.confirm, secrets.mask)
    grant, asked = words_grant(task, words_from, settings, shown, saved)
    orchestrator = open_brain(
        stack, device.driver, settings, task, run_dir=run_dir,
        memory_path=settings.memory_path, long_term=settings.long_term_memory,
        resume=saved is not None, session=(saved.session or None) if saved else None,
        checkpoint=device.serial, dry_run=device.dry, macros=hooks.macros, ask_user=hooks.ask,
        confirm=hooks.confirm, secrets=secrets, learned=learned, route=hooks.route,
        safe_point=hooks.safe_point, on_notice=hooks.on_notice, words_grant=grant,
        on_progress=None if progress is None else lambda p: progress(secrets.scrub(p)))
    if asked is not None and orchestrator.recorder is not None:
        orchestrator.recorder.record_event("task_permissions", asked=secrets.mask(asked),
                                           granted=grant)
    if saved is not None:
        from omg_agent.brain.resume import restore_memory
        from omg_agent.brain.run_state import caught_up

        restore_memory(orchestrator.memory, saved.memory)
        caught_up(saved.state, orchestrator.recorder.last_step)
    return Agent(orchestrator, learned, run_dir, secrets, hooks.use_cache)


def with_allow(settings: Settings, allow: str | Sequence[str]) -> Settings:
    """``settings`` with ``allow`` (``--allow`` items, a caller's explicit grant) added to
    what they allow; a bad item raises :class:`ConfigError` naming what is accepted."""
    items = [i for i in ([allow] if isinstance(allow, str) else allow) if i.strip()]
    if not items:
        return settings
    from omg_agent.guards.authorisation import parse_allow

    try:
        parse_allow(items)
    except ValueError as exc:
        raise ConfigError(f"allow: {exc}") from None
    joined = ",".join([settings.allow, *items] if settings.allow else items)
    return type(settings).model_validate({**settings.model_dump(), "allow": joined})


def words_grant(task: str, words_from: WordsFrom, settings: Settings,
                confirm: ConfirmationChannel | None, saved: SavedRun | None
                ) -> tuple[bool, str | None]:
    """Whether the permissions ``task``'s words state grant (the one rule:
    :mod:`omg_agent.guards.provenance`), and the question put to the human for it, if one
    was. A resumed run keeps what its start decided; a human's words grant; a client's
    are put to the human once, here, before the run acts — with nobody to ask (or a no)
    they grant nothing, and each such action is asked or held when it comes."""
    if saved is not None:
        return saved.words_grant, None
    if words_from == "human":
        return True, None
    from omg_agent.guards.authorisation import parse_allow
    from omg_agent.guards.provenance import asks_request, run_asks

    try:
        allowed = parse_allow([settings.allow]) if settings.allow else []
    except ValueError:
        allowed = []  # the gate itself names the bad --allow
    asks = run_asks(task, allowed)
    if not asks:
        return False, None
    request = asks_request(asks, task)
    if confirm is None:
        return False, request.describe
    return confirm.confirm(request) is True, request.describe


@dataclass(frozen=True)
class Agent:
    """One assembled run (:func:`open_agent`)."""

    orchestrator: Orchestrator
    learned: Any  # the hitl Learner, when the run learns (the mirror records into it)
    run_dir: Path
    secrets: SecretVault
    use_cache: bool

    @property
    def recorder(self) -> Any:
        return self.orchestrator.recorder

    def begin(self, task: str, plan: Path | None = None) -> RunResult:
        """Run a new task: saved first (a kill while planning is resumable too), then
        through the replay cache."""
        from omg_agent.brain.budget import StepBudget
        from omg_agent.brain.run_state import RunState
        from omg_agent.flows.cache import run_cached

        o = self.orchestrator
        if o.checkpoint is not None:
            o.checkpoint.save(RunState(task, StepBudget(o.settings.max_steps)),
                              plan_file=str(plan.resolve()) if plan is not None else None)
        return run_cached(o.run, o.ports, task, plan, runs_dir=o.settings.runs_dir,
                          enabled=self.use_cache)

    def go_on(self, saved: SavedRun, answer: str | None) -> RunResult:
        """Continue a saved run from its state: an interrupted one, or one waiting for
        ``answer``."""
        from omg_agent.brain.resume import continue_interrupted

        if answer is None:
            return continue_interrupted(self.orchestrator, saved)
        return self.orchestrator.resume(saved.state, answer)

    def shown(self, result: RunResult) -> RunResult:
        """The result as shown: masked, and for a failed run that can go on from its last
        turn boundary (device lost, model down), the command that does. (``state.json``
        was saved at the last turn boundary, which for a run waiting for a human is its
        stop.)"""
        run_dir = self.run_dir
        if "RUN_DIR" in result.next_hint:  # the resume command as the user types it
            result = replace(result, next_hint=result.next_hint.replace(
                "RUN_DIR", shlex.quote(str(run_dir))))
        checkpoint = self.orchestrator.checkpoint
        if result.status == "failed" and checkpoint is not None and checkpoint.retryable:
            result = replace(result, next_hint=f"{result.next_hint}; then go on from the "
                                               f"last turn: omg-agent run --resume {run_dir}")
        return self.secrets.scrub(result)


def saved_run(run_dir: Path, answer: str | None, *, flag: str = "answer") -> SavedRun:
    """The saved state of ``run_dir``, checked against ``answer``: an interrupted run goes
    on without one, a stopped run needs one, and a held action needs a clear yes or no
    (:class:`UnclearAnswer` otherwise: nothing resumes on an unclear yes). A no is written
    into the run's state here, before anything else can fail, and a yes to an action the
    user said no to is refused (:func:`~omg_agent.brain.held.record_no`). ``flag`` is how
    the caller's user gives the answer (``--answer`` on the command line)."""
    from omg_agent.brain.resume import load_state
    from omg_agent.guards.answers import read_answer, unclear

    saved = load_state(run_dir)
    if saved.dry_run:  # its yes would pay, send or delete for real what was only rehearsed
        raise ConfigError(f"{run_dir} was a dry run: nothing of it is carried out — run the "
                          "task again without --dry-run")
    if saved.interrupted and answer is not None:
        raise ConfigError(f"{run_dir} was interrupted, not stopped for an answer: resume it "
                          f"without {flag}")
    if not saved.interrupted and answer is None:
        raise ConfigError(f"{run_dir} waits for an answer to: "
                          f"{saved.state.dialogue.pending or '?'} — give it with {flag} "
                          "(yes / no for a held action)")
    if answer is not None and saved.state.held and read_answer(answer) is None:
        raise UnclearAnswer(f"{flag}: {unclear(answer)}")
    from omg_agent.brain.held import record_no, said_no_to

    held = saved.state.held
    said = read_answer(answer) if answer is not None else None
    if held is not None and said == "yes" and said_no_to(run_dir, held):
        raise ConfigError(f"the user already said no to: {held.describe} — a later yes "
                          "does not undo it; start the task again")
    if held is not None and said == "no":  # written before anything else can fail
        record_no(run_dir)
    return saved
