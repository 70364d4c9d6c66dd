"""``flow from-trace``: the anchored flow of a successful run, read from its trace.

Walks the run's steps in order and keeps the actions that really ran (the results say which:
an executed index, or a ``mem_save`` with its value), each turned into flow steps by the
rules of :mod:`.record` on the screen it was done on — an element id becomes its resource-id
/ text / desc, a point the element under it. Actions after a screen change inside one step
were anchors already and stay anchors. On top of that:

* a tap on an item of a repeating list (its id shared by look-alikes, or anchored by id and
  text/desc together) is preceded by ``scrollUntilVisible``, so the flow scrolls as far as
  *this* screen needs; the run's own swipes are dropped when such a step follows them;
* taps that closed a dialog (No thanks, Close, …) are ``optional``: the popup may not come;
* a value the run saved (``mem_save``) and typed later is typed as ``$name``; a value the
  model gave outright becomes a parameter in ``env`` (``--var name=…`` overrides it);
  secrets are already ``{{secret:NAME}}`` in the trace and stay placeholders;
* the last screen gives end checks (``assertVisible``): a saved value shown there, the last
  tapped item in its new state, and ids that appeared with it — so a replay says done only
  when the phone shows it.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from omg_agent.core.actions import AnchorTarget, MemSave, Tap, TypeText, parse_action
from omg_agent.flows.model import Command, Flow, FlowError, Selector
from omg_agent.flows.record import action_commands, short_id
from omg_agent.flows.select import literal
from omg_agent.trace.loader import StepRecord, load_trace

_SAVED = re.compile(r"^\$(\w+) = (.*)$", re.S)
MAX_NEW_IDS = 2


def flow_from_trace(run_dir: Path, *, name: str = "") -> Flow:
    """The flow of the run in ``run_dir`` (raises :class:`FlowError` if it did not end
    ``done`` or nothing in it can be replayed)."""
    trace = load_trace(run_dir)
    status = (trace.result or {}).get("status")
    if status != "done":
        raise FlowError(f"{run_dir}: the run ended {status or 'unfinished'!r}; only a run "
                        "that ended done becomes a flow")
    builder = _Builder()
    for step in trace.steps:
        builder.step(step)
    commands = builder.finish(trace.steps)
    if not any(c.name not in ("assertVisible",) for c in commands):
        raise FlowError(f"{run_dir}: the run did nothing on the device to replay")
    numbered = tuple(dataclasses.replace(c, line=i) for i, c in enumerate(commands, 1))
    return Flow(commands=numbered, name=name or trace.task, env=builder.env)


class _Builder:
    def __init__(self) -> None:
        self.commands: list[Command] = []
        self.values: dict[str, str] = {}  # value -> $name (saved from the screen)
        self.env: dict[str, str] = {}
        self.swipe: Command | None = None
        self.last_tap: tuple[Selector, str | None] | None = None
        self.acted: tuple[int, list[dict[str, Any]]] | None = None  # (trace line, elements)

    def step(self, step: StepRecord) -> None:
        obs = step.observation or {}
        elements = list(obs.get("elements") or [])
        size = obs.get("size")
        for action, result, stale in _ran(step):
            shown = [] if stale else elements
            point = result.get("point") if result else None
            if isinstance(action, MemSave) and result is not None:
                value = _saved_value(result)
                if action.from_screen is None:  # the model's own value: a parameter
                    self.env[action.key] = value if value is not None else action.value or ""
                    continue
                if value:
                    self.values[value] = action.key
            if isinstance(action, TypeText):
                action = action.model_copy(update={"text": self._vars(action.text)})
            try:
                made = action_commands(action, shown, point, size)
            except ValueError as exc:
                raise FlowError(f"step {step.step}: {exc}") from None
            for command in made:
                self._add(command, action, shown)
            if isinstance(action, Tap) and made and made[0].selector is not None:
                element = _element_of(action, shown)
                self.last_tap = (made[0].selector, element.get("text") if element else None)
            self.acted = (step.line, elements)

    def _vars(self, text: str) -> str:
        for value, key in sorted(self.values.items(), key=lambda kv: -len(kv[0])):
            text = text.replace(value, f"${key}")
        return text

    def _add(self, command: Command, action: Any, shown: list[dict[str, Any]]) -> None:
        if command.name == "swipe":
            self.swipe = command  # kept only if no list item follows
            return
        if command.name in ("tapOn", "longPressOn") and command.selector is not None \
                and _list_item(command.selector, action, shown):
            self.commands.append(Command("scrollUntilVisible", selector=command.selector,
                                         direction="down", timeout_s=20.0))
            self.swipe = None
        if self.swipe is not None:
            self.commands.append(self.swipe)
            self.swipe = None
        self.commands.append(command)

    def finish(self, steps: tuple[StepRecord, ...]) -> list[Command]:
        final = next((s.observation for s in reversed(steps) if s.observation), None) or {}
        elements = list(final.get("elements") or [])
        checks: list[Selector] = []
        for e in elements:
            text = e.get("text") or ""
            if text in self.values:
                checks.append(Selector(text=f"${self.values[text]}"))
        if self.last_tap is not None:
            checks += _new_state(*self.last_tap, elements)
        final_line = next((s.line for s in reversed(steps) if s.observation), -1)
        if self.acted is not None and self.acted[0] != final_line:
            before = {short_id(e.get("resource_id") or "") for e in self.acted[1]}
            fresh = [short_id(e.get("resource_id") or "") for e in elements]
            new = [i for i in dict.fromkeys(fresh) if i and i not in before][:MAX_NEW_IDS]
        else:
            new = []
        checks += [Selector(id=i) for i in new]
        out = list(self.commands)
        if self.swipe is not None:
            out.append(self.swipe)
        return out + [Command("assertVisible", selector=s) for s in dict.fromkeys(checks)]


def _ran(step: StepRecord) -> list[tuple[Any, dict[str, Any] | None, bool]]:
    """The actions of ``step`` that ran, with their result and whether they ran on a screen
    newer than the step's observation."""
    by_index: dict[int, tuple[dict[str, Any], bool]] = {}
    saved: dict[str, dict[str, Any]] = {}
    stale = False
    for r in step.results:
        if r.get("type") == "screen":
            stale = True
        elif r.get("type") == "mem_save" and r.get("ok"):
            m = _SAVED.match(str(r.get("detail") or ""))
            if m:
                saved[m.group(1)] = r
        elif isinstance(r.get("index"), int) and r.get("ok"):
            by_index[r["index"]] = (r, stale)
    out: list[tuple[Any, dict[str, Any] | None, bool]] = []
    for i, data in enumerate(step.actions):
        try:
            action = parse_action(data)
        except ValidationError:
            continue  # not an action this version reads: nothing to replay from it
        if isinstance(action, MemSave):
            if action.key in saved:
                out.append((action, saved[action.key], False))
        elif i in by_index:
            result, was_stale = by_index[i]
            out.append((action, result, was_stale))
    return out


def saved_values(run_dir: Path) -> dict[str, str]:
    """What the run in ``run_dir`` saved with ``mem_save`` (name -> value), in order."""
    values: dict[str, str] = {}
    for step in load_trace(run_dir).steps:
        for r in step.results:
            m = _SAVED.match(str(r.get("detail") or "")) if r.get("type") == "mem_save" else None
            value = _saved_value(r) if m else None
            if m and value is not None:
                values[m.group(1)] = value
    return values


def _saved_value(result: dict[str, Any]) -> str | None:
    m = _SAVED.match(str(result.get("detail") or ""))
    if m is None:
        return None
    try:
        value = ast.literal_eval(m.group(2))
    except (ValueError, SyntaxError):
        return m.group(2)
    return str(value)


def _element_of(action: Tap, shown: list[dict[str, Any]]) -> dict[str, Any] | None:
    target = action.target
    if getattr(target, "kind", "") == "element":
        return next((e for e in shown if e.get("id") == getattr(target, "id", None)), None)
    return None


def _list_item(selector: Selector, action: Any, shown: list[dict[str, Any]]) -> bool:
    """Whether the touched element is one of a repeating list's items."""
    target = getattr(action, "target", None)
    if isinstance(target, AnchorTarget):
        return target.resource_id is not None and (target.text or target.desc) is not None
    if selector.id is None and (selector.desc or selector.text):
        element = _element_of(action, shown) if isinstance(action, Tap) else None
        if element is None or not element.get("resource_id"):
            return False
        rid = element["resource_id"]
        return sum(1 for e in shown if e.get("resource_id") == rid) > 1
    return False


def _new_state(selector: Selector, text_then: str | None,
               elements: list[dict[str, Any]]) -> list[Selector]:
    """The last tapped item, if the last screen shows it with a new text (Like → Liked)."""
    key = selector.desc or selector.id
    if key is None:
        return []
    for e in elements:
        same = (selector.desc is not None and re.fullmatch(selector.desc, e.get("desc") or "")) \
            or (selector.desc is None and short_id(e.get("resource_id") or "") == selector.id)
        if same and e.get("text") and e.get("text") != text_then:
            return [dataclasses.replace(selector, text=literal(e["text"]), index=None)]
    return []


__all__ = ["flow_from_trace", "saved_values"]
