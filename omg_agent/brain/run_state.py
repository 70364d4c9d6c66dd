"""The orchestrator's state in small parts, and the values a run returns.

Kept apart from :mod:`omg_agent.brain.orchestrator` and its phase modules (which own the
transitions) so the state machine reads as transitions only. Nothing here does I/O.

- :class:`Attempt` — the current try at one plan step (turns, consecutive failures, the
  screens seen, the last typed :class:`~omg_agent.core.results.Failure`); frozen, each
  transition returns a new one.
- :class:`Dialogue` — questions to the user and the answers; frozen.
- :class:`TurnRecord` — one operator turn as the prompts and post-mortems quote it.
- :class:`HeldAction` — the sensitive action the gate held, exactly as it would have run;
  :class:`Refusal` — the user's no (their words, to what).
- :class:`RunState` — holds those parts plus the plan, budget, turns, model usage and the
  run's ending: everything a resume needs (:mod:`.resume` saves it as ``state.json``);
  :func:`at_boundary` is the turn boundary's transition, :func:`caught_up` a resumed trace's.
- :class:`StepResult` — what :meth:`Orchestrator.step` returns: go on, or finished with the
  :class:`RunResult`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from omg_agent.brain.budget import StepBudget, StopReport, done_so_far
from omg_agent.brain.kept import KeptResults
from omg_agent.brain.planner import TodoList
from omg_agent.core.contracts import TaskStep
from omg_agent.core.observation import Observation, UIElement
from omg_agent.core.results import RECOVERY, Failure, FailureKind, PostMortem, Status
from omg_agent.core.todo import TodoItem, render_todo
from omg_agent.guards.ledger import Passage
from omg_agent.guards.spend_ledger import SpendLedger

Phase = Literal["PLAN", "THINK", "REPLAN", "ASK_USER", "DONE", "FAILED", "ASK_USER_PENDING",
                "INFEASIBLE", "NEEDS_CONFIRMATION", "DECLINED", "INTERRUPTED", "UNVERIFIED"]
_STATUS: dict[str, Status] = {"DONE": "done", "FAILED": "failed",
                              "ASK_USER_PENDING": "ask_user", "INFEASIBLE": "infeasible",
                              "NEEDS_CONFIRMATION": "needs_confirmation",
                              "DECLINED": "declined",  # the user said no: the run is over
                              "INTERRUPTED": "interrupted",  # Ctrl-C: --resume goes on
                              # the model says done; nothing in the run could check it
                              "UNVERIFIED": "unverified"}
FINAL_PHASES = tuple(_STATUS)  # the phases a run ends in


def phase_status(phase: str) -> Status:
    """The status a run that ended in ``phase`` reports."""
    return _STATUS[phase]
RESUMABLE = ("ASK_USER_PENDING", "NEEDS_CONFIRMATION")  # endings a human answer continues
_DIALOG_WORDS = ("no thanks", "close", "cancel", "dismiss", "allow", "deny", "ok")


@dataclass(frozen=True)
class Progress:
    """What a live display shows after each turn; the plan as a value (``plan``),
    rendered by :func:`~omg_agent.core.todo.render_todo`. ``acted_on`` is the screen the
    last action was decided on (a display may show it small; None when unknown); it is a
    reference, never copied, never saved."""

    phase: str
    plan: tuple[TodoItem, ...]
    step: str
    last_action: str
    steps_used: int
    steps_limit: int
    tokens_in: int
    tokens_out: int
    acted_on: Observation | None = field(default=None, compare=False, repr=False)

    @property
    def todo(self) -> str:
        """The plan as markdown (``- [x] 1. …``)."""
        return render_todo(self.plan)


@dataclass(frozen=True)
class RunResult:
    status: Status
    answer: str
    steps_used: int
    model_calls: int
    tokens_in: int
    tokens_out: int
    wall_s: float
    done: list[str]
    stopped_because: str
    next_hint: str
    question: str | None = None
    todo: str = ""
    post_mortems: list[dict[str, Any]] = field(default_factory=list)
    planner_calls: int = 0  # model calls of the planner role (part of model_calls)
    wait_turns: int = 0  # operator turns whose only action was a wait
    confirm_calls: int = 0  # planner calls that confirmed an operator's "done" (issue 27)
    tokens_cached: int = 0  # of tokens_in, served from the provider's prompt cache

    def summary(self) -> str:
        """The three-part stop message (what was done, why it stopped, what next)."""
        return StopReport(tuple(self.done), self.stopped_because, self.next_hint).message()

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class Continue:
    """The run goes on; ``phase`` is where it stands now."""

    phase: Phase


@dataclass(frozen=True)
class Finished:
    result: RunResult


StepResult = Continue | Finished


@dataclass(frozen=True)
class Attempt:
    """The current try at one plan step."""

    turns: int = 0
    failures: int = 0  # consecutive failed turns
    started: float = field(default_factory=time.monotonic)
    last_failure: Failure | None = None
    screens: tuple[str, ...] = ()  # screen hashes this attempt has seen, oldest first
    model_s: float = 0.0  # time spent waiting for the model: not the step's own time
    acted: bool = False  # device actions ran for this step (maybe in the previous step's turn)

    def after_turn(self, screen_hash: str, failure: Failure | None, *,
                   model_s: float = 0.0, acted: bool = False) -> Attempt:
        """One more turn: a failure adds to the run of failures, a success ends it."""
        return replace(self, turns=self.turns + 1, screens=(*self.screens, screen_hash),
                       failures=self.failures + 1 if failure else 0,
                       last_failure=failure or self.last_failure,
                       model_s=self.model_s + model_s, acted=self.acted or acted)

    def waited(self, model_s: float) -> Attempt:
        """Time spent waiting for a model outside a turn (the planner): not the step's."""
        return replace(self, model_s=self.model_s + model_s)

    def failed(self, failure: Failure) -> Attempt:
        """A failure that was not a turn (a claim the checks refused, no valid reply)."""
        return replace(self, failures=self.failures + 1, last_failure=failure)

    def elapsed(self, now: float | None = None) -> float:
        """The step's own time until ``now`` (a monotonic clock's reading; default: now):
        the phone's and the agent's, not the model's thinking (a slow endpoint must not
        time a step out)."""
        return (time.monotonic() if now is None else now) - self.started - self.model_s


@dataclass(frozen=True)
class Dialogue:
    """The questions asked of the user and their answers."""

    pending: str | None = None  # asked, not yet answered
    answers: tuple[tuple[str, str], ...] = ()
    fresh: tuple[str, str] | None = None  # the answer the planner has not seen yet
    secret: bool = False  # the pending question asks for a secret value (the operator said)

    def ask(self, question: str, *, secret: bool = False) -> Dialogue:
        return replace(self, pending=question, secret=secret)

    def answered(self, answer: str) -> Dialogue:
        qa = (self.pending or "", answer)
        return Dialogue(None, (*self.answers, qa), qa)

    def seen(self) -> Dialogue:
        return replace(self, fresh=None)

    def for_operator(self) -> str:
        return "\n".join(f"The user was asked {q!r} and answered: {a}"
                         for q, a in self.answers)


@dataclass(frozen=True)
class TurnRecord:
    """One operator turn as later prompts quote it; ``intent`` and ``acted`` say what it
    carried out on the device (for :func:`~omg_agent.brain.budget.done_so_far`)."""

    step: int
    summary: str
    screen_hash: str = ""
    failure: Failure | None = None
    intent: str = ""
    acted: bool = False

    def line(self, numbered: bool = True) -> str:
        """The history line; ``numbered``: led by its plan step (a run with one step, the
        whole task, says none — issue 40: every flat turn read "(step 1)")."""
        return f"(step {self.step}) {self.summary}" if numbered else self.summary


@dataclass(frozen=True)
class HeldAction:
    """The sensitive action the gate held, exactly as it would have run: ``action`` (its
    JSON dump, ``$vars`` filled in), the gate's ``describe`` and class, and what a yes must
    find again before it runs (:mod:`omg_agent.brain.held`): the target element's
    ``label``, its ``anchor`` (resource id, text, desc) and the ``amount`` the screen showed
    with it. ``step`` is the plan step (1-based) it was held on."""

    describe: str
    cls: str
    action: dict[str, Any]
    label: str = ""
    anchor: dict[str, str] = field(default_factory=dict)
    amount: str = ""
    package: str = ""
    step: int = 0
    fingerprint: str = ""  # what the yes is bound to (:mod:`omg_agent.guards.approvals`)
    rest: tuple[dict[str, Any], ...] = ()  # the bundle after it, anchored (issue 40)

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    @classmethod
    def of(cls, data: dict[str, Any]) -> HeldAction:
        fields = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        if isinstance(fields.get("rest"), list):
            fields["rest"] = tuple(a for a in fields["rest"] if isinstance(a, dict))
        return cls(**fields)


@dataclass(frozen=True)
class Refusal:
    """The user's no: their ``words``, ``what`` they refused (the question or the held
    action), for a held action its sensitive class, and ``turn``: the index in the run's
    turn records of the first operator turn after it."""

    words: str
    what: str
    cls: str = ""
    turn: int = 0


@dataclass
class RunState:
    """Everything one run knows; the parts above are values, swapped by transitions."""

    task: str
    budget: StepBudget
    phase: Phase = "PLAN"
    todo: TodoList = field(default_factory=lambda: TodoList(""))
    predefined: bool = False
    attempt: Attempt = field(default_factory=Attempt)
    dialogue: Dialogue = field(default_factory=Dialogue)
    records: list[TurnRecord] = field(default_factory=list)
    last_obs: Observation | None = None
    # the record of the last turn that acted and the screen it acted on: the next look
    # notes what the actions changed on that record (brain/effects), with the elements its
    # touches landed on (a tap anchored off screen lands on what the turn's screen lacked)
    effect_of: tuple[int, Observation, tuple[UIElement, ...]] | None = None
    retried: set[int] = field(default_factory=set)
    jumps: dict[int, int] = field(default_factory=dict)
    checkpoint: str = ""  # screen hash of the last verified step
    claim: str | None = None  # the operator's 'goal complete' answer awaiting confirmation
    outcome: str = ""  # what the last sub-task achieved, for the planner
    pending_pm: PostMortem | None = None  # the failed step's post-mortem, for the planner
    post_mortems: list[PostMortem] = field(default_factory=list)
    note: str = ""  # for the operator's next turn
    plan_repeats: int = 0  # replans identical to a plan already tried
    unproven_claims: int = 0  # "done" confirmations whose evidence the screen did not show
    held: HeldAction | None = None  # the sensitive action waiting for the user's yes
    refusal: Refusal | None = None  # the user's last no, when they said one
    own_todo: str = ""  # a plannerless operator's own checklist (markdown)
    # the operator's last reply wrote end checks: it expected its actions to finish the task
    # (a unified run auto-verifies only then, or when its checklist has nothing left open)
    checks_fresh: bool = False
    refused_checks: list[str] = field(default_factory=list)  # its end checks a claim failed
    kept: KeptResults = field(default_factory=KeptResults)  # scans, never dropped (issue 40)
    planned: bool = False  # a unified run's planner took over after a failed step
    planner_calls: int = 0
    wait_turns: int = 0
    confirm_calls: int = 0
    answer: str = ""
    report: StopReport | None = None
    turns: int = 0  # operator turns recorded so far (the trace's step numbers go on after)
    usage: tuple[int, int, int] = (0, 0, 0)  # model calls, tokens in, out (all processes)
    spent: SpendLedger = field(default_factory=SpendLedger)  # payments the gate let through
    # honest done (brain/baseline.py): each check's value when the run first saw what it
    # names, the elements its actions landed on, what the gate let go; ``seen``: the run's
    # earliest screens (elements only; the first and each app's first are saved)
    baseline: dict[str, bool] = field(default_factory=dict)
    touched: list[dict[str, str]] = field(default_factory=list)
    apps: dict[str, str] = field(default_factory=dict)  # app -> its first kept screen's hash
    passed: list[Passage] = field(default_factory=list)
    seen: list[Observation] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)  # objects the task lists, once shown
    toggled_at: float | None = None  # when the run last toggled a switch (monotonic; not saved)

    @property
    def planning(self) -> str | None:
        """The planning mode the run has switched to (``adaptive`` once a unified run's
        planner took over), or None: the configured one."""
        return "adaptive" if self.planned else None

    @property
    def current_step(self) -> str | None:
        index = self.todo.cursor
        return self.todo.steps[index].description if index is not None else None

    @property
    def last_action(self) -> str:
        return self.records[-1].summary if self.records else ""

    def history(self) -> tuple[str, ...]:
        numbered = len(self.todo.steps) > 1
        return tuple(r.line(numbered) for r in self.records)

    def done_so_far(self, trace: Sequence[Mapping[str, Any]] = ()) -> tuple[str, ...]:
        """What the run carried out, for a stop report (see :func:`done_so_far`)."""
        return done_so_far([(s.description, t) for s, t in self.todo.entries], self.records,
                           trace=trace)

    def new_attempt(self) -> None:
        """A fresh start on the current step: counters and the loop window cleared."""
        self.attempt = Attempt()

    def finish(self, phase: Phase, answer: str, report: StopReport) -> None:
        self.phase, self.answer, self.report = phase, answer, report

    def result(self, wall_s: float, usage: tuple[int, int, int]) -> RunResult:
        report = self.report or StopReport(tuple(self.todo.done()), "stopped", "")
        return RunResult(
            _STATUS.get(self.phase, "failed"), self.answer, self.budget.used, usage[0],
            usage[1], usage[2], round(wall_s, 3), list(report.done), report.stopped_because,
            report.next_hint, self.dialogue.pending if self.phase in RESUMABLE else None,
            self.todo.markdown(), [pm.for_prompt() for pm in self.post_mortems],
            self.planner_calls, self.wait_turns, self.confirm_calls)

    def progress(self, tokens: tuple[int, int]) -> Progress:
        return Progress(self.phase, self.todo.items(), self.current_step or "-",
                        self.last_action, self.budget.used, self.budget.limit, *tokens,
                        acted_on=self._acted_on())

    def _acted_on(self) -> Observation | None:
        """The last observation when it is the screen of the last turn record (the one its
        action was decided on), else None: a thumbnail never shows another screen."""
        obs, last = self.last_obs, self.records[-1] if self.records else None
        same = obs is not None and last is not None and bool(last.screen_hash) \
            and obs.screen_hash == last.screen_hash
        return obs if same else None


def at_boundary(state: RunState, turns: int, usage: tuple[int, int, int]) -> None:
    """A turn boundary: the operator's turn count and the model usage so far join the
    state, which then holds everything a resume needs (what a checkpoint saves)."""
    state.turns, state.usage = max(state.turns, turns), usage


def caught_up(state: RunState, recorded: int) -> None:
    """A resumed run whose trace holds turns recorded after its last boundary: the turn
    count goes on after them."""
    state.turns = max(state.turns, recorded)


def classify_failure(attempt: Attempt, obs: Observation | None) -> FailureKind:
    """The post-mortem reason from what the attempt's failed turns left behind: the typed
    failure first, then what the last screen shows, then whether the screen moved."""
    kind = attempt.last_failure.kind if attempt.last_failure else None
    if kind in (FailureKind.ELEMENT_NOT_FOUND, FailureKind.LOOP, FailureKind.DECLINED,
                FailureKind.NOT_VERIFIED, FailureKind.DEVICE_ERROR,
                FailureKind.MISSING_VALUE):
        return kind
    texts = [e.label.lower() for e in obs.elements] if obs else []
    if any("not responding" in t or "isn't responding" in t for t in texts):
        return FailureKind.APP_NOT_RESPONDING
    if obs is not None and any(e.role == "dialog" or "dialog" in e.cls.lower()
                               for e in obs.elements) \
            and any(t in _DIALOG_WORDS for t in texts):
        return FailureKind.UNEXPECTED_DIALOG
    hashes = [h for h in attempt.screens[-3:] if h]
    if len(hashes) >= 2 and len(set(hashes)) == 1:
        return FailureKind.LOOP if len(hashes) >= 3 else FailureKind.CLICK_MISSED
    return kind or FailureKind.LOOP


def post_mortem(number: int, step: TaskStep, state: RunState,
                reason: FailureKind | None) -> PostMortem:
    """The failed step's post-mortem, for the planner's replan and the trace."""
    reason = reason or classify_failure(state.attempt, state.last_obs)
    obs = state.last_obs
    screen = "no observation"
    if obs is not None:
        labels = [e.label for e in obs.elements if e.label][:15]
        screen = f"app {obs.package or '?'}; shows: " + "; ".join(labels)
    tried = tuple(r.line() for r in state.records if r.step == number)[-6:]
    last = state.attempt.last_failure
    return PostMortem(step=number, description=step.description, reason=reason,
                      last_screen=screen, strategies_tried=tried,
                      last_error=last.message if last else "",
                      suggested_recovery=RECOVERY[reason])
