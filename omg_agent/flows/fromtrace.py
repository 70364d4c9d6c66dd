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
  when the phone shows it;
* a run that paid, sent or deleted (:mod:`.proof`) ends with checks that prove it worked —
  words of success that only the screen after it shows — and nothing else; without them no
  flow is made (a replay could not tell that it paid).
"""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from omg_agent.core.actions import AnchorTarget, MemSave, Tap, TypeText, parse_action
from omg_agent.errors import FlowError
from omg_agent.flows.model import (
    AssertVisible,
    Command,
    Flow,
    LaunchApp,
    LongPressOn,
    ScrollUntilVisible,
    Selector,
    SwipeScreen,
    TapOn,
)
from omg_agent.flows.proof import CONFIRMED, OnceStep, once_class, proof_checks
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
    numbered = tuple(c.model_copy(update={"line": i}) for i, c in enumerate(commands, 1))
    # Maestro's config needs an appId: the first app launched, else the first one shown
    app = next((c.app for c in numbered if isinstance(c, LaunchApp) and c.app), "") or next(
        (str((s.observation or {}).get("package") or "") for s in trace.steps
         if (s.observation or {}).get("package")), "")
    return Flow(commands=numbered, name=name or trace.task, env=builder.env, app_id=app)


class _Builder:
    def __init__(self) -> None:
        self.commands: list[Command] = []
        self.values: dict[str, str] = {}  # value -> $name (saved from the screen)
        self.env: dict[str, str] = {}
        self.swipe: SwipeScreen | None = None
        self.last_tap: tuple[Selector, str | None] | None = None
        self.acted: tuple[int, list[dict[str, Any]]] | None = None  # (trace line, elements)
        self.once: list[OnceStep] = []  # steps that cannot be undone, in order
        self.screens = 0  # screens seen so far (step observations and new screens in results)
        self.latest: tuple[int, list[dict[str, Any]]] = (0, [])  # the last screen seen

    def step(self, step: StepRecord) -> None:
        obs = step.observation or {}
        elements = list(obs.get("elements") or [])
        size = obs.get("size")
        ran, screens = _ran(step)
        base = self.screens
        self.screens += len(screens)
        for number, seen in enumerate(screens, base + 1):
            if seen is not None:
                self.latest = (number, seen)
        once_before = len(self.once)
        for action, result, stale, at in ran:
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
            if isinstance(action, Tap) and made and isinstance(made[0], TapOn) \
                    and made[0].selector is not None:
                element = _element_of(action, shown)
                self.last_tap = (made[0].selector, element.get("text") if element else None)
            self._once(step, action, made, screens[:at + 1], base + at + 1)
            self.acted = (step.line, elements)
        if len(self.once) == once_before and _confirmed(step) and ran:
            at = ran[-1][3]  # the user's yes went to this step's last action
            self.once.append(OnceStep(CONFIRMED, step.step, "the action you confirmed", None,
                                      _flat(screens[:at + 1]), base + at + 1))

    def _once(self, step: StepRecord, action: Any, made: list[Command],
              screens: list[list[dict[str, Any]] | None], number: int) -> None:
        """Note ``action`` if it cannot be undone (pay, send, delete, …)."""
        here = screens[-1] or []
        selector = getattr(made[0], "selector", None) if made else None
        element = _element_of(action, here) if isinstance(action, Tap | TypeText) else None
        hit = once_class(action, element, selector, here)
        if hit is not None:
            self.once.append(OnceStep(hit[0], step.step, hit[1], selector, _flat(screens),
                                      number))

    def _vars(self, text: str) -> str:
        for value, key in sorted(self.values.items(), key=lambda kv: -len(kv[0])):
            text = text.replace(value, f"${key}")
        return text

    def _add(self, command: Command, action: Any, shown: list[dict[str, Any]]) -> None:
        if isinstance(command, SwipeScreen):
            self.swipe = command  # kept only if no list item follows
            return
        if isinstance(command, TapOn | LongPressOn) and command.selector is not None \
                and _list_item(command.selector, action, shown):
            self.commands.append(ScrollUntilVisible(selector=command.selector,
                                                    direction="down", timeout_s=20.0))
            self.swipe = None
        if self.swipe is not None:
            self.commands.append(self.swipe)
            self.swipe = None
        self.commands.append(command)

    def finish(self, steps: tuple[StepRecord, ...]) -> list[Command]:
        out = list(self.commands)
        if self.swipe is not None:
            out.append(self.swipe)
        if self.once:  # only a proof of the outcome may end a flow that paid
            return out + [AssertVisible(selector=s) for s in self._proofs()]
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
        return out + [AssertVisible(selector=s) for s in dict.fromkeys(checks)]

    def _proofs(self) -> list[Selector]:
        last = self.once[-1]
        what = f"step {last.step}: {last.label!r} cannot be undone ({last.once}), and "
        number, after = self.latest
        if number <= last.screen:
            raise FlowError(what + "the trace holds no screen after it to show that it "
                            "worked; a replay could not tell, so no flow is made of this run")
        proofs = proof_checks(after, self.once)
        if not proofs:
            raise FlowError(what + "the last screen shows nothing new that says it worked "
                            "(such as 'Payment successful'); a replay could not tell, so no "
                            "flow is made of this run")
        return proofs


Ran = tuple[Any, dict[str, Any] | None, bool, int]


def _ran(step: StepRecord) -> tuple[list[Ran], list[list[dict[str, Any]] | None]]:
    """The actions of ``step`` that ran — with their result, whether they ran on a screen
    newer than the step's observation, and the index of that screen — and the step's
    screens: its observation's elements, then those of each new screen in its results
    (``None`` where a screen was not recorded)."""
    obs = step.observation
    screens: list[list[dict[str, Any]] | None] = [
        list(obs.get("elements") or []) if obs else None]
    by_index: dict[int, tuple[dict[str, Any], bool, int]] = {}
    saved: dict[str, dict[str, Any]] = {}
    stale = False
    for r in step.results:
        if isinstance(r.get("observation"), dict):  # a new screen ("screen" or "stop")
            screens.append(list(r["observation"].get("elements") or []))
        if r.get("type") == "screen":
            stale = True
        elif r.get("type") == "mem_save" and r.get("ok"):
            m = _SAVED.match(str(r.get("detail") or ""))
            if m:
                saved[m.group(1)] = r
        elif isinstance(r.get("index"), int) and r.get("ok"):
            by_index[r["index"]] = (r, stale, len(screens) - 1)
    out: list[Ran] = []
    for i, data in enumerate(step.actions):
        try:
            action = parse_action(data)
        except ValidationError:
            continue  # not an action this version reads: nothing to replay from it
        if isinstance(action, MemSave):
            if action.key in saved:
                out.append((action, saved[action.key], False, 0))
        elif i in by_index:
            result, was_stale, at = by_index[i]
            out.append((action, result, was_stale, at))
    return out, screens


def _confirmed(step: StepRecord) -> bool:
    """Whether the user said yes to a held action of ``step`` through the gate."""
    return any(r.get("type") == "gate" and r.get("ok") and "confirmed" in str(
        r.get("detail") or "") for r in step.results)


def _flat(screens: list[list[dict[str, Any]] | None]) -> tuple[dict[str, Any], ...]:
    return tuple(e for screen in screens for e in screen or ())


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


def _element_of(action: Tap | TypeText, shown: list[dict[str, Any]]) -> dict[str, Any] | None:
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
