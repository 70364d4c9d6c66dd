"""The detector: repeated sub-sequences of a run, generalised into a :class:`Macro`.

Input is a list of :class:`Act` — what each executed action touched and the screen it acted
on — built online from the operator's turns (:func:`acts_of_turn`) or offline from a trace
folder (:func:`acts_of_trace`, via :func:`omg_agent.trace.loader.load_trace`). The detector
looks at the run's tail: the longest suffix made only of touches on one *signature* (same
app, same scrolling list, same resource-id and role at the acted-on element) and scrolls of
that list. Two or more touches on distinct items make a pattern; it is generalised into:

* the target — the element's resource-id and role, an anchor inside the repeating item;
* the item's text before and after the action (``Like`` → ``Liked ♥``, from a later screen
  that shows an acted item again), so the runner skips done items and checks its work;
* the item band (fields above or below the anchor) and the ``where`` filter: a field whose
  text every acted item shared while an item the run passed over showed another (the run
  liked Alice's posts and skipped Bob's: ``author == 'Alice'``). Items passed over that no
  field explains mean the pattern is not understood, and nothing is proposed;
* the step — scroll the list in the direction the run scrolled.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers.base import ActionOutcome
from omg_agent.macros.items import Band, Item, items_on, scroll_parent
from omg_agent.macros.model import Macro, Target

MIN_REPEATS = 2
TOUCHES = ("tap", "long_press")
PASSIVE = ("swipe", "wait", "observe")  # may come between repetitions (observe: a screen)


@dataclass(frozen=True)
class Act:
    """One executed action: its kind, where it landed, and the screen it acted on."""

    kind: str  # tap | long_press | swipe | other action types
    package: str
    elements: tuple[UIElement, ...]
    point: tuple[int, int] | None = None
    direction: str = ""  # a swipe's finger direction
    size: tuple[int, int] = (0, 0)
    element: UIElement | None = None  # what the driver said the touch landed on

    def touched(self) -> UIElement | None:
        """The element the touch landed on: the driver's word for it, else the smallest one
        with a resource-id at the point."""
        if self.element is not None and self.element.resource_id:
            return self.element
        if self.point is None:
            return None
        hits = [e for e in self.elements if e.resource_id and e.bounds.contains(self.point)
                and not e.scrollable]
        return min(hits, key=lambda e: e.bounds.area) if hits else None


@dataclass(frozen=True)
class Detection:
    """The detector's answer: a macro, or why there is none."""

    macro: Macro | None
    reason: str
    acted: tuple[str, ...] = ()  # keys of the items acted on, in order


@dataclass(frozen=True)
class _Touch:
    act: Act
    element: UIElement
    container: UIElement
    index: int  # position in the act list


def detect(acts: Sequence[Act], *, min_repeats: int = MIN_REPEATS) -> Detection:
    """The macro the tail of ``acts`` repeats, if it repeats one ``min_repeats`` times."""
    touches = _tail(acts)
    if not touches:
        return Detection(None, "the run does not end in touches on a list")
    first = touches[-1]
    keys = [_key(t) for t in touches]
    if len(set(keys)) < min_repeats:
        return Detection(None, f"{len(set(keys))} distinct item(s) acted on; a macro needs "
                               f"{min_repeats}")
    if len(set(keys)) < len(keys):
        return Detection(None, "the same item was acted on twice: not a walk down a list")
    band, where, why = _filter(touches, acts)
    if why:
        return Detection(None, why, tuple(keys))
    el = first.element
    todo = Counter(t.element.text for t in touches).most_common(1)[0][0]
    target = Target(resource_id=el.resource_id, role=el.role,
                    action="long_press" if first.act.kind == "long_press" else "tap",
                    todo_text=todo, done_text=_done_text(touches, acts, todo))
    scrolls = [a.direction for a in acts[touches[0].index:] if a.kind == "swipe"]
    macro = Macro(name=_name(first.act.package, el.resource_id, where), app=first.act.package,
                  profile=f"{first.act.size[0]}x{first.act.size[1]}",
                  container=first.container.resource_id, target=target, band=band,
                  where=where, scroll="down" if scrolls and scrolls[-1] == "down" else "up",
                  repetitions=len(touches), examples=tuple(keys))
    return Detection(macro, f"{len(touches)} repetitions of {macro.describe()}", tuple(keys))


def detect_in_run(acts: Sequence[Act], *, min_repeats: int = MIN_REPEATS) -> Detection:
    """The last pattern anywhere in a recorded run (offline): the run may have gone on after
    it (a macro, a final check, going home), so each earlier end is tried, latest first."""
    first = detect(acts, min_repeats=min_repeats)
    end = len(acts) - 1
    while first.macro is None and end > 0:
        found = detect(acts[:end], min_repeats=min_repeats)
        if found.macro is not None:
            return found
        end -= 1
    return first


# -- the tail ------------------------------------------------------------------------------
def _touch(act: Act, index: int) -> _Touch | None:
    if act.kind not in TOUCHES or act.point is None:
        return None
    element = act.touched()
    container = scroll_parent(act.elements, act.point)
    if element is None or container is None or not container.resource_id:
        return None
    return _Touch(act, element, container, index)


def _signature(t: _Touch) -> tuple[str, ...]:
    return (t.act.kind, t.act.package, t.container.resource_id, t.element.resource_id,
            t.element.role)


def _tail(acts: Sequence[Act]) -> list[_Touch]:
    """The touches of the longest suffix of one signature (scrolls allowed between)."""
    tail: list[_Touch] = []
    for index in range(len(acts) - 1, -1, -1):
        act = acts[index]
        if act.kind in PASSIVE:
            continue
        touch = _touch(act, index)
        if touch is None or (tail and _signature(touch) != _signature(tail[0])):
            break
        tail.insert(0, touch)
    return tail


def _key(t: _Touch) -> str:
    return _item(t, "above").key


def _item(t: _Touch, band: Band) -> Item:
    for item in items_on(t.act.elements, t.container, t.element.resource_id, t.element.role,
                         band):
        if item.anchor.bounds == t.element.bounds:
            return item
    return Item(t.element.desc or t.element.text, t.element, (0, 0))


# -- generalising ----------------------------------------------------------------------------
def _done_text(touches: list[_Touch], acts: Sequence[Act], todo: str) -> str:
    """The text an acted item's target shows on a later screen (``Liked ♥``)."""
    acted = {_key(t): t for t in touches}
    seen: Counter[str] = Counter()
    for act in acts[touches[0].index + 1:]:
        container = next((e for e in act.elements
                          if e.resource_id == touches[0].container.resource_id), None)
        if container is None:
            continue
        el = touches[0].element
        for item in items_on(act.elements, container, el.resource_id, el.role, "above"):
            earlier = acted.get(item.key)
            if earlier is not None and earlier.act is not act and item.anchor.text != todo:
                seen[item.anchor.text] += 1
    return seen.most_common(1)[0][0] if seen else ""


def _filter(touches: list[_Touch], acts: Sequence[Act]) -> tuple[Band, dict[str, str], str]:
    """The band orientation and ``where`` filter that explain which items were skipped."""
    acted = {_key(t) for t in touches}
    best: tuple[Band, dict[str, str]] | None = None
    for band in ("above", "below"):
        chosen, skipped = _acted_and_skipped(touches, acted, band)
        if not skipped:
            return "above", {}, ""
        for field_id in _shared_fields(chosen):
            value = chosen[0].fields[field_id]
            if all(s.fields.get(field_id) not in (None, value) for s in skipped):
                best = best or (band, {field_id: value})
    if best is not None:
        return best[0], best[1], ""
    return "above", {}, ("the run passed over items that no field of theirs tells apart "
                         "from the ones it acted on")


def _acted_and_skipped(touches: list[_Touch], acted: set[str],
                       band: Band) -> tuple[list[Item], list[Item]]:
    """Items acted on, and whole items the run passed over (above the lowest acted item of
    the same screen, not acted, not already done)."""
    chosen: list[Item] = []
    skipped: list[Item] = []
    todo = Counter(t.element.text for t in touches).most_common(1)[0][0]
    by_screen: dict[int, list[_Touch]] = {}
    for t in touches:
        by_screen.setdefault(id(t.act.elements), []).append(t)
    for group in by_screen.values():
        t0 = group[0]
        items = items_on(t0.act.elements, t0.container, t0.element.resource_id,
                         t0.element.role, band)
        lowest = max(t.element.bounds.top for t in group)
        for item in items:
            if item.key in acted and any(item.anchor.bounds == t.element.bounds
                                         for t in group):
                chosen.append(item)
            elif item.whole and item.anchor.bounds.top < lowest and item.key not in acted \
                    and item.anchor.text == todo:
                skipped.append(item)
    return chosen, skipped


def _shared_fields(items: list[Item]) -> list[str]:
    """Field ids every item shows, with one text across them all."""
    if not items:
        return []
    common = set(items[0].fields)
    for item in items[1:]:
        common &= set(item.fields)
    return sorted(f for f in common if len({i.fields[f] for i in items}) == 1)


def _name(package: str, resource_id: str, where: dict[str, str]) -> str:
    name = f"{package.rsplit('.', 1)[-1]}-{resource_id.rsplit('/', 1)[-1]}"
    if where:
        digest = hashlib.sha1(repr(sorted(where.items())).encode()).hexdigest()[:6]
        name += f"-where-{digest}"
    return name


# -- building acts -------------------------------------------------------------------------
def acts_of_turn(obs: Observation, outcomes: Iterable[ActionOutcome]) -> list[Act]:
    """The acts of one operator turn: its executed outcomes on the screen it decided on."""
    acts: list[Act] = []
    for o in outcomes:
        if not o.ok:
            continue
        direction = getattr(o.action, "direction", None) or ""
        acts.append(Act(o.action.type, obs.package, obs.elements, o.point, direction,
                        obs.size, o.element))
    return acts


def acts_of_trace(run_dir: Path) -> list[Act]:
    """The acts of a recorded run (its steps' observations, actions and results)."""
    from omg_agent.trace.loader import load_trace

    acts: list[Act] = []
    for step in load_trace(run_dir).steps:
        obs = step.observation or {}
        elements = tuple(_element(e) for e in obs.get("elements") or ())
        size = tuple(obs.get("size") or (0, 0))
        for result in step.results:
            index = result.get("index")
            if not isinstance(index, int) or not result.get("ok") or \
                    index >= len(step.actions):
                continue
            action = step.actions[index]
            point = result.get("point")
            acts.append(Act(str(action.get("type", "")), str(obs.get("package", "")),
                            elements, (int(point[0]), int(point[1])) if point else None,
                            str(action.get("direction") or ""), (int(size[0]), int(size[1]))))
    return acts


def _element(data: dict[str, Any]) -> UIElement:
    """An element of a trace's observation summary (role ``list`` is a scrolling list)."""
    role = str(data.get("role", ""))
    return UIElement(id=int(data.get("id", 0)), cls="", role=role,
                     bounds=Bounds(*(int(v) for v in data.get("bounds", (0, 0, 0, 0)))),
                     text=str(data.get("text", "")), desc=str(data.get("desc", "")),
                     resource_id=str(data.get("resource_id", "")), scrollable=role == "list")
