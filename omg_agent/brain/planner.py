"""The strategist (L1): plans once per task, replans after sub-tasks, or follows a plan file.

- :meth:`Planner.plan` asks the planner model for a :class:`TaskPlan` once, at task start
  (not counted against the step budget).
- :meth:`Planner.replan` asks for a :class:`Replan` after each completed (or failed)
  sub-task and after the user answered a question; each reply attempt counts a step.
- :func:`load_plan_file` reads a predefined plan (YAML) — ``goal`` and ``steps`` with the
  :class:`TaskStep` fields — and names the file and the field on any error.
- :class:`TodoList` is the plan as progress: steps ticked as they are verified, the markdown
  todo list the trace and prompts show, and the rule that a predefined plan may finish only
  when every box is ticked.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from omg_agent.brain import prompts
from omg_agent.brain.call_record import CallRecord
from omg_agent.brain.llm import LLMClient
from omg_agent.core.contracts import Replan, TaskPlan, TaskStep
from omg_agent.core.observation import Observation
from omg_agent.core.todo import TodoItem, render_todo
from omg_agent.errors import ConfigError
from omg_agent.userfiles import load_file

log = logging.getLogger(__name__)


def load_plan_file(path: Path) -> TaskPlan:
    """The predefined plan in ``path`` (YAML or JSON, within the limits of
    :mod:`omg_agent.userfiles`); :class:`ConfigError` names the file and field."""
    docs = load_file(path, "plan file")
    if len(docs) > 1:
        raise ConfigError(f"plan file {path}: {len(docs)} YAML documents; give one, with "
                          "goal and steps")
    data = docs[0] if docs else None
    if isinstance(data, list):
        data = {"steps": data}
    if not isinstance(data, dict):
        raise ConfigError(f"plan file {path}: expected a mapping with 'steps', got "
                          f"{type(data).__name__}")
    unknown = sorted(map(str, set(data) - {"goal", "task", "steps"}))
    if unknown:
        raise ConfigError(f"plan file {path}: unknown field(s) {', '.join(unknown[:5])}"
                          f"{' …' if len(unknown) > 5 else ''}; expected goal (or task) "
                          "and steps")
    data = {"goal": str(data.get("goal") or data.get("task") or ""),
            "steps": data.get("steps")}
    try:
        return TaskPlan.model_validate(data)
    except ValidationError as exc:
        problems = []
        for error in exc.errors(include_url=False):
            loc = ".".join(str(p + 1) if isinstance(p, int) else str(p) for p in error["loc"])
            problems.append(f"{loc or '(top level)'}: {error['msg']}")
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise ConfigError(f"plan file {path}: " + "; ".join(problems[:3]) + more) from None


@dataclass
class TodoList:
    """A plan's steps with ticks; a replan swaps the unticked tail for the new steps."""

    goal: str
    entries: list[tuple[TaskStep, bool]] = field(default_factory=list)

    @classmethod
    def of(cls, plan: TaskPlan) -> TodoList:
        return cls(plan.goal, [(s, False) for s in plan.steps])

    @property
    def steps(self) -> list[TaskStep]:
        return [s for s, _ in self.entries]

    @property
    def cursor(self) -> int | None:
        """Index of the first unticked step, or ``None`` when all are ticked."""
        return next((i for i, (_, ticked) in enumerate(self.entries) if not ticked), None)

    @property
    def complete(self) -> bool:
        return self.cursor is None

    def tick(self, index: int) -> None:
        self.entries[index] = (self.entries[index][0], True)

    def tick_all(self) -> None:
        """Every step done: the verified end state covers the steps on the way to it."""
        self.entries = [(s, True) for s, _ in self.entries]

    def untick_from(self, index: int) -> None:
        self.entries = [(s, t and i < index) for i, (s, t) in enumerate(self.entries)]

    def replace_pending(self, plan: TaskPlan) -> None:
        self.entries = [e for e in self.entries if e[1]] + [(s, False) for s in plan.steps]
        self.goal = plan.goal or self.goal

    def done(self) -> list[str]:
        return [s.description for s, t in self.entries if t]

    def pending(self) -> list[str]:
        return [s.description for s, t in self.entries if not t]

    def items(self) -> tuple[TodoItem, ...]:
        """The list as a value (what the live view, mirror and callbacks get)."""
        return tuple(TodoItem(n, s.description, t)
                     for n, (s, t) in enumerate(self.entries, start=1))

    def markdown(self) -> str:
        return render_todo(self.items())


class Planner:
    """The L1 model calls. ``attempts`` bounds the reply attempts of a counted call."""

    def __init__(self, llm: LLMClient) -> None:
        self.llm = llm

    def plan(self, task: str, *, screen: str = "", apps: str = "",
             screenshot: Observation | None = None,
             device: prompts.Device = "phone") -> tuple[TaskPlan, CallRecord]:
        """The first plan of ``task`` (its attempts are not counted as steps); the planner
        sees the screen as the operator will: the element list and the screenshot — on a
        desktop with the foreground app and its window named."""
        user = f"Task: {task}"
        if apps:
            user += f"\n\nApps on {'this computer' if device == 'desktop' else 'the phone'}: "
            user += apps
        if device == "desktop" and screenshot is not None:
            user += "\n\n" + prompts.foreground_line(screenshot.package, screenshot.activity,
                                                     device)
        if screen:
            user += f"\n\nCurrent screen:\n{screen}"
        messages = [{"role": "system", "content": prompts.render("planner", device=device)},
                    self._user(user, screenshot)]
        return self.llm.structured(messages, TaskPlan)

    def replan(self, task: str, todo: TodoList, *, outcome: str,
               post_mortem: Mapping[str, Any] | None = None, memory: str = "(empty)",
               user_answer: str | None = None, question: str | None = None,
               screen: str = "", screenshot: Observation | None = None,
               confirming: bool = False, operator_view: str = "",
               on_attempt: Callable[[CallRecord], None] | None = None,
               attempts: int | None = None,
               device: prompts.Device = "phone") -> tuple[Replan, CallRecord]:
        """The strategist's verdict on progress; each reply attempt goes to ``on_attempt``.

        ``screenshot`` is the screen the last turn left (the planner sees what the operator
        saw); ``confirming``: the operator claims the goal is done and the plan's criteria
        are prose, so the planner confirms the claim from it; ``operator_view``: what the
        operator knew when the planner takes over (its checklist with the values it noted,
        its last turns), so a new plan starts from there instead of from scratch."""
        parts = [f"Task: {task}", f"Plan so far:\n{todo.markdown()}",
                 f"Last sub-task: {outcome}"]
        if post_mortem:
            parts.append("Post-mortem:\n" + json.dumps(post_mortem, ensure_ascii=False,
                                                       indent=1))
        if operator_view:
            parts.append("What the operator knew (its own checklist and notes, its last "
                         "turns) — plan from here, do not redo what it did:\n" + operator_view)
        parts.append(f"Memory:\n{memory}")
        if device == "desktop" and screenshot is not None:
            parts.append(prompts.foreground_line(screenshot.package, screenshot.activity,
                                                 device))
        if screen:
            parts.append(f"Current screen:\n{screen}")
        if user_answer is not None:
            parts.append(f"You asked the user: {question or '(a question)'}\n"
                         f"The user answered: {user_answer}")
        if confirming:
            parts.append("The operator reports the whole task done. Confirm it from the "
                         "screenshot and the element list: 'done' only if they show "
                         "the task achieved, with the elements that show it as evidence; "
                         "otherwise replan the missing part.")
        messages = [{"role": "system", "content": prompts.render("replan", device=device)},
                    self._user("\n\n".join(parts), screenshot)]
        return self.llm.structured(messages, Replan, on_attempt=on_attempt, attempts=attempts)

    def _user(self, text: str, screenshot: Observation | None) -> dict[str, Any]:
        """The user message: with the screenshot when there is one (the element list is
        in ``text`` already, so the image goes without a second copy of it)."""
        if screenshot is None or screenshot.screenshot is None:
            return {"role": "user", "content": text}
        return self.llm.vision_message(text, screenshot=screenshot.screenshot)
