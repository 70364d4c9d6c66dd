"""What the brain and the model say to each other: plans, decision bundles, replans.

These pydantic models are the LLM contracts of DESIGN.md §3. The JSON schema sent to a model
as ``response_format`` is generated from them (:func:`response_format`), and a model's reply
is validated by them; a validation error names the field and is fed back to the model for a
retry. Each model also checks the consistency rules between its fields (a replan that says
``replanned`` carries a plan; a turn that has not finished its step carries actions; …).

- :class:`TaskPlan` / :class:`TaskStep` — the strategist's (L1) milestones.
- :class:`DecisionBundle` / :class:`ExecuteNow` — one operator (L2) turn: verify the last
  bundle, then 1–5 actions from :data:`omg_agent.core.actions.Action`.
- :class:`Replan` — the strategist's answer after a sub-task or a user's answer.

The schema a model is sent, made from these models (compact, or strict for OpenAI's
``strict: true``), is :mod:`omg_agent.core.wire_schema`'s; :func:`json_schema`,
:func:`response_format` and :func:`drop_nulls` are re-exported here for callers.
Pure data, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from omg_agent.core.actions import SAID, Action, AskUser, Done, MemSave, ends_bundle
from omg_agent.core.checks import StepCheck
from omg_agent.core.wire_schema import drop_nulls as drop_nulls  # re-exported for callers
from omg_agent.core.wire_schema import json_schema as json_schema
from omg_agent.core.wire_schema import response_format as response_format

MAX_BUNDLE = 5
_ON_FAIL = re.compile(r"^(retry|replan|ask_user|abort|jump_to:([1-9]\d*))$")
# (tries, timeout_s) per step complexity, from the two-layer brain design (1→3/30 s,
# 3→8/60 s, 5→15/120 s), with the even levels in between.
_SAID = SAID  # a field whose description the operator prompt gives (left out when sent)
_COMPLEXITY_BUDGET = {1: (3, 30), 2: (5, 45), 3: (8, 60), 4: (11, 90), 5: (15, 120)}


class _Contract(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# -- L1: the plan -----------------------------------------------------------------------
class TaskStep(_Contract):
    """One milestone of a plan: what to reach, how to tell it is reached, what if not."""

    description: str = Field(
        min_length=1, description="The milestone in a few words, e.g. 'Open the Shop app'.")
    action_guide: str = Field(
        "", description="A hint on how to get there, in words (never coordinates).")
    success_criteria: str = Field(
        min_length=1,
        description="What the screen shows when the step is done, e.g. 'the cart lists "
                    "1 item'. Must be checkable on the screen.")
    checks: list[StepCheck] = Field(
        default_factory=list, max_length=6,
        description="Concrete checks of the success criteria, each about one element, the "
                    "foreground app or a memory key; all must pass for the step to count "
                    "as done. Empty when nothing concrete can be named.")
    timeout_s: int = Field(
        60, ge=5, le=1800, description="Seconds the step may take before it counts as failed.")
    on_fail: str = Field(
        "retry",
        description="What to do when the step fails: 'retry', 'jump_to:N' (go to step N, "
                    "1-based), 'replan', 'ask_user' or 'abort'.")
    data_output: str | None = Field(
        None, pattern=r"^[A-Za-z_]\w*$", max_length=64,
        description="Memory key this step must save (mem_save), e.g. 'mac_price'; null if "
                    "the step produces no data.")
    complexity: int = Field(
        2, ge=1, le=5,
        description="1 (one obvious tap) to 5 (long, fiddly workflow); sets retries and time.")
    device: str | None = Field(
        None, max_length=32,
        description="With several devices (the task names them, e.g. 'phone', 'desktop'): "
                    "the one this step runs on; null: the one in use.")

    @field_validator("on_fail", mode="before")
    @classmethod
    def _on_fail(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip().lower().replace(" ", "")
            if _ON_FAIL.match(text) is None:
                raise ValueError(f"on_fail {value!r} is not one of retry, jump_to:N (N ≥ 1), "
                                 "replan, ask_user, abort")
            return text
        return value

    @property
    def jump_target(self) -> int | None:
        """The 1-based step number of ``on_fail = jump_to:N``, else ``None``."""
        m = _ON_FAIL.match(self.on_fail)
        return int(m.group(2)) if m and m.group(2) else None

    @property
    def max_tries(self) -> int:
        """How many operator turns this step may use before it fails (from complexity)."""
        return _COMPLEXITY_BUDGET[self.complexity][0]

    @property
    def time_budget_s(self) -> int:
        """Seconds allowed: the larger of ``timeout_s`` and the complexity's budget."""
        return max(self.timeout_s, _COMPLEXITY_BUDGET[self.complexity][1])


class TaskPlan(_Contract):
    """The strategist's plan: ordered milestones, no coordinates."""

    goal: str = Field("", description="The user's task restated in one sentence.")
    steps: list[TaskStep] = Field(
        min_length=1, max_length=30, description="The milestones, in order (at least one).")

    @model_validator(mode="after")
    def _jumps_exist(self) -> TaskPlan:
        for number, step in enumerate(self.steps, start=1):
            target = step.jump_target
            if target is not None and target > len(self.steps):
                raise ValueError(f"step {number}: on_fail jump_to:{target} but the plan has "
                                 f"only {len(self.steps)} steps")
        return self

    def todo_markdown(self, done: Collection[int] = ()) -> str:
        """The plan as a markdown todo list; ``done`` holds 1-based step numbers to tick."""
        return "\n".join(f"- [{'x' if n in done else ' '}] {n}. {s.description}"
                         for n, s in enumerate(self.steps, start=1))


# -- L2: one operator turn ---------------------------------------------------------------
class ExecuteNow(_Contract):
    """The actions of this turn, run in order until the first screen-changing one."""

    intent: str = Field(min_length=1, description="What these actions achieve, in a few words.")
    actions: list[Action] = Field(
        min_length=1, max_length=MAX_BUNDLE,
        description="1 to 5 actions. After one that can change the screen unpredictably, "
                    "only anchored actions (found on the new screen) or launch/home/wait.")

    @model_validator(mode="after")
    def _handoffs_last(self) -> ExecuteNow:
        for index, action in enumerate(self.actions[:-1]):
            if isinstance(action, AskUser | Done):
                raise ValueError(f"actions[{index}] is {action.type}: ask_user and done must "
                                 "be the last action of a bundle")
        return self

    @property
    def boundary_index(self) -> int:
        """Index of the last action the executor runs (the first boundary or hand-off)."""
        return next((i for i, a in enumerate(self.actions) if ends_bundle(a)),
                    len(self.actions) - 1)


_FINISHING = ("step_complete", "goal_complete", "goal_infeasible", "user_declined")


class DecisionBundle(_Contract):
    """One operator turn: judge the last bundle from the new screen, then act."""

    # The docstring is the schema's description, which the model reads. Every field's
    # meaning is in the operator prompt (_SAID): the compact schema sent with each request
    # carries the fields' names and types, not their descriptions again.

    thought: str = Field(
        min_length=1, **_SAID,
        description="Short reasoning: what the screen shows, whether the last actions "
                    "worked, what to do next and why.")
    last_action_result: Literal["success", "failed", "partial", "none"] = Field(
        **_SAID, description="Result of the previous bundle as seen on this screen; 'none' "
                             "on the first turn.")
    execute_now: ExecuteNow | None = Field(
        None, **_SAID,
        description="Actions to run now; null only when step_complete or goal_complete.")
    step_complete: bool = Field(
        False, **_SAID,
        description="The current plan step's success criteria are met on this screen.")
    goal_complete: bool = Field(
        False, **_SAID, description="The whole task is done (seen on screen, not assumed).")
    goal_infeasible: bool = Field(
        False, **_SAID,
        description="The task cannot be done on this phone (e.g. the item, contact or "
                    "setting does not exist): stop and say why in answer. Never pretend a "
                    "task is done.")
    user_declined: bool = Field(
        False, **_SAID,
        description="The user said no to what the task needs: stop; say what in answer. (A "
                    "user you need: ask_user.)")
    answer: str | None = Field(
        None, **_SAID,
        description="With goal_complete: the answer or a one-line summary for the user; with "
                    "goal_infeasible: why it cannot be done.")
    plan_outdated: str | None = Field(
        None, **_SAID,
        description="Only when the plan no longer fits what the phone shows (a step is wrong, "
                    "missing or already done another way): say why; the planner rewrites the "
                    "rest. Null otherwise.")
    todo: list[str] | None = Field(
        None, max_length=30, **_SAID,
        description="Only when the instructions tell you to keep your own checklist: one "
                    "milestone a line, '[x] ' before those done. Null otherwise.")
    end_checks: list[StepCheck] | None = Field(
        None, max_length=6, **_SAID,
        description="Only when you keep your own checklist, once you know what the end screen "
                    "shows: checks of the task's end state (elements, app or memory keys), "
                    "as under 'Checks'. The system ticks the task when they pass; later only "
                    "the ones a refused claim found failing can be replaced, in the next "
                    "reply. Null otherwise.")
    look: bool = Field(
        False, **_SAID,
        description="Show me the screenshot next turn: the element list misses something I "
                    "need to see (an icon, an image, a canvas, text cut off).")

    @model_validator(mode="before")
    @classmethod
    def _finishing_without_actions(cls, data: Any) -> Any:
        """A reply that finishes (or stops) may leave ``execute_now`` without actions, as
        the prompt allows: the same as null (issue 40: "actions" must hold 1 to 5 refused
        it, a validation retry for nothing)."""
        if isinstance(data, dict) and isinstance(now := data.get("execute_now"), dict) \
                and not now.get("actions") and any(data.get(f) is True for f in _FINISHING):
            data = {**data, "execute_now": None}
        return data

    @model_validator(mode="before")
    @classmethod
    def _done_action_completes(cls, data: Any) -> Any:
        """A bundle ending in a ``done`` action means the goal is complete: say so."""
        if not isinstance(data, dict) or not isinstance(data.get("execute_now"), dict):
            return data
        actions = data["execute_now"].get("actions")
        last = actions[-1] if isinstance(actions, list) and actions else None
        if isinstance(last, dict) and last.get("type") == "done":
            data = {**data, "goal_complete": True}
            if not data.get("answer") and last.get("answer"):
                data["answer"] = last["answer"]
        return data

    @model_validator(mode="after")
    def _consistent(self) -> DecisionBundle:
        if self.execute_now is None and not (self.step_complete or self.goal_complete
                                             or self.goal_infeasible or self.user_declined):
            raise ValueError("execute_now is required unless step_complete, goal_complete, "
                             "goal_infeasible or user_declined")
        if self.goal_complete and (self.goal_infeasible or self.user_declined):
            raise ValueError("a task cannot be goal_complete and also goal_infeasible or "
                             "user_declined")
        if self.goal_complete and self.execute_now is not None:
            device = [a.type for a in self.execute_now.actions
                      if not isinstance(a, MemSave | Done)]
            if device:
                raise ValueError("the task can be complete (goal_complete or a done action) "
                                 "only when no device actions remain, but execute_now has "
                                 f"{', '.join(device)}: run them now, finish on the next turn")
        return self

    @property
    def actions(self) -> list[Action]:
        return list(self.execute_now.actions) if self.execute_now else []

    @property
    def finishes_step(self) -> bool:
        return self.step_complete or self.goal_complete


# -- L1 again: after a sub-task or a user's answer ---------------------------------------
class Replan(_Contract):
    """The strategist's verdict after a sub-task: a new plan for what is left, or done."""

    status: Literal["replanned", "done", "infeasible", "give_up"] = Field(
        description="'replanned' with the remaining steps in plan; 'done' only when the task "
                    "is finished; 'infeasible' when the phone shows it cannot be done; "
                    "'give_up' when it could not be finished — each of the last three with "
                    "response for the user.")
    plan: TaskPlan | None = Field(
        None, description="With 'replanned': the steps still to do, from the current screen.")
    response: str | None = Field(
        None, description="With done / infeasible / give_up: the final answer, or why the "
                          "task cannot be done or was not finished.")
    evidence: list[StepCheck] | None = Field(
        None, max_length=6,
        description="With 'done' confirming the operator's report: checks of what the current "
                    "screen shows that proves the task finished — at least one element that "
                    "must be there (its text, a state it shows); the system verifies them.")

    @model_validator(mode="after")
    def _consistent(self) -> Replan:
        if self.status == "replanned" and self.plan is None:
            raise ValueError("status 'replanned' needs a plan")
        if self.status != "replanned":
            if not (self.response or "").strip():
                raise ValueError(f"status {self.status!r} needs a response for the user")
            if self.plan is not None:
                raise ValueError(f"status {self.status!r} must not carry a plan (set plan to "
                                 "null)")
        return self


CONTRACTS: tuple[type[BaseModel], ...] = (TaskPlan, DecisionBundle, Replan)
