"""The orchestrator's bookkeeping: run state, the result a run returns, post-mortems.

Kept apart from :mod:`omg_agent.brain.orchestrator` (which owns the transitions) so the
state machine reads as transitions only. Nothing here does I/O.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

from omg_agent.brain.budget import StepBudget, StopReport
from omg_agent.brain.planner import TodoList
from omg_agent.core.contracts import TaskStep
from omg_agent.core.observation import Observation

Phase = Literal["PLAN", "THINK", "REPLAN", "ASK_USER", "DONE", "FAILED", "ASK_USER_PENDING",
                "INFEASIBLE"]
Status = Literal["done", "failed", "ask_user", "infeasible"]
_STATUS: dict[str, Status] = {"DONE": "done", "FAILED": "failed",
                              "ASK_USER_PENDING": "ask_user", "INFEASIBLE": "infeasible"}
FINAL_PHASES = tuple(_STATUS)  # the phases a run ends in
RECOVERY = {
    "ELEMENT_NOT_FOUND": "scroll or search for the element, or reach it by another path",
    "CLICK_MISSED": "tap the element by id or anchor instead of a point, or wait for loading",
    "LOOP": "stop repeating the same actions: go back and take a different route",
    "APP_NOT_RESPONDING": "wait, then close and relaunch the app",
    "UNEXPECTED_DIALOG": "dismiss the dialog (close / no thanks / back) and continue",
    "TIMEOUT": "split the step into smaller steps or give it more time",
    "BUDGET": "run again with a larger --max-steps",
}
_DIALOG_WORDS = ("no thanks", "close", "cancel", "dismiss", "allow", "deny", "ok")


@dataclass(frozen=True)
class Progress:
    """What a live display shows after each turn."""

    phase: str
    todo: str
    step: str
    last_action: str
    steps_used: int
    steps_limit: int
    tokens_in: int
    tokens_out: int


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

    def summary(self) -> str:
        """The three-part stop message (what was done, why it stopped, what next)."""
        return StopReport(tuple(self.done), self.stopped_because, self.next_hint).message()

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass
class RunState:
    task: str
    budget: StepBudget
    phase: Phase = "PLAN"
    todo: TodoList = field(default_factory=lambda: TodoList(""))
    predefined: bool = False
    history: list[str] = field(default_factory=list)
    step_turns: int = 0
    step_started: float = field(default_factory=time.monotonic)
    failures: int = 0
    last_error: str = ""
    last_obs: Observation | None = None
    last_action: str = ""
    screen_hashes: list[str] = field(default_factory=list)
    retried: set[int] = field(default_factory=set)
    jumps: dict[int, int] = field(default_factory=dict)
    question: str | None = None
    pending_question: str | None = None
    answers: list[tuple[str, str]] = field(default_factory=list)
    note: str = ""
    user_answer: str | None = None
    asked: str | None = None
    outcome: str = ""
    pending_pm: dict[str, Any] | None = None
    post_mortems: list[dict[str, Any]] = field(default_factory=list)
    answer: str = ""
    report: StopReport | None = None
    checkpoint: str = ""  # screen hash of the last verified step
    final_answer: str = ""  # the operator's answer with its 'goal complete', until confirmed

    @property
    def current_step(self) -> str | None:
        index = self.todo.cursor
        return self.todo.steps[index].description if index is not None else None

    def step_elapsed(self) -> float:
        return time.monotonic() - self.step_started

    def reset_step(self) -> None:
        """A fresh start on the current step: counters and the loop window cleared."""
        self.step_turns = 0
        self.failures = 0
        self.step_started = time.monotonic()
        self.screen_hashes.clear()

    def finish(self, phase: Phase, answer: str, report: StopReport) -> None:
        self.phase, self.answer, self.report = phase, answer, report

    def result(self, wall_s: float, usage: tuple[int, int, int]) -> RunResult:
        report = self.report or StopReport(tuple(self.todo.done()), "stopped", "")
        return RunResult(
            _STATUS.get(self.phase, "failed"), self.answer, self.budget.used, usage[0],
            usage[1], usage[2], round(wall_s, 3), list(report.done), report.stopped_because,
            report.next_hint, self.pending_question, self.todo.markdown(),
            list(self.post_mortems))

    def progress(self, tokens: tuple[int, int]) -> Progress:
        return Progress(self.phase, self.todo.markdown(), self.current_step or "-",
                        self.last_action, self.budget.used, self.budget.limit, *tokens)


def classify_failure(state: RunState) -> str:
    """The post-mortem reason from what the failed turns left behind."""
    error = state.last_error.lower()
    texts = [e.label.lower() for e in state.last_obs.elements] if state.last_obs else []
    if any("not responding" in t or "isn't responding" in t for t in texts):
        return "APP_NOT_RESPONDING"
    if "nothing on screen matches" in error or "no element" in error \
            or "nothing readable" in error:
        return "ELEMENT_NOT_FOUND"
    if state.last_obs is not None and any(e.role == "dialog" or "dialog" in e.cls.lower()
                                          for e in state.last_obs.elements) \
            and any(t in _DIALOG_WORDS for t in texts):
        return "UNEXPECTED_DIALOG"
    hashes = [h for h in state.screen_hashes[-3:] if h]
    if len(hashes) >= 2 and len(set(hashes)) == 1:
        return "LOOP" if len(hashes) >= 3 else "CLICK_MISSED"
    return "CLICK_MISSED" if "tap" in state.last_action else "LOOP"


def post_mortem(number: int, step: TaskStep, state: RunState,
                reason: str | None) -> dict[str, Any]:
    """The failed step's post-mortem, for the planner's replan and the trace."""
    reason = reason or classify_failure(state)
    obs = state.last_obs
    screen = "no observation"
    if obs is not None:
        labels = [e.label for e in obs.elements if e.label][:15]
        screen = f"app {obs.package or '?'}; shows: " + "; ".join(labels)
    tried = [h for h in state.history if h.startswith(f"(step {number})")][-6:]
    return {"step": number, "description": step.description, "reason": reason,
            "last_screen": screen, "strategies_tried": tried,
            "last_error": state.last_error, "suggested_recovery": RECOVERY[reason]}
