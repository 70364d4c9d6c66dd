"""Assembling one agent run: the model clients, the memory bank, the trace recorder and the
Orchestrator over a driver — the same way for ``omg-agent run``, the demo and the bench.

:func:`open_agent` enters everything it opens into the caller's ``ExitStack`` (closed with
it) and returns the Orchestrator, ready for ``run(task)``.

It owns the run's :class:`~omg_agent.core.secrets.SecretVault` (issue 9: secrets stay out of
every artifact): filled from the task's ``{{secret:NAME=VALUE}}`` / "password X" wording,
``Settings.secrets`` and the API key, then shared by everything that lets text out — both
model clients (requests), the trace recorder (trace, result, answer, report), a log filter
on every handler for the run, the driver wrapper that reveals placeholders for typing and
learns password fields at execution time, and the ``ask_user`` callback, which adds an
answer to a question about a password, code or PIN. A ``{{secret:NAME}}`` in the task that
no source gives is refused here, before any device or model is touched.

Every task passes :func:`check_task` here too: at most :data:`MAX_TASK_CHARS` characters.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from omg_agent.brain.dialects import adapt_settings
from omg_agent.brain.llm import LLMClient
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.orchestrator import Orchestrator
from omg_agent.brain.ports import LearnedSteps
from omg_agent.config import Settings
from omg_agent.core.contracts import TaskStep
from omg_agent.core.observation import Observation
from omg_agent.core.secrets import Binding, SecretVault, placeholder
from omg_agent.drivers.base import Driver
from omg_agent.drivers.secret_typing import SecretTyping
from omg_agent.errors import ConfigError
from omg_agent.guards.authorisation import parse_allow
from omg_agent.guards.choke import ChokePoint, bind
from omg_agent.guards.confirmation import ConfirmationChannel, MaskingChannel
from omg_agent.guards.gatekeeper import GateKeeper
from omg_agent.guards.provenance import word_authorisations
from omg_agent.guards.sensitive import Gate
from omg_agent.trace.logmask import masking_logs

log = logging.getLogger(__name__)
MIN_API_KEY = 8
# A plain-language task, with room for a pasted list: longer is a file, not a task (and
# every turn's prompt carries it).
MAX_TASK_CHARS = 10_000


def check_text(text: str, what: str = "the task") -> None:
    """Raise :class:`ConfigError` when ``text`` holds bytes that did not decode in the
    locale (Python keeps them as lone surrogates: a UTF-8 task typed on a GBK terminal, or
    in a strict C locale): no file, prompt or trace could hold it, so it is refused before
    anything is written."""
    bad = next((i for i, ch in enumerate(text) if "\ud800" <= ch <= "\udfff"), None)
    if bad is not None:
        raise ConfigError(
            f"{what} holds bytes that are not text in this terminal's encoding (at character "
            f"{bad + 1}): set a UTF-8 locale (e.g. LC_ALL=C.UTF-8) or type it in the "
            "terminal's own encoding")


def check_task(task: str) -> None:
    """Raise :class:`ConfigError` when ``task`` is longer than :data:`MAX_TASK_CHARS` or
    does not decode (:func:`check_text`)."""
    check_text(task)
    if len(task) > MAX_TASK_CHARS:
        raise ConfigError(f"the task is {len(task):,} characters long; at most "
                          f"{MAX_TASK_CHARS:,} are accepted: say what to do in fewer words")


def open_agent(stack: ExitStack, driver: Driver, settings: Settings, task: str, *,
               run_dir: Path | None = None, memory_path: Path | None = None,
               long_term: bool = False, session: str | None = None,
               ask_user: Callable[[str], str | None] | None = None,
               on_progress: Callable[[Any], None] | None = None,
               confirm: ConfirmationChannel | None = None,
               secrets: SecretVault | None = None, resume: bool = False,
               macros: Any = None, checkpoint: str | None = None,
               learned: LearnedSteps | None = None,
               route: Callable[[TaskStep], str | None] | None = None,
               safe_point: Callable[[], None] | None = None,
               on_notice: Callable[[str], None] | None = None,
               dry_run: bool = False, words_grant: bool = True) -> Orchestrator:
    """An Orchestrator for ``task`` on ``driver``; with ``run_dir`` it records a trace there.
    ``memory_path`` None keeps the memory bank in memory. ``confirm`` is where the
    gate and the driver's choke point ask for a yes (None: nobody — the run stops resumable).
    ``secrets``: the run's vault from :func:`run_secrets`, masking the logs (set up once by
    :func:`omg_agent.taskrun.open_agent`, else here). ``resume`` goes on in ``run_dir``.
    ``macros`` (a :class:`~omg_agent.macros.MacroSession`) lets the operator be offered
    macros for repeated work. ``checkpoint`` (a device serial, with ``run_dir``) saves the
    run's state there at every turn boundary (:class:`~omg_agent.brain.resume.RunCheckpoint`)
    so an interrupted run can be resumed. ``learned`` offers a human's steps before the
    model; ``route`` switches each step's device; ``safe_point`` is called at the top of
    every turn and after every model reply (the CLI's Ctrl-C check; the trace's disk check
    joins it); ``on_notice`` hears each retry of a model request (already masked);
    ``words_grant`` False: the task's words grant nothing (:mod:`omg_agent.taskrun`)."""
    check_task(task)
    settings = adapt_settings(settings)  # a model dialect runs flat (brain/dialects)
    if secrets is None:
        secrets = run_secrets(task, settings)
        stack.enter_context(masking_logs(secrets))
    driver = SecretTyping(driver, vault := secrets)
    attempt = None if safe_point is None else _on_attempt(safe_point)
    notice = None if on_notice is None else (lambda text: on_notice(vault.mask(text)))
    planner = stack.enter_context(LLMClient(settings, "planner", secrets=vault,
                                            on_attempt=attempt, on_notice=notice))
    operator = stack.enter_context(LLMClient(settings, "operator", secrets=vault,
                                             on_attempt=attempt, on_notice=notice))
    memory = stack.enter_context(MemoryBank(memory_path, session or uuid.uuid4().hex[:12],
                                            long_term=long_term))
    recorder = saver = None
    if run_dir is not None:
        from omg_agent.trace.recorder import TraceRecorder

        recorder = stack.enter_context(TraceRecorder(run_dir, task=task, secrets=vault,
                                                     resume=resume))
        if checkpoint is not None:
            from omg_agent.brain.resume import RunCheckpoint

            saver = RunCheckpoint(run_dir, checkpoint, memory, recorder, mask=vault.scrub,
                                  dry_run=dry_run, words_grant=words_grant)
    if safe_point is not None and recorder is not None:  # the disk's trouble stops it too
        safe_point = _both(safe_point, recorder.check)
    return Orchestrator(driver, planner, operator, memory, settings, recorder, ask_user,
                        on_progress=on_progress, gatekeeper=stack.enter_context(bind(  # choke
                            driver, gatekeeper(settings, task, confirm, driver.observe,
                                               words_grant=words_grant, secrets=vault),
                            vault.mask)),
                        secrets=vault, macros=macros, learned=learned, route=route,
                        before_turn=safe_point, checkpoint=saver)


def _on_attempt(check: Callable[[], None]) -> Callable[[Any], None]:
    def on_attempt(record: Any) -> None:
        check()
    return on_attempt


def _both(first: Callable[[], None], then: Callable[[], None]) -> Callable[[], None]:
    def check() -> None:
        first()
        then()
    return check


def run_secrets(task: str, settings: Settings, vault: SecretVault | None = None
                ) -> SecretVault:
    """``vault`` (or a new one) holding the task's and the settings' secrets, each bound
    where the user said (``settings.bound_secrets``) or to the apps ``task`` names, and
    the API key masked but never typeable. Raises :class:`ConfigError` naming a
    ``{{secret:NAME}}`` of the task (or a binding) that none of them gives (and the names
    that are known): it could never be typed."""
    vault = vault if vault is not None else SecretVault()
    for name, value in settings.secrets.items():
        vault.add(name, value.get_secret_value())
    vault.add_from_task(task)
    vault.task = task or None  # no task (a flow, the Python API): any password field
    key = settings.api_key.get_secret_value() if settings.api_key is not None else ""
    if len(key) >= MIN_API_KEY:  # a placeholder key ("x", "none") is no secret to hide
        vault.hide("api_key", key)
    unknown = vault.unknown(task)
    unbound = [n for n in settings.bound_secrets if n not in vault.typeable]
    if unknown or unbound:
        known = ", ".join(sorted(vault.typeable)) or "none"
        first = (unknown or unbound)[0]
        what = ("the task uses " + ", ".join(placeholder(n) for n in unknown) if unknown
                else "--secret binds " + ", ".join(unbound))
        raise ConfigError(
            f"{what} but no such secret is given (known: {known}); give it with --secret "
            f"{first}=… or OMG_SECRET_{first.upper()}")
    for name, place in settings.bound_secrets.items():
        app, _, field = place.partition(":")
        vault.bind(name, Binding(app.strip(), field.strip() or None))
    return vault


def choke_point(settings: Settings, serial: str = "") -> ChokePoint:
    """The choke point a composition root installs in every driver it builds
    (:mod:`omg_agent.guards.choke`): the settings' gate with nobody to ask — every sensitive
    input they do not pre-authorise is held — until a run or a call binds its own keeper."""
    return ChokePoint(gatekeeper(settings, "", None), serial=serial)


def gatekeeper(settings: Settings, task: str, confirm: ConfirmationChannel | None,
               observe: Callable[[], Observation] | None = None, *,
               words_grant: bool = True, secrets: SecretVault | None = None
               ) -> GateKeeper | None:
    """The run's gate: what the task text (only its limits unless ``words_grant``:
    :func:`~omg_agent.guards.provenance.word_authorisations`) and ``settings.allow``
    pre-authorise, and who is asked for the rest (``None`` when the settings switch the
    gate off). With the run's ``secrets`` the questions are shown masked, and a message
    holding a secret value is always asked before it is sent; ``observe`` reads the screen
    again after a human's answer (a yes is to what the question showed)."""
    if not settings.gate:
        return None
    try:
        allowed = parse_allow([settings.allow]) if settings.allow else []
    except ValueError as exc:
        raise ConfigError(f"allow: {exc}") from None
    words = word_authorisations(task, grant=words_grant)
    if secrets is None:
        return GateKeeper(Gate([*words, *allowed]), confirm, task, observe=observe)
    vault = secrets
    shown = None if confirm is None else MaskingChannel(confirm, vault.mask)
    return GateKeeper(Gate([*words, *allowed], secret_in=lambda t: vault.mask(t) != t,
                           text_length=lambda t: len(vault.reveal(t))), shown, task,
                      observe=observe)
