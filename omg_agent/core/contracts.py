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

What is sent is compact (:func:`compact_schema`, issue 27: the schema goes out with every
request and is billed as prompt by many providers): no titles, no discriminator maps, no
defaults, each description once, optional fields without their ``null`` branch — the reply
is still validated by the full pydantic models. Two flavours: the plain schema
(``strict=False``, the default; endpoints that enforce it — vLLM guided decoding, OpenAI
non-strict — accept ``oneOf``), and :func:`strict_schema`, the subset OpenAI's
``strict: true`` mode demands (every field required and nullable when it was optional,
``anyOf`` instead of ``oneOf``, no defaults, ``additionalProperties: false`` everywhere).
A reply to the strict schema uses ``null`` for
"not given"; :func:`drop_nulls` turns that back into absent fields before validation.
Pure data, no I/O.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Collection
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from omg_agent.core.actions import IN_PROMPT, SAID, Action, AskUser, Done, MemSave, ends_bundle
from omg_agent.core.checks import StepCheck

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
                    "as under 'Checks'. The system ticks the task when they pass; they cannot "
                    "be changed later. Null otherwise.")
    look: bool = Field(
        False, **_SAID,
        description="Show me the screenshot next turn: the element list misses something I "
                    "need to see (an icon, an image, a canvas, text cut off).")

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


# -- schema export -----------------------------------------------------------------------
def json_schema(model_cls: type[BaseModel], *, strict: bool = False,
                compact: bool = True) -> dict[str, Any]:
    """The JSON schema of ``model_cls`` (by alias, ``$defs`` inline), strict or not,
    compact (what is sent) unless ``compact=False`` (pydantic's full schema)."""
    schema = model_cls.model_json_schema(by_alias=True)
    schema = compact_schema(schema) if compact else _unmarked(schema)
    return strict_schema(schema) if strict else schema


def response_format(model_cls: type[BaseModel], *, strict: bool = False,
                    compact: bool = True) -> dict[str, Any]:
    """The OpenAI ``response_format`` value that asks for ``model_cls`` as JSON."""
    return {"type": "json_schema",
            "json_schema": {"name": model_cls.__name__,
                            "schema": json_schema(model_cls, strict=strict, compact=compact),
                            "strict": strict}}


# What the model does not need to write a valid reply: pydantic's titles, discriminator
# maps (the ``const`` tag of each member already tells them apart) and defaults (a field
# left out gets its default when the reply is validated).
_COMPACT_DROP = ("title", "discriminator", "default")


def compact_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without what the model does not need (a new dict).

    Drops titles, discriminator maps and defaults; keeps each description text once (the
    first, in document order: a union's description repeated on every field that uses it
    says nothing new) and none on ``const`` tags (the tag is its own description); an
    optional field's ``anyOf [X, null]`` becomes ``X`` (leaving it out means null, and a
    ``null`` sent anyway is dropped before validation: :func:`drop_nulls`); ``const`` tags
    are required, so the model always writes the member's ``type`` / ``kind``.
    """
    out = _compact_node(copy.deepcopy(schema), set())
    return _hoist_unions(out)


def _compact_node(node: Any, seen: set[str]) -> Any:
    if isinstance(node, list):
        return [_compact_node(n, seen) for n in node]
    if not isinstance(node, dict):
        return node
    for key in _COMPACT_DROP:
        node.pop(key, None)
    variants = node.get("anyOf")
    if isinstance(variants, list) and len(variants) == 2 and {"type": "null"} in variants:
        inner = next(v for v in variants if v != {"type": "null"})
        rest = {k: v for k, v in node.items() if k != "anyOf"}
        node = {**inner, **{k: v for k, v in rest.items() if k not in inner}}
        for key in _COMPACT_DROP:
            node.pop(key, None)
    text = node.get("description")
    if node.pop(IN_PROMPT, False) or isinstance(text, str) and ("const" in node
                                                              or text in seen):
        del node["description"]
    elif isinstance(text, str):
        seen.add(text)
    out = {k: (v if k in ("description", "const", "enum", "required")
               else {n: _compact_node(sub, seen) for n, sub in v.items()}
               if k in ("properties", "$defs") else _compact_node(v, seen))
           for k, v in node.items()}
    props = out.get("properties")
    if isinstance(props, dict):
        tags = [n for n, sub in props.items() if isinstance(sub, dict) and "const" in sub]
        required = list(out.get("required", []))
        if tags:
            out["required"] = required + [t for t in tags if t not in required]
    return out


def _unmarked(node: Any) -> Any:
    """``node`` without the :data:`IN_PROMPT` markers (pydantic's full schema)."""
    if isinstance(node, list):
        return [_unmarked(n) for n in node]
    if isinstance(node, dict):
        return {k: _unmarked(v) for k, v in node.items() if k != IN_PROMPT}
    return node


def _hoist_unions(schema: dict[str, Any]) -> dict[str, Any]:
    """A ``oneOf`` written out more than once (the target of tap, swipe's from / to /
    start, …) becomes one ``$defs`` entry that each place references."""
    counts: dict[str, int] = {}

    def count(node: Any) -> None:
        if isinstance(node, list):
            for n in node:
                count(n)
        elif isinstance(node, dict):
            if isinstance(node.get("oneOf"), list):
                key = json.dumps(node["oneOf"], sort_keys=True)
                counts[key] = counts.get(key, 0) + 1
            for v in node.values():
                count(v)

    count(schema)
    defs = schema.setdefault("$defs", {})
    names: dict[str, str] = {}
    for key, n in counts.items():
        if n > 1:
            names[key] = _union_name([r.get("$ref", "") for r in json.loads(key)], defs)
            defs[names[key]] = {"oneOf": json.loads(key)}

    def replace(node: Any, top: bool = False) -> Any:
        if isinstance(node, list):
            return [replace(n) for n in node]
        if not isinstance(node, dict):
            return node
        key = json.dumps(node["oneOf"], sort_keys=True) \
            if isinstance(node.get("oneOf"), list) else None
        if key in names and not top:
            rest = {k: v for k, v in node.items() if k != "oneOf"}
            return {"$ref": f"#/$defs/{names[key]}", **rest}
        return {k: replace(v) for k, v in node.items()}

    schema["$defs"] = {name: replace(sub, top=name in names.values())
                       for name, sub in defs.items()}
    return {k: (v if k == "$defs" else replace(v)) for k, v in schema.items()}


def _union_name(refs: list[str], defs: Collection[str]) -> str:
    """A ``$defs`` name for a union of ``refs``: the ending its members share
    (``PointTarget``, ``ElementTarget`` → ``Target``), else ``Union``; never taken."""
    words = [re.findall(r"[A-Z][a-z0-9]*", r.rsplit("/", 1)[-1]) for r in refs]
    shared = words[0][-1] if words and words[0] and all(
        w and w[-1] == words[0][-1] for w in words) else "Union"
    name, n = shared, 1
    while name in defs:
        n += 1
        name = f"{shared}{n}"
    return name


# Keywords OpenAI's strict mode rejects (or silently does not support everywhere); the
# pydantic models still enforce them when the reply is validated.
_STRICT_DROP = ("default", "discriminator", "minLength", "maxLength", "pattern", "format",
                "title")


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` rewritten for ``strict: true``: a new dict, the input is not modified."""
    out = copy.deepcopy(schema)
    defs = out.get("$defs", {})
    for name, sub in list(defs.items()):
        defs[name] = _strict_node(sub, defs)
    return _strict_node(out, defs)


def _strict_node(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_strict_node(n, defs) for n in node]
    if not isinstance(node, dict):
        return node
    node = dict(node)
    if "$ref" in node and len(node) > 1:  # strict mode wants a bare $ref: merge siblings in
        ref = node.pop("$ref")
        target = defs.get(ref.rsplit("/", 1)[-1], {})
        node = {**target, **{k: v for k, v in node.items() if k not in target}}
    for key in _STRICT_DROP:
        node.pop(key, None)
    if "oneOf" in node:
        node["anyOf"] = node.pop("oneOf")
    if "const" in node:
        node["enum"] = [node.pop("const")]
    for key in ("anyOf", "allOf", "items", "prefixItems"):
        if key in node:
            node[key] = _strict_node(node[key], defs)
    if node.get("type") == "object" or "properties" in node:
        props = node.get("properties", {})
        required = set(node.get("required", []))
        node["properties"] = {name: _strict_node(sub if name in required else _nullable(sub),
                                                 defs)
                              for name, sub in props.items()}
        node["required"] = list(props)
        node["additionalProperties"] = False
    return node


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` that also accepts ``null`` (already-nullable unions are left alone).

    A constant (the ``type`` / ``kind`` tag of a union member) stays non-null: the model
    must always write it, or the union could not tell its members apart.
    """
    if "const" in node:
        return node
    variants = node.get("anyOf") or node.get("oneOf")
    if variants and any(v.get("type") == "null" for v in variants):
        return node
    if node.get("type") == "null":
        return node
    described = {k: node[k] for k in ("description",) if k in node}
    inner = {k: v for k, v in node.items() if k != "description"}
    return {"anyOf": [inner, {"type": "null"}], **described}


def drop_nulls(data: Any) -> Any:
    """``data`` with every ``null`` object member removed: "null" means "not given".

    Applied to replies before validation, so a model answering the strict schema (where
    every field is required, optional ones as nullable) gets each field's default.
    """
    if isinstance(data, dict):
        return {k: drop_nulls(v) for k, v in data.items() if v is not None}
    if isinstance(data, list):
        return [drop_nulls(v) for v in data]
    return data
