"""Macros inside a run: watch the operator's turns, offer a macro, run it when accepted.

The operator (L2) holds an optional :class:`MacroSession` and calls it at three points —
the whole hook (issue 15):

* :meth:`MacroSession.watch` after each turn: the turn's executed actions join the run's
  acts, and the detector (:func:`~omg_agent.macros.detect.detect`) looks at the tail;
* :meth:`MacroSession.offer` while writing the next prompt: after two repetitions, a note
  naming the macro, what it does and how to accept it (a ``macro`` action);
* :func:`run_requested` when the reply holds a ``macro`` action: the runner plays it and
  the turn reports what it did. A stopped macro hands control back with the report.

Offers learned here can be kept (``store``), so a later run on the same app and screen size
starts with them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from omg_agent.core.actions import Action, RunMacro, dump_action
from omg_agent.core.observation import Observation
from omg_agent.core.results import Failure, FailureKind
from omg_agent.drivers.base import ActionOutcome, Driver, ExecResult
from omg_agent.drivers.wrapper import shell_of
from omg_agent.durable import aside
from omg_agent.errors import DiskTrouble
from omg_agent.macros.detect import Act, Detection, acts_of_turn, detect
from omg_agent.macros.items import container_of
from omg_agent.macros.model import Macro, Stop
from omg_agent.macros.runner import MacroReport, MacroRunner, Shell
from omg_agent.macros.store import MacroStore

log = logging.getLogger(__name__)
OFFER_HEAD = "Macro offer"
NO_SESSION = "no macro is offered in this run"


class MacroSession:
    """One run's macro watcher and player. ``shell`` is the driver's shell stream (found
    with :func:`shell_of` when not given; without one, chunks go through ``execute``)."""

    def __init__(self, driver: Driver, *, shell: Shell | None = None,
                 store: MacroStore | None = None, min_repeats: int = 2) -> None:
        self.driver = driver
        self.shell = shell if shell is not None else shell_of(driver)
        self.store = store
        self.min_repeats = min_repeats
        self.acts: list[Act] = []
        self.offered: dict[str, Macro] = {}
        self.reports: list[MacroReport] = []
        self.trouble: OSError | None = None  # the disk refused to keep a macro that ran

    def watch(self, obs: Observation, executed: ExecResult | None) -> None:
        """Add a turn's executed actions."""
        if executed is None:
            return
        # actions after a screen change in the bundle acted on the screen the driver saw
        # last: use it for those the turn's screen does not show
        later = getattr(self.driver, "last_observation", None)
        for outcome in executed.outcomes:
            screen = obs
            el = outcome.element
            if later is not None and el is not None and el not in obs.elements and any(
                    e.resource_id == el.resource_id and e.bounds == el.bounds
                    for e in later.elements):
                screen = later
            self.acts += acts_of_turn(screen, [outcome])

    def candidate(self, obs: Observation) -> Detection:
        """What the run's tail repeats, judged with the screen now (which shows whether
        the items acted on look done)."""
        seen = Act("observe", obs.package, obs.elements, None, "", obs.size)
        found = detect([*self.acts, seen], min_repeats=self.min_repeats)
        if found.macro is None and self.store is not None:
            stored = self.store.matching(obs)
            if stored is not None:
                return Detection(stored, "stored macro for this screen")
        return found

    def offer(self, obs: Observation) -> str:
        """The note offering a macro for this screen ('' when there is none)."""
        found = self.candidate(obs)
        macro = found.macro
        if macro is None or macro.app != obs.package or \
                container_of(obs.elements, macro.container) is None:
            return ""
        self.offered[macro.name] = macro
        done = f" Done by hand so far: {', '.join(found.acted)}." if found.acted else ""
        return (f"{OFFER_HEAD} {macro.name}: {macro.describe()}.{done} To do the next items "
                f'without a model call each, reply with the single action {{"type": "macro", '
                f'"name": "{macro.name}", "count": N}} (N = how many more items), or '
                f'"until_text" to stop at a text, or neither to go to the end of the list. '
                "It stops and hands back at anything unexpected.")

    def run(self, request: RunMacro, obs: Observation, gate: Any = None) -> MacroReport:
        macro = self.offered.get(request.name)
        if macro is None:
            raise KeyError(request.name)
        runner = MacroRunner(self.driver, self.shell, gate)
        report = runner.run(macro, Stop(count=request.count, until_text=request.until_text),
                            obs)
        self.reports.append(report)
        self.acts.clear()  # what the macro did is not a pattern to offer again
        if self.store is not None and report.sent:  # it acted: a refusal waits (run_requested)
            aside(self._kept, self.store.save, macro)
        return report

    def _kept(self, exc: OSError) -> None:
        log.warning("macros: the disk refused to keep %s (%s)", exc.filename or "a macro", exc)
        self.trouble = self.trouble or exc


    def run_requested(self, result: Any, actions: Sequence[Action], obs: Observation,
                      gate: Any = None, recorder: Any = None) -> Any:
        """The operator's hook for a reply holding a ``macro`` action (the operator holds
        this session and never imports this layer): :func:`run_requested`."""
        return run_requested(self, result, actions, obs, gate, recorder)


def run_requested(session: MacroSession | None, result: Any, actions: Sequence[Action],
                  obs: Observation, gate: Any = None, recorder: Any = None) -> Any:
    """Fill the operator's ``result`` (a ``TurnResult``) for a reply holding a ``macro``
    action: run it, or say why it cannot run. Returns ``result``."""
    request = next(a for a in actions if isinstance(a, RunMacro))
    result.actions = [dump_action(request)]
    why = (NO_SESSION if session is None else
           "a macro action must be alone in its bundle" if len(actions) > 1 else
           f"no macro named {request.name!r} was offered" if request.name not in
           session.offered else "")
    if why or session is None:
        result.failure = Failure(FailureKind.MODEL_REPORTED, f"macro: {why}")
        return result
    report = session.run(request, obs, gate)
    log.info("%s", report.summary())
    trouble, session.trouble = session.trouble, None
    if trouble is not None:  # the run's disk trouble: it stops at its next safe point
        keep = getattr(recorder, "refused", None)
        if keep is None:
            raise DiskTrouble(trouble)
        keep(trouble)
    if recorder is not None:
        recorder.record_event("macro", name=report.macro, completed=report.completed,
                              reason=report.reason, sent=list(report.sent),
                              verified=list(report.verified), chunks=report.chunks,
                              shell_calls=report.shell_calls, seconds=report.seconds)
    outcome = ActionOutcome(0, request, report.completed, report.summary())
    result.executed = ExecResult((outcome,), 0, report.shell_calls)
    result.results.append({"index": 0, "type": "macro", "ok": report.completed,
                           "detail": report.summary()})
    if not report.completed:
        kind = {"checkpoint": FailureKind.UNEXPECTED_DIALOG, "sensitive": FailureKind.DECLINED,
                "device": FailureKind.DEVICE_ERROR}.get(report.stopped_by,
                                                        FailureKind.CLICK_MISSED)
        result.failure = Failure(kind, report.summary())
    return result
