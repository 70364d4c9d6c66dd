"""The step budget of one run (DESIGN.md §3): what counts, when it is checked, what it says.

Counted (issue 27: one step per model turn, in every planning mode): every decision of
the operator (each valid model *reply* —
:attr:`~omg_agent.brain.call_record.CallRecord.counts_as_step`) — the action bundle it carries is
part of that turn, not a second step — and every replan; and each ``move`` the
machinery makes on its own, with no model call: a loop-ladder rung (wait, offset re-tap,
back) and a rollback's back press, so rules that act without a model cannot run forever.
Not counted: the one plan at task start, transport failures that got no reply, a reply
refused by validation but the last of a call (issue 40: retried, at most
``parse_attempts`` times a call — only a call that got no valid reply costs a step), the
action the user said yes to (carried out after the turn that asked for it), and the time
spent waiting for the user. The operator is told the steps left each turn.

The orchestrator calls :meth:`StepBudget.check` at the top of every turn and
:meth:`StepBudget.charge` before anything counted happens; a model call is given at most
``parse_attempts`` reply attempts and charges the valid one (or the last refused one), so
the limit is never passed by even one counted operation. On exhaustion
:class:`~omg_agent.errors.BudgetExhausted` carries the three-part message: what was done,
why it stopped, what to do next (:func:`exhaustion_report`).
What was done comes from the run's recorded turns as well as its ticked plan steps
(:func:`done_so_far`), so a run stopped half-way through one long step (195 of 200 posts
liked) says so, whatever stopped it (budget, deadline, Ctrl-C, a full disk, an error).

A run may also have a wall-clock deadline (``run_timeout_s``, ``run --timeout``): a
:class:`RunDeadline` started by :meth:`StepBudget.start_clock` when the run (or its resumed
part) begins. The same :meth:`StepBudget.check` at the top of every turn raises
:class:`~omg_agent.errors.DeadlinePassed` once it has passed, and the model clients get the
deadline too, so a request in flight (and a wait before a retry) never outlasts it.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from omg_agent.brain.call_record import CallRecord
from omg_agent.brain.llm import LLMClient
from omg_agent.errors import BudgetExhausted, DeadlinePassed

log = logging.getLogger(__name__)

StepKind = Literal["decision", "replan", "move"]
MAX_DONE_ITEMS = 8  # distinct actions listed one by one; the rest are counted together
_VERBS = {"tap": "tapped", "long_press": "long-pressed", "double_tap": "double-tapped",
          "type": "typed", "launch": "launched", "swipe": "swiped", "key": "pressed",
          "back": "pressed back", "home": "pressed home", "mem_save": "saved",
          "macro": "ran macro"}


@dataclass(frozen=True)
class StopReport:
    """The three parts every stopped run reports."""

    done: tuple[str, ...]
    stopped_because: str
    next_hint: str

    def message(self) -> str:
        done = "\n".join(f"  - {d}" for d in self.done) or "  - nothing yet"
        return (f"Done so far:\n{done}\nStopped because: {self.stopped_because}\n"
                f"Next: {self.next_hint}")


class RunDeadline:
    """The wall-clock limit of one run: ``limit_s`` seconds from when it was made."""

    def __init__(self, limit_s: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        if not limit_s > 0:
            raise ValueError(f"a run deadline must be a positive number of seconds, not "
                             f"{limit_s!r}")
        self.limit_s = limit_s
        self._clock = clock
        self.ends = clock() + limit_s

    def remaining(self) -> float:
        """Seconds left (0 once passed)."""
        return max(0.0, self.ends - self._clock())

    @property
    def passed(self) -> bool:
        return self._clock() >= self.ends

    def check(self) -> None:
        """Raise :class:`DeadlinePassed` once the deadline has passed."""
        if self.passed:
            raise self.error()

    def error(self) -> DeadlinePassed:
        return DeadlinePassed(self.limit_s)


class StepBudget:
    """Counts steps against ``limit`` (and watches the run's deadline, when it has one);
    thread-unsafe, one per run."""

    def __init__(self, limit: int, deadline: RunDeadline | None = None) -> None:
        if limit < 1:
            raise ValueError("a step budget needs at least one step")
        self.limit = limit
        self.used = 0
        self.counts: Counter[str] = Counter()
        self.deadline = deadline

    def start_clock(self, timeout_s: float | None,
                    clients: Iterable[LLMClient] = ()) -> RunDeadline | None:
        """Start the run's deadline now (``None``: no deadline) and bound every request of
        ``clients`` by it; called when a run, or a resumed part of one, begins."""
        self.deadline = RunDeadline(timeout_s) if timeout_s is not None else None
        for client in clients:
            client.deadline = self.deadline
        return self.deadline

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.used)

    @property
    def exhausted(self) -> bool:
        return self.used >= self.limit

    def check(self) -> None:
        """Raise :class:`BudgetExhausted` when no step is left, :class:`DeadlinePassed` when
        the run's deadline has passed (top of every turn, and before anything counted)."""
        if self.exhausted:
            raise BudgetExhausted(self.used, self.limit, dict(self.counts))
        if self.deadline is not None:
            self.deadline.check()

    def charge(self, kind: StepKind) -> None:
        """Count one step of ``kind``; raises instead when none is left."""
        self.check()
        self.used += 1
        self.counts[kind] += 1
        log.debug("step %d/%d: %s", self.used, self.limit, kind)

    def attempts(self, wanted: int) -> int:
        """How many reply attempts a model call may make now: ``wanted`` once a step is
        left (only the valid reply is charged)."""
        self.check()
        return wanted

    def counter(self, kind: StepKind, attempts: int | None = None):
        """An ``on_attempt`` callback for :meth:`LLMClient.structured` counting replies: a
        valid one, or the last of ``attempts`` refused ones (a call that got no valid reply
        costs one step, so a model that never writes one still runs out of budget)."""

        def on_attempt(record: CallRecord) -> None:
            if record.counts_as_step or (record.kind == "reply" and attempts is not None
                                         and record.attempt >= attempts):
                self.charge(kind)

        return on_attempt


class CarriedOut(Protocol):
    """One turn of the run's record as :func:`done_so_far` reads it (a ``TurnRecord``)."""

    @property
    def step(self) -> int: ...
    @property
    def intent(self) -> str: ...
    @property
    def acted(self) -> bool: ...
    @property
    def failure(self) -> object | None: ...


DONE_SO_FAR_MOST = 8  # carried-out turns listed; older ones are counted, not listed


def done_so_far(steps: Sequence[tuple[str, bool]], turns: Iterable[CarriedOut], *,
                trace: Sequence[Mapping[str, Any]] = (),
                most: int = DONE_SO_FAR_MOST) -> tuple[str, ...]:
    """What a stopped run carried out, from its own record: the ticked plan steps
    (``steps``: each step's description and tick, in plan order), then what the turns on
    steps not ticked did on the device — the intent of each turn whose actions went through,
    repeats folded, the last ``most`` of them. A run stopped mid-step (waiting for a yes at
    the checkout) so lists its cart and checkout, not "nothing yet". With the run's
    ``trace`` (its recorded step lines) the device's actions are listed counted instead
    (:func:`actions_done`: ``tapped 'Like' ×195``)."""
    done = [description for description, ticked in steps if ticked]
    if trace:  # the trace's step lines: what the device carried out, counted
        return (*done, *actions_done(trace))
    carried: list[list[str | int]] = []  # [intent, times], oldest first
    for turn in turns:
        on_ticked = 0 < turn.step <= len(steps) and steps[turn.step - 1][1]
        if not turn.acted or turn.failure is not None or on_ticked or not turn.intent:
            continue
        if carried and carried[-1][0] == turn.intent:
            carried[-1][1] = int(carried[-1][1]) + 1
        else:
            carried.append([turn.intent, 1])
    lines = [f"{intent} ({times}×)" if int(times) > 1 else str(intent)
             for intent, times in carried]
    if len(lines) > most:
        earlier = len(lines) - most + 1
        lines = [f"… {earlier} earlier actions", *lines[-(most - 1):]]
    return (*done, *lines)


def exhaustion_report(limit: int, done: Sequence[str], pending: Sequence[str],
                      current: str | None) -> StopReport:
    """The stop report of a run that hit its step budget."""
    where = f" while working on '{current}'" if current else ""
    left = "; ".join(pending) or "checking that the task is finished"
    return StopReport(
        tuple(done),
        f"the step budget of {limit} steps was used up{where}",
        f"still to do: {left}. Run again with a larger budget (--max-steps {limit * 2}), or "
        "split the task into smaller tasks.")


def actions_done(turns: Iterable[Mapping[str, Any]]) -> tuple[str, ...]:
    """What a run did on the device, for its stop report: each action the device carried
    out (its result ``ok``), counted — ``tapped 'Like' ×195``,
    ``swiped up ×40``. ``turns`` are the run's recorded step lines (``actions``,
    ``results`` with the ``index`` of their action, and the ``elements`` an action may name
    by id), as :class:`~omg_agent.trace.recorder.TraceRecorder` keeps them in ``turns``."""
    counts: Counter[str] = Counter()
    for turn in turns:
        actions = list(turn.get("actions") or [])
        labels = {e.get("id"): e.get("text") or e.get("desc") or ""
                  for e in turn.get("elements") or [] if isinstance(e, Mapping)}
        for result in turn.get("results") or []:
            index = result.get("index") if isinstance(result, Mapping) else None
            if not isinstance(index, int) or not result.get("ok") or \
                    not 0 <= index < len(actions):
                continue
            said = _carried_out(actions[index], labels, str(result.get("landed") or ""))
            if said:
                counts[said] += 1
    ranked = counts.most_common()
    items = [f"{what} ×{n}" if n > 1 else what for what, n in ranked[:MAX_DONE_ITEMS]]
    if rest := sum(n for _, n in ranked[MAX_DONE_ITEMS:]):
        items.append(f"{rest} more action{'s' if rest != 1 else ''} on the device")
    return tuple(items)


def _carried_out(action: Any, labels: Mapping[Any, str], landed: str = "") -> str:
    """One carried-out action in words (``tapped 'Like'``), or "" for one that does nothing
    on the device (wait, done, ask_user); ``landed``: the element's own name, when the
    model named it by a text merged into it (a chat row: the contact, not its last line)."""
    if not isinstance(action, Mapping):
        return ""
    kind = str(action.get("type") or "")
    verb = _VERBS.get(kind)
    if verb is None:
        return ""
    if kind in ("back", "home"):
        return verb
    if kind == "launch":
        return f"{verb} {action.get('app') or action.get('package') or 'an app'}"
    if kind == "swipe":
        return f"{verb} {action.get('direction') or 'across the screen'}"
    if kind == "key":
        return f"{verb} {action.get('key') or action.get('keycode') or 'a key'}"
    if kind == "type":
        return f"{verb} '{action.get('text', '')}'"
    if kind == "mem_save":
        return f"{verb} {action.get('key') or 'a value'}"
    if kind == "macro":
        return f"{verb} {action.get('name') or ''}".rstrip()
    target = action.get("target")
    label = landed
    if isinstance(target, Mapping) and not label:
        label = str(target.get("text") or target.get("desc") or labels.get(target.get("id"))
                    or target.get("resource_id") or "")
    return f"{verb} '{label}'" if label else f"{verb} a point"
