"""The report's event cards: plans, loop-guard rungs, gate prompts, post-mortems, questions
and human answers, each in words (never a JSON dump).

:func:`event_cards` turns the events between two turns into HTML cards; identical events in
a row (a loop guard saying the same thing again and again) collapse into one card with a
count. Every value comes from the trace and is escaped here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from omg_agent.core.todo import read_todo
from omg_agent.trace.loader import EventRecord

# tone -> the card's colour: bad (loops, failures), warn (held, asked), good, human, info
_TONES = {"loop_guard": "bad", "post_mortem": "bad", "error": "bad", "budget": "bad",
          "infeasible": "bad", "not_verified": "bad", "cache_checkpoint_failed": "bad",
          "needs_confirmation": "warn", "ask_user": "warn", "plan_unfit": "warn",
          "injection_flagged": "warn", "rollback": "warn", "system": "warn",
          "refused": "warn", "declined": "warn", "held_action_gone": "warn",
          "held_action_done": "good", "step_done": "good", "auto_verified": "good",
          "user_answer": "human", "user_confirmation": "human", "human": "human"}
PROBLEMS = {"loop_guard", "post_mortem", "error", "budget", "infeasible", "not_verified",
            "cache_checkpoint_failed", "needs_confirmation", "ask_user", "plan_unfit",
            "rollback", "user_answer", "user_confirmation", "human", "declined",
            "held_action_gone"}
_RUNGS = {"wait": "wait and look again", "offset": "tap again, moved onto the element",
          "back": "press back", "post_mortem": "report the plan step as failed (post-mortem)",
          "ask_user": "ask you how to go on", "stop": "stop the run"}
_TRIGGERS = {"no_effect": "an action had no effect", "cycle": "the same actions repeat",
             "replan": "the planner repeated a plan already tried"}
_SKIP = {"t", "prompt_tokens", "completion_tokens"}


def event_cards(events: Sequence[EventRecord]) -> list[str]:
    """One card per run of identical consecutive events (with ``×N`` when repeated)."""
    cards: list[str] = []
    i = 0
    while i < len(events):
        j = i + 1
        while j < len(events) and _same(events[i], events[j]):
            j += 1
        cards.append(event_card(events[i], j - i, events[j - 1].t))
        i = j
    return cards


def _same(a: EventRecord, b: EventRecord) -> bool:
    def key(e: EventRecord) -> tuple[str, str]:
        return e.kind, repr(sorted((k, v) for k, v in e.data.items() if k not in ("t",)))
    return key(a) == key(b)


def event_card(event: EventRecord, count: int = 1, last_t: float | None = None) -> str:
    kind = event.kind
    title, lines = describe(event)
    tone = _TONES.get(kind, "info")
    quiet = "" if kind in PROBLEMS else " quiet"
    times = (f' <span class="count" title="the same {escape(kind)} {count} times in a row">'
             f'×{count}</span>' if count > 1 else "")
    when = f"+{event.t:.1f} s" + (f" … +{last_t:.1f} s" if count > 1 and last_t else "")
    body = "".join(f"<p>{line}</p>" for line in lines if line)
    return (f'<section class="card event tone-{tone} ev-{escape(kind)}{quiet}">'
            f'<h3><span class="kind">{escape(title)}</span>{times} '
            f'<span class="meta">{escape(when)}</span></h3>{body}</section>')


def describe(event: EventRecord) -> tuple[str, list[str]]:
    """(title, HTML lines) of one event, in words."""
    d = event.data
    step = _step(d)
    kind = event.kind
    if kind in ("plan", "replan") and plan_text(d):
        title = "Plan made" if kind == "plan" else "New plan from the planner"
        extra = [_kv("Planner says", d.get("response"))] if d.get("response") else []
        return title + step, [*extra, checklist(plan_text(d))]
    if kind == "replan":
        verdict = str(d.get("status") or "")
        what = "checked the finish" if d.get("confirming") else "looked at the plan again"
        return "Planner " + what, [_kv("Verdict", verdict), _kv("Planner says",
                                                               d.get("response"))]
    if kind == "step_done":
        return f"Plan step {d.get('step', '?')} done", [checklist(plan_text(d))] if plan_text(d) \
            else []
    if kind == "loop_guard":
        rung = str(d.get("rung") or "")
        trigger = _TRIGGERS.get(str(d.get("trigger") or ""), str(d.get("trigger") or ""))
        return "Loop guard" + step, [
            _kv("Why", trigger), _kv("Seen", d.get("reason")),
            _kv("What it does", _RUNGS.get(rung, rung))]
    if kind == "post_mortem":
        tried = d.get("strategies_tried") or ()
        return f"Post-mortem: plan step {d.get('step', '?')} failed", [
            _kv("Plan step", d.get("description")), _kv("Reason", d.get("reason")),
            _kv("Last error", d.get("last_error")), _kv("Last screen", d.get("last_screen")),
            _list("Tried", tried), _kv("Suggested recovery", d.get("suggested_recovery"))]
    if kind == "needs_confirmation":
        return "Gate: asks for your yes" + step, [_kv("Sensitive action", d.get("action"))]
    if kind == "user_confirmation":
        answer = d.get("answer")
        said = "yes" if answer is True else "no" if answer is False else answer
        return "Your answer to the gate", [_kv("Action", d.get("action")), _kv("You said",
                                                                               said)]
    if kind == "ask_user":
        return "The agent asks you", [_kv("Question", d.get("question"))]
    if kind == "user_answer":
        return "Your answer", [_kv("Question", d.get("question")),
                               _kv("Answer", d.get("answer"))]
    if kind == "human":
        action = str(d.get("action") or "action").replace("_", " ")
        rest = {k: v for k, v in d.items() if k not in ("action", "actor", "t")}
        return f"Human on the mirror: {action}", _fields(rest)
    if kind == "budget":
        return "Step budget used up", [_kv("Budget steps used",
                                           f"{d.get('used', '?')} of {d.get('limit', '?')}")]
    if kind == "error":
        return "Error", [_kv("Message", d.get("message"))]
    if kind == "injection_flagged":
        flags = [f"[{f.get('element')}] {f.get('text')}" for f in d.get("flags") or ()
                 if isinstance(f, Mapping)]
        return "Screen text that addresses the agent (not followed)" + step, \
            [_list("Elements", flags)]
    return kind.replace("_", " ").capitalize() + step, _fields(
        {k: v for k, v in d.items() if k != "step"})


def _step(d: Mapping[str, Any]) -> str:
    return f" · plan step {d['step']}" if isinstance(d.get("step"), int) else ""


def plan_text(d: Mapping[str, Any]) -> str:
    """The event's plan as ``- [ ] item`` lines (its todo text, or its plan's steps)."""
    todo = d.get("todo", d.get("todo_markdown"))
    if isinstance(todo, str):
        return todo
    plan = d.get("plan")
    steps = plan.get("steps") if isinstance(plan, Mapping) else d.get("steps")
    if isinstance(steps, list):
        return "\n".join(f"- [ ] {s.get('description', s) if isinstance(s, Mapping) else s}"
                         for s in steps)
    return ""


def checklist(todo: str) -> str:
    """A ``- [x] item`` list as ticks and circles."""
    items = []
    for ticked, text in read_todo(todo):
        mark = '<span class="tick">✔</span>' if ticked else '<span class="open">○</span>'
        items.append(f"<li>{mark} {escape(text)}</li>")
    return f'<ul class="todo">{"".join(items)}</ul>'


def _kv(name: str, value: Any) -> str:
    if value is None or value == "":
        return ""
    return f'<span class="k">{escape(name)}:</span> {escape(_words(value))}'


def _list(name: str, values: Sequence[Any]) -> str:
    if not values:
        return ""
    items = "".join(f"<li>{escape(_words(v))}</li>" for v in values)
    return f'<span class="k">{escape(name)}:</span><ul>{items}</ul>'


def _fields(data: Mapping[str, Any]) -> list[str]:
    return [_kv(k.replace("_", " ").capitalize(), v) for k, v in data.items()
            if k not in _SKIP]


def _words(value: Any) -> str:
    """A value as plain words: lists joined, mappings as ``key value`` pairs, booleans yes/no;
    line breaks become spaces."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        return "; ".join(f"{str(k).replace('_', ' ')} {_words(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return "; ".join(_words(v) for v in value)
    return " ".join(str(value).split())
