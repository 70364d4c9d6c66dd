"""The compiler: a macro on the screen now becomes the next chunk of a device program.

A :class:`Chunk` is what one shell call does: the touches on qualifying items the screen
shows (in list order), then — unless the stop condition is met — one scroll of the list
that brings the last handled item's target to the top, so the next screen starts with the
first item not yet seen. Every touch of a chunk is judged on the screen it was planned on,
so a chunk goes on past a touch only while that touch is known to keep the screen: the
judged port's one rule, :func:`~omg_agent.drivers.inputs.keeps_screen` (a switch, an edit
field). A touch that may change it (a Like button: the app may open anything on it) ends
the chunk, with no scroll, and the next chunk is planned and judged on the look after it
(attack round: a like opened a page whose Pay sat where the next Like was, and the next tap
of the same chunk paid). The commands come from :mod:`omg_agent.drivers.commands` (the one
place that spells ``input`` and packs fragments into calls with ``OMG_OK`` markers), so a
chunk is one ``adb shell`` call. No ``sleep`` is added: ``input`` waits for each event to
be dispatched; the runner then lets the driver wait for the screen to settle (its next dump
started with the inputs) and takes the checkpoint observation.

:func:`checkpoint` judges that observation (:class:`Progress` says what was sent): still in
the app, the list still there, no system dialog that was not there when the macro started,
the item the scroll was to keep in view still in view (a list that flung further would have
carried items past unseen), and every item the chunk touched that is still on screen
showing its done state.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from omg_agent.core.geometry import Point
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers import commands as cmds
from omg_agent.drivers.inputs import keeps_screen
from omg_agent.drivers.ports import InputEffect, Verb
from omg_agent.macros.items import Item, container_of, items_on
from omg_agent.macros.model import Macro, Stop

SCROLL_MS = 300
MIN_SCROLL, MAX_SCROLL = 0.25, 0.8  # share of the list's height one scroll moves
SYSTEM_IDS = "android:id/"


@dataclass
class Progress:
    """What a run of the macro has done so far (item keys)."""

    sent: list[str] = field(default_factory=list)  # touched, in order
    verified: list[str] = field(default_factory=list)  # touched and seen done afterwards
    passed: set[str] = field(default_factory=set)  # seen and left alone (done, filtered)
    last_chunk: tuple[str, ...] = ()
    kept: str = ""  # the item the last scroll keeps in view (continuity check)


@dataclass(frozen=True)
class Chunk:
    taps: tuple[tuple[str, Point], ...]  # (item key, pixel point) in order
    scroll: tuple[Point, Point] | None
    final: bool  # the stop condition is met once the taps went through
    reason: str = ""  # why it is final
    seen: tuple[str, ...] = ()  # keys of every item on this screen

    def steps(self, action: str) -> list[cmds.Step]:
        out = [cmds.Step(i, ((cmds.long_press(p, 800) if action == "long_press"
                              else cmds.tap(p)),), f"{action} {key}")
               for i, (key, p) in enumerate(self.taps)]
        if self.scroll is not None:
            start, end = self.scroll
            out.append(cmds.Step(len(out), (cmds.swipe(start, end, SCROLL_MS),), "scroll"))
        return out

    def calls(self, action: str) -> list[cmds.Call]:
        """The shell calls of this chunk (one, unless it outgrows a call)."""
        return cmds.pack(self.steps(action))


def is_done(macro: Macro, anchor: UIElement) -> bool:
    """Whether an item's target shows the action done (``Liked ♥``, or selected/checked,
    or — with only the before-text known — anything else)."""
    t = macro.target
    if t.done_text:
        return anchor.text == t.done_text
    if t.todo_text:
        return anchor.text != t.todo_text
    return anchor.selected or anchor.checked


def qualifies(macro: Macro, item: Item) -> bool:
    return all(item.fields.get(k) == v for k, v in macro.where.items())


def screen_items(macro: Macro, obs: Observation) -> list[Item]:
    container = container_of(obs.elements, macro.container)
    if container is None:
        return []
    return items_on(obs.elements, container, macro.target.resource_id, macro.target.role,
                    macro.band)


def plan_chunk(macro: Macro, stop: Stop, obs: Observation, progress: Progress) -> Chunk:
    """The next chunk on ``obs``; ``progress.passed`` gains the items it leaves alone."""
    container = container_of(obs.elements, macro.container)
    if container is None:
        return Chunk((), None, True, f"the list {macro.container} is not on the screen")
    items = items_on(obs.elements, container, macro.target.resource_id, macro.target.role,
                     macro.band)
    limit = stop.count - len(progress.sent) if stop.count else None
    until = _until_top(obs, container, stop.until_text)
    taps: list[tuple[str, Point]] = []
    keep: Item | None = None  # the last item handled here: it stays in view after the scroll
    progress.kept = ""
    final, reason, cut = False, "", False
    for item in items:
        if until is not None and item.band[1] > until:  # the text is in or above it
            final, reason = True, f"{stop.until_text!r} shows"
            break
        if item.key in progress.sent or item.key in progress.passed:
            keep = item
            continue
        if not item.whole:
            if item.anchor.bounds.top <= container.bounds.top:
                progress.passed.add(item.key)  # cut off above: before where the run began
                continue
            break  # cut off below: whole after the scroll
        keep = item
        if is_done(macro, item.anchor) or not qualifies(macro, item):
            progress.passed.add(item.key)
            continue
        if limit is not None and len(taps) >= limit:
            break
        taps.append((item.key, item.anchor.center))
        if not _keeps(macro, item, obs):
            cut = True  # what this touch opens is seen before anything else is sent
            break
    seen = tuple(i.key for i in items)
    if limit is not None and len(taps) >= limit:
        final, reason = True, f"{stop.count} items done"
    elif cut:
        return Chunk(tuple(taps), None, False, "", seen)
    elif until is not None and not final:
        final, reason = True, f"{stop.until_text!r} shows"
    if final:
        return Chunk(tuple(taps), None, True, reason, seen)
    box = container.bounds
    if keep is not None and keep.anchor.bounds.top - box.top >= box.height * MIN_SCROLL:
        progress.kept = keep.key  # a scroll of its own length keeps it in view
    return Chunk(tuple(taps), _scroll(macro, container, keep), False, "", seen)


def _keeps(macro: Macro, item: Item, obs: Observation) -> bool:
    """Whether the macro's touch on ``item`` is known to keep ``obs`` (see the module
    docstring): the judged port's rule, asked about this touch."""
    verb: Verb = "long_press" if macro.target.action == "long_press" else "tap"
    touch = InputEffect(verb, item.anchor.center, duration_ms=800, element=item.anchor)
    return keeps_screen(touch, obs, item.anchor)


def _until_top(obs: Observation, container: UIElement, text: str | None) -> int | None:
    """The top of the first element in the list showing ``text``."""
    if not text:
        return None
    hits = [e.bounds.top for e in obs.elements if (text in e.text or text in e.desc)
            and container.bounds.contains(e.center)]
    return min(hits) if hits else None


def _scroll(macro: Macro, container: UIElement, keep: Item | None) -> tuple[Point, Point]:
    """A scroll that brings ``keep``'s target to the top of the list (the next items below
    it), moving between MIN_SCROLL and MAX_SCROLL of the list's height."""
    box = container.bounds
    height = box.height
    wanted = keep.anchor.bounds.top - box.top if keep is not None else \
        round(height * MAX_SCROLL)
    distance = max(round(height * MIN_SCROLL), min(round(height * MAX_SCROLL), wanted))
    x = box.left + box.width // 2
    if macro.scroll == "down":
        start = box.top + round(height * 0.05)
        return Point(x, start), Point(x, start + distance)
    start = box.bottom - round(height * 0.05)
    return Point(x, start), Point(x, start - distance)


def checkpoint(macro: Macro, obs: Observation, progress: Progress,
               known_ids: frozenset[str]) -> str:
    """What is wrong with the screen after a chunk ('' when nothing is); verified items
    join ``progress.verified``."""
    if obs.package and obs.package != macro.app:
        return f"the phone left {macro.app}: {obs.package} is in front"
    container = container_of(obs.elements, macro.container)
    strange = [e for e in obs.elements if e.resource_id.startswith(SYSTEM_IDS)
               and e.resource_id not in known_ids]
    if strange or container is None:
        shown = "; ".join(e.label for e in (strange or list(obs.elements)) if e.label)[:160]
        return (f"an unexpected window covers the list: {shown}" if strange else
                f"the list {macro.container} is gone; the screen shows: {shown}")
    items = screen_items(macro, obs)
    if progress.kept and all(i.key != progress.kept for i in items):
        return (f"the list moved past {progress.kept!r}, the item the scroll was to keep in "
                "view: items may have gone by unseen")
    for item in items:
        if item.key not in progress.last_chunk or item.key in progress.verified:
            continue
        if not is_done(macro, item.anchor):
            return (f"{macro.target.action} on {item.key!r} did not take: it still shows "
                    f"{item.anchor.text!r}")
        progress.verified.append(item.key)
    return ""
