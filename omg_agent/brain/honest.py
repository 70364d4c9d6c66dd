"""Honest done (DESIGN.md §5): a check that held before the run acted proves nothing, and a
task of a sensitive class is done only with an action of that class the user let through.

Three parts of one rule, over the run's :class:`~omg_agent.brain.run_state.RunState`:

- **Baselines** (:func:`look`): the run keeps its earliest screens (elements only, from the
  first observation before any action on) and gives every check it knows — each plan
  step's checks, the operator's end checks, a planner's evidence — the value it had on the
  first of those screens that tells it (:func:`~omg_agent.brain.verify.determines`: a
  switch's state where the switch was first seen); a check that an element is (or is not)
  on the screen also gets its value on each app's first kept screen, and is judged against
  the first screen of the app it holds in now when the run saw that app before (a list the
  run merely opened showed its rows before it acted). Values are saved with the state; a
  resumed process keeps them, and a check it meets first has none.
- **Effects** (:func:`acted_on`): the elements the run's actions landed on and that went
  through. A check that held at first sight (or has no value) proves something only when
  an action landed on the element it names (:func:`backed`).
- **The ending** (:func:`finish_done`): every ``done`` goes through here. The plan's end
  checks must hold a check that changed or is backed (:func:`unproven_end`; not for a step
  that reads a value, :func:`changes`, nor for a task that only looks or asks,
  :func:`observes_only`), and a task
  that asks to pay, send or delete needs that class in the gate's ledger, carried out ok
  (:func:`~omg_agent.guards.ledger.missing_passage`); a task that lists several things
  ("Add A and B to the cart") needs each on a screen after the run acted (:func:`unshown`);
  after a toggle, the end checks must
  still hold a moment later (:mod:`.end_holds`: a switch can flip back). Otherwise the run
  ends ``unverified`` (exit 9) with the reason — never ``done``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Sequence

from PIL import Image

from omg_agent.brain import end_holds
from omg_agent.brain.budget import StopReport
from omg_agent.brain.quoted import beyond_limit
from omg_agent.brain.run_context import RunContext
from omg_agent.brain.run_state import RunState
from omg_agent.brain.verdicts import DONE_HINT, INFEASIBLE_HINT
from omg_agent.brain.verify import check_failure, determines, filled
from omg_agent.core.checks import ElementCheck, StepCheck
from omg_agent.core.contracts import TaskStep
from omg_agent.core.geometry import Bounds, ScreenGeometry
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers.base import ActionOutcome
from omg_agent.guards.ledger import Passage, missing_passage, task_classes, writes_text
from omg_agent.guards.task_objects import listed_objects
from omg_agent.perception.anchor import match_anchor
from omg_agent.perception.labels import latin_words

MAX_SEEN = 40  # the earliest distinct screens kept (elements only)
MAX_TOUCHED = 400  # elements acted on, newest kept
_DOT = Image.new("RGB", (1, 1))  # a kept screen's picture: only its elements are read
UNPROVEN_HINT = ("look at the phone: the run could not show the task done (finish it "
                 "yourself, or run it again with checks of what it changes)")


def check_key(check: StepCheck) -> str:
    """The one name a check's baseline is kept under (its fields, as written)."""
    return json.dumps(check.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)


def look(run: RunContext, obs: Observation) -> None:
    """Note a screen the run observed: kept while it is one of the run's earliest (from a
    screen before any action on), and every known check without a value gets one."""
    s = run.state
    fresh = not s.seen and not s.touched and not any(r.acted for r in s.records)
    if (s.seen or fresh) and len(s.seen) < MAX_SEEN \
            and all(o.screen_hash != obs.screen_hash or not obs.screen_hash for o in s.seen):
        s.seen.append(Observation(_DOT, obs.elements, obs.package, obs.activity,
                                  obs.screen_hash, geometry=obs.screen))
        s.apps.setdefault(obs.package, obs.screen_hash)
    remember(run, [c for step in s.todo.steps for c in step.checks])
    if s.touched or any(r.acted for r in s.records):
        note_shown(s, obs)


def note_shown(s: RunState, obs: Observation) -> None:
    """The objects the task lists (:func:`~omg_agent.guards.task_objects.listed_objects`)
    that ``obs`` — a screen after the run acted — shows."""
    texts = [_flat(t) for e in obs.elements for t in (e.text, e.desc) if t]
    for thing in listed_objects(s.task):
        if thing not in s.shown and any(_flat(thing) in t for t in texts):
            s.shown.append(thing)


def _flat(text: str) -> str:
    return " ".join(text.split()).casefold()


def unshown(s: RunState) -> str | None:
    """Why a task that lists several things ("Add A and B to the cart") is not done: one
    of them was never on a screen after the run acted, nor on an element it acted on — a
    run that never showed it did not act on it (``None``: each was shown)."""
    if s.last_obs is not None and (s.touched or any(r.acted for r in s.records)):
        note_shown(s, s.last_obs)
    touched = [_flat(t) for e in s.touched for t in (e.get("text", ""), e.get("desc", "")) if t]
    missing = [o for o in listed_objects(s.task)
               if o not in s.shown and not any(_flat(o) in t for t in touched)]
    if not missing:
        return None
    return (f"the task names {', '.join(repr(o) for o in missing)}, which no screen after the "
            "run acted showed")


def remember(run: RunContext, checks: Iterable[StepCheck]) -> None:
    """Give each of ``checks`` without a value its value on the earliest kept screen that
    tells it (none yet: it gets one on a later look, or never); a check that an element is
    (or is not) on the screen also gets its value on each app's first kept screen."""
    s = run.state
    for check in checks:
        key = check_key(check)
        wanted = filled(check, run.memory.substitute)
        first = None if key in s.baseline else next(
            (o for o in s.seen if determines(wanted, o)), None)
        if first is not None:
            s.baseline[key] = not check_failure(wanted, first, run.memory.get)
        if not _on_screen(check):
            continue
        for o in s.seen:
            where = f"{key}@{o.package}"
            if where not in s.baseline and s.apps.get(o.package) == o.screen_hash:
                s.baseline[where] = not check_failure(wanted, o, run.memory.get)


MAX_SAVED = 12  # the kept screens a saved state carries: the first, then each app's first
_FLAGS = ("checkable", "checked", "selected", "editable", "focused", "clickable")


def saved_screens(s: RunState) -> list[dict[str, object]]:
    """The kept screens a resumed process needs to judge checks it meets first (the run's
    first screen and each app's first), elements and frame only (the frame says which
    elements were on the screen); a password field's text is never written."""
    firsts = set(s.apps.values())
    keep = [o for i, o in enumerate(s.seen) if i == 0 or o.screen_hash in firsts]
    return [{"package": o.package, "activity": o.activity, "hash": o.screen_hash,
             "frame": [o.screen.width, o.screen.height, o.screen.status_bar,
                       o.screen.nav_bar, o.screen.margin],
             "elements": [_element_data(e) for e in o.elements]} for o in keep[:MAX_SAVED]]


def _element_data(e: UIElement) -> dict[str, object]:
    data: dict[str, object] = {"cls": e.cls, "role": e.role, "bounds": list(e.bounds)}
    for name in ("text", "desc", "resource_id", "hint"):
        value = getattr(e, name)
        if value and not (name == "text" and e.password):
            data[name] = value
    data.update({f: True for f in _FLAGS if getattr(e, f)})
    return data


def restore_screens(s: RunState, saved: Iterable[dict[str, object]]) -> None:
    """Give a resumed run the kept screens :func:`saved_screens` wrote."""
    s.seen = []
    for screen in list(saved)[:MAX_SAVED]:
        raw = screen.get("elements")
        elements = tuple(UIElement(
            i, str(d.get("cls", "")), str(d.get("role", "")), Bounds(*d["bounds"]),
            text=str(d.get("text", "")), desc=str(d.get("desc", "")),
            resource_id=str(d.get("resource_id", "")), hint=str(d.get("hint", "")),
            checkable=bool(d.get("checkable")), checked=bool(d.get("checked")),
            selected=bool(d.get("selected")), editable=bool(d.get("editable")),
            focused=bool(d.get("focused")), clickable=bool(d.get("clickable")))
            for i, d in enumerate(raw if isinstance(raw, list) else [])
            if isinstance(d, dict) and _box(d.get("bounds")))
        s.seen.append(Observation(_DOT, elements, str(screen.get("package", "")),
                                  str(screen.get("activity", "")), str(screen.get("hash", "")),
                                  geometry=_frame(screen.get("frame"))))


def _box(value: object) -> bool:
    """Whether a saved element's bounds are four integers (a hand-edited state may not)."""
    return isinstance(value, list) and len(value) == 4 \
        and all(isinstance(n, int) for n in value)


def _frame(value: object) -> ScreenGeometry | None:
    """A saved screen's frame (size, bars, margin: which elements were on the screen), or
    ``None`` when a state saved without one (or edited by hand) has none that makes sense."""
    if not (isinstance(value, list) and len(value) == 5
            and all(isinstance(n, int) for n in value)):
        return None
    try:
        return ScreenGeometry(*value)
    except ValueError:
        return None


def _on_screen(check: StepCheck) -> bool:
    """An element present or absent, no state: told by any screen."""
    return isinstance(check, ElementCheck) and check.shows is None \
        and check.checked is None and check.selected is None


def acted_on(s: RunState, outcomes: Iterable[ActionOutcome]) -> None:
    """The elements actions landed on and went through: the run's effects (and when it
    last toggled a switch: :mod:`.end_holds`)."""
    outcomes = list(outcomes)
    if end_holds.toggled(outcomes):
        s.toggled_at = time.monotonic()
    for o in outcomes:
        e = o.element
        if o.ok and e is not None and not e.password:
            s.touched.append({"text": e.text, "desc": e.desc, "resource_id": e.resource_id})
    del s.touched[:-MAX_TOUCHED]


def backed(check: StepCheck, touched: Sequence[dict[str, str]]) -> bool:
    """Whether an action of the run landed on the element ``check`` names."""
    if not isinstance(check, ElementCheck):
        return False
    anchor = check.anchor()
    return any(match_anchor(anchor, [_element(t)]) is not None for t in touched)


def _element(t: dict[str, str]) -> UIElement:
    return UIElement(0, "", "", Bounds(0, 0, 1, 1), text=t.get("text", ""),
                     desc=t.get("desc", ""), resource_id=t.get("resource_id", ""))


def proves(s: RunState, check: StepCheck) -> bool:
    """A check that passes now (on ``s.last_obs``) is evidence of the run's work: it was
    false when the run first saw what it names, or an action of the run landed there. For
    an element on the screen, "first saw" is the first screen of the app it shows in now,
    when the run saw that app before — any text of a list the run merely opened was there
    before it acted — else the run's first screen."""
    if getattr(check, "in_field", False) and not writes_text(s.task, getattr(check, "text",
                                                                              None)):
        # text in an edit field is what was typed there: the model's own words ("Airplane
        # mode is on" typed into a URL bar) unless the task asks for text to be written
        return False
    key = check_key(check)
    value = s.baseline.get(key)
    now = s.last_obs
    if _on_screen(check) and now is not None:
        first = s.apps.get(now.package)
        if first is not None and first != now.screen_hash:
            value = s.baseline.get(f"{key}@{now.package}", value)
    return value is False or backed(check, s.touched)


def unproven_end(run: RunContext, checks: Sequence[StepCheck]) -> str | None:
    """Why passing ``checks`` show nothing the run did (``None``: one of them does)."""
    remember(run, checks)
    if any(proves(run.state, c) for c in checks):
        return None
    said = "; ".join(c.describe() for c in checks) or "no checks"
    return f"its checks already held before the run acted ({said})"


_ASKING = frozenset({
    "look", "read", "tell", "check", "what", "what's", "whats", "which", "how", "who",
    "when", "where", "is", "are", "does", "do", "did", "was", "were", "can", "count",
    "show", "list", "see", "find", "describe"})
_POLITE = frozenset({"please", "could", "would", "you", "me", "kindly"})
_GOING = frozenset({"open", "go", "launch", "navigate", "visit", "search", "scroll"})
_HAN = re.compile(r"[\u4e00-\u9fff]")
_ZH_ASKING = re.compile(r"[吗嗎]|多少|什么|哪|几[个條条天]|是否|查看|看看|告诉我")
_JOINED = re.compile(r"\b(?:and|then|also)\b|[,;，；、]|然后|并且|并|再", re.IGNORECASE)


def observes_only(task: str) -> bool:
    """Whether ``task`` asks only to look or to answer ("look at the screen", "what is the
    price of …?", "电池还剩多少？", "Open Shop and tell me the price of …") — naming no
    pay, send or delete, one clause opened by a question word, or English clauses each
    opened by a question word or one that only goes somewhere (open, go to, search), one
    of them asking. Such a task changes nothing, so text that was on the screen before the
    run acted is what its answer rests on, not a claim of a change; any task that joins
    another clause ("check … and turn on …", "打开…然后…") is judged as a change."""
    if task_classes(task):
        return False
    if _JOINED.search(task):
        clauses = [c for c in _JOINED.split(task) if latin_words(c)]
        return not _HAN.search(task) and all(_asks(c, _GOING) for c in clauses) \
            and any(_asks(c) for c in clauses)
    return _asks(task) or bool(_ZH_ASKING.search(task))


def _asks(clause: str, also: frozenset[str] = frozenset()) -> bool:
    """A clause opened by a question word (or one of ``also``), or a question."""
    words = [w for w in latin_words(clause) if w not in _POLITE]
    return bool(words) and (words[0] in _ASKING or words[0] in also) \
        or clause.rstrip().endswith(("?", "？"))


def changes(step: TaskStep | None) -> bool:
    """Whether ``step``'s checks must show a change: a step that reads a value
    (``data_output``) changes nothing — its checks say where the value shows, and the value
    saved is its result."""
    return step is not None and bool(step.checks) and not step.data_output


def passages(run: RunContext) -> list[Passage]:
    """What the gate let go in this run (all its processes)."""
    return run.gatekeeper.passed.entries if run.gatekeeper is not None else run.state.passed


def declined_on_price(run: RunContext, answer: str, obs: Observation) -> bool:
    """End a claimed done of a purchase the task allowed only under a price ("Buy it if it
    costs under ¥50"), when nothing was paid and the answer states a price ``obs`` shows
    beyond that limit: the task cannot be done as asked (``infeasible``) — no planner call
    (its look would add nothing) and never ``done`` (no payment went through)."""
    s = run.state
    if "payment" not in task_classes(s.task) \
            or any(p.cls == "payment" and p.ok for p in passages(run)):
        return False
    words = run.memory.substitute(answer)
    price = beyond_limit(s.task, words, obs)
    if price is None:
        return False
    why = words or f"the price shown, {price}, is beyond the task's limit"
    run.event("infeasible", reason=why, price=str(price))
    s.finish("INFEASIBLE", why, StopReport(
        tuple(s.todo.done()), f"the task cannot be done as asked: {why}", INFEASIBLE_HINT))
    return True


def finish_done(run: RunContext, answer: str, report: StopReport | None = None) -> None:
    """End the run ``done`` with ``answer`` — when the phone and the gate back it; else
    ``unverified``, saying why (see the module doc)."""
    s = run.state
    final = s.todo.steps[-1] if s.todo.steps else None
    missing = missing_passage(s.task, passages(run))
    why = unproven_end(run, final.checks) \
        if final is not None and changes(final) and not observes_only(s.task) else None
    if why is not None and missing is None and task_classes(s.task):
        # a pay/send/delete task whose action the user allowed went through: that is the
        # effect the run made, whatever its end checks showed before (a resumed run's first
        # screen may be the one after the approved Pay)
        why = None
    why = why or missing or unshown(s) or end_holds.end_flipped(run, final)
    answer = run.memory.substitute(answer)
    if why is None:
        s.finish("DONE", answer, report or StopReport(
            tuple(s.todo.done()), "the task is complete", DONE_HINT))
        return
    if s.todo.steps:
        s.todo.untick_from(len(s.todo.steps) - 1)
    run.event("done_unproven", reason=why, answer=answer)
    s.finish("UNVERIFIED", answer, StopReport(
        tuple(s.todo.done()), f"the task was reported done, but {why}", UNPROVEN_HINT))


__all__ = ["UNPROVEN_HINT", "acted_on", "backed", "changes", "check_key", "declined_on_price",
           "finish_done", "look",
           "note_shown", "observes_only", "passages", "proves", "remember", "restore_screens",
           "saved_screens", "unproven_end", "unshown"]
