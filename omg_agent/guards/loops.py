"""The loop guard: notices an agent going round in circles and says what to do, rung by rung.

Fed after every executed action (DESIGN.md §5) with an :class:`ActionRecord` — the action's
signature, the masked screen hash before and after, the foreground app, and whether the
action should change the screen — and with every replan's text. Two signals:

* **no effect**: an action that should change the screen (a tap on a button, back, a swipe,
  a launch, enter) leaves the hash "the same" by :meth:`ScreenHash.same` (typing into a field,
  a wait or a ``mem_save`` never counts);
* **cycle**: the same action, or a cycle of 2–4 actions, repeating while the set of recent
  screens stops growing (A→B→A→B is caught at the 4th action).

The answer is a :class:`Verdict` on an escalation ladder that counts the *model's* repeats of
an ineffective action (seed 004 §3.2), never the ladder's own moves: the first miss gets
``wait`` (look again in ~2 s, no model call) and the model is then told plainly that its
action had no visible effect; only when the model repeats the same ineffective action comes
``offset`` (the same tap moved to the element's centre or the nearest clickable, see
:mod:`omg_agent.guards.retap`); only on the third ``back``; then ``post_mortem`` (report
``LOOP`` to the planner). So the ladder never leaves an app by a rule the model was not told
about first. A swipe whose content stops moving is the end of a list: the model is told so
(``Verdict.note``), and it never counts as a loop. A cycle goes straight to ``post_mortem``.
Once a post-mortem was reported, a loop that goes on — the same dead action, another cycle,
or a replan identical to one already tried — ends in ``ask_user`` (or ``stop`` when no human
is reachable). Rungs 1–3 carry the action to run (``Verdict.action``): the caller executes
it without asking a model and feeds it back like any other action.

The state is two small frozen parts replaced by pure transitions: the current step's window
and ladder (cleared by :meth:`LoopGuard.reset` on a new plan step, and after a post-mortem)
and the run's memory (plans tried, post-mortems reported), which a new step keeps — else a
planner re-sending the same plan would restart the ladder forever. No I/O, no sleeping.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Literal

from omg_agent.core.actions import Action, Back, Swipe, Wait
from omg_agent.core.observation import Observation, UIElement
from omg_agent.core.signatures import ActionRecord
from omg_agent.guards.retap import SNAP_PX, offset_retap
from omg_agent.perception.screenhash import ScreenHash

WINDOW = 8  # actions the cycle detector looks back over
WAIT_S = 2.0
_PERIODS = (1, 2, 3, 4)


class Rung(StrEnum):
    NONE = "none"
    WAIT = "wait"
    OFFSET = "offset"
    BACK = "back"
    POST_MORTEM = "post_mortem"
    ASK_USER = "ask_user"
    STOP = "stop"


LADDER = (Rung.WAIT, Rung.OFFSET, Rung.BACK)  # the rungs that cost no model call
Trigger = Literal["", "no_effect", "cycle", "replan"]


@dataclass(frozen=True)
class Verdict:
    """What the guard says after an observation.

    ``action`` is set on the rungs the caller runs itself (wait, offset, back); ``reason`` is
    the trace line; ``hint`` says what to do next (post-mortem, ask, stop) — never a larger
    budget.
    """

    rung: Rung = Rung.NONE
    reason: str = ""
    action: Action | None = None
    trigger: Trigger = ""
    hint: str = ""
    note: str = ""  # for the model, on no rung: what the last action showed (end of a list)

    @property
    def escalated(self) -> bool:
        return self.rung is not Rung.NONE

    @property
    def failure(self) -> str:
        """The post-mortem reason this verdict reports (``LOOP``), or ``""``."""
        return "LOOP" if self.rung in (Rung.POST_MORTEM, Rung.ASK_USER, Rung.STOP) else ""


CARRY_ON = Verdict()


# -- the state: small frozen parts ------------------------------------------------------
@dataclass(frozen=True)
class _Ladder:
    """The no-effect episode under way: the model's misses of one action, the rungs given."""

    misses: int = 0
    tried: tuple[Rung, ...] = ()
    move: Action | None = None  # the ladder's own move awaiting its after-screen  # the rungs given
    record: ActionRecord | None = None
    pending: Rung = Rung.NONE

    def miss(self, record: ActionRecord) -> _Ladder:
        """The model's action ``record`` missed: one more repeat of the action that started
        this episode, or the first miss of another action."""
        if self.record is not None and self.record.signature == record.signature:
            return replace(self, misses=self.misses + 1, record=record)
        return _Ladder(misses=1, record=record)


@dataclass(frozen=True)
class _Step:
    records: tuple[ActionRecord, ...] = ()
    ladder: _Ladder = field(default_factory=_Ladder)

    def push(self, record: ActionRecord, limit: int) -> _Step:
        return replace(self, records=(*self.records, record)[-limit:])


@dataclass(frozen=True)
class _Run:
    plans: frozenset[str] = frozenset()
    post_mortems: int = 0
    dead: tuple[ActionRecord, ...] = ()  # actions whose loop was reported in a post-mortem
    last_loop: str = ""
    last_record: ActionRecord | None = None

    def looped(self, record: ActionRecord | None, why: str) -> _Run:
        return replace(self, last_loop=why, last_record=record or self.last_record)

    def reported(self, record: ActionRecord | None, why: str) -> _Run:
        dead = self.dead if record is None else (*self.dead, record)
        return replace(self.looped(record, why), post_mortems=self.post_mortems + 1,
                       dead=dead)


_MARKER = re.compile(r"^\s*(?:[-*+]\s*)?(?:\[[ xX]\]\s*)?(?:\d+[.)]\s*)?")


def normalise_plan(plan_text: str) -> str:
    """A plan's steps compared loosely: case, whitespace and list markers ignored."""
    lines = (_MARKER.sub("", line) for line in plan_text.splitlines())
    return "\n".join(" ".join(line.lower().split()) for line in lines if line.strip())


# -- the guard ----------------------------------------------------------------------------
@dataclass
class LoopGuard:
    """Watches one run. ``human_reachable`` decides the last rung: ``ask_user`` or ``stop``."""

    human_reachable: bool = True
    hasher: ScreenHash = field(default_factory=ScreenHash)
    window: int = WINDOW
    wait_s: float = WAIT_S
    snap_px: int = SNAP_PX
    max_post_mortems: int = 1
    _step: _Step = field(default_factory=_Step, init=False, repr=False)
    _run: _Run = field(default_factory=_Run, init=False, repr=False)

    # -- feeding ----------------------------------------------------------------------------
    def record(self, action: Action, element: UIElement | None, before: str, after: str,
               app: str = "", *, observation: Observation | None = None,
               ui_changed: bool = False) -> Verdict:
        """:meth:`observe` for ``action``; ``observation`` is the screen after it (the offset
        rung needs its elements)."""
        return self.observe(ActionRecord.of(action, element, before, after, app,
                                            ui_changed=ui_changed), observation)

    def observe(self, record: ActionRecord, observation: Observation | None = None) -> Verdict:
        """Take one executed action into account and say what to do now."""
        step = self._step
        seen = [h for r in step.records for h in (r.before, r.after) if h]
        pending = step.ladder.pending
        self._step = step = step.push(record, self.window)
        if pending is Rung.BACK and record.is_back:
            return self._loop("no_effect", self._ladder_end(step.ladder))
        if pending in (Rung.WAIT, Rung.OFFSET) and record.action == step.ladder.move:
            # the ladder's own wait or re-tap: whatever it showed, the model decides next
            self._step = replace(step, ladder=replace(step.ladder, pending=Rung.NONE, move=None))
            if record.after and not any(self._same(record.after, h) for h in seen if h):
                self._step = replace(self._step, ladder=_Ladder())  # it helped: progress
            return CARRY_ON
        if self._no_effect(record) and isinstance(record.action, Swipe):
            return Verdict(note=f"{record.label} did not move the content: the end of the "
                                "list in that direction (not a loop)")
        if self._no_effect(record):
            ladder = step.ladder.miss(record)
            self._step = replace(step, ladder=ladder)
            if self._reported(ladder.record):
                return self._give_up(f"{record.label} still has no effect after a "
                                     "post-mortem", "no_effect", ladder.record)
            return self._climb(observation)
        self._step = replace(step, ladder=replace(step.ladder, pending=Rung.NONE, move=None))
        if record.after and not any(self._same(record.after, h) for h in [*seen, record.before]
                                    if h):
            self._step = replace(self._step, ladder=_Ladder())  # a new screen: progress
        cycle = self._cycle()
        return self._loop("cycle", cycle) if cycle else CARRY_ON

    def note_replan(self, plan_text: str) -> bool:
        """Remember a plan (its steps as text); True when it is one already tried."""
        key = normalise_plan(plan_text)
        if key in self._run.plans:
            return True
        self._run = replace(self._run, plans=self._run.plans | {key})
        return False

    def give_up(self, reason: str, trigger: Trigger = "replan") -> Verdict:
        """The last rung: ``ask_user`` when a human is reachable, else ``stop`` — what the
        caller returns when :meth:`note_replan` says a plan was already tried."""
        return self._give_up(reason, trigger, None)

    def reset(self) -> None:
        """A new plan step: forget the window and the ladder (not the plans tried nor the
        post-mortems reported)."""
        self._step = _Step()

    @property
    def post_mortems(self) -> int:
        return self._run.post_mortems

    def same(self, a: str, b: str) -> bool:
        """Whether two screen hashes show the same screen (the hash's own distance)."""
        return self._same(a, b)

    # -- transitions ------------------------------------------------------------------------
    def _same(self, a: str, b: str) -> bool:
        try:
            return self.hasher.same(a, b)
        except ValueError:  # not a grid hash (a driver without screenshots, a test label)
            return a == b

    def _no_effect(self, record: ActionRecord) -> bool:
        if not record.before or not record.after or record.ui_changed:
            return False
        return record.should_change and self._same(record.before, record.after)

    def _reported(self, record: ActionRecord | None) -> bool:
        return record is not None and any(
            d.signature == record.signature and self._same(d.before, record.before)
            for d in self._run.dead)

    def _climb(self, observation: Observation | None) -> Verdict:
        """The rung for the model's n-th ineffective repeat: wait, offset, back, then LOOP."""
        ladder = self._step.ladder
        missed = ladder.record
        assert missed is not None
        if ladder.misses > len(LADDER):
            return self._loop("no_effect", self._ladder_end(ladder))
        head = f"{missed.label} had no visible effect" + (
            f" (×{ladder.misses})" if ladder.misses > 1 else "")
        rung = LADDER[ladder.misses - 1]
        action: Action
        if rung is Rung.OFFSET:
            retap = None if missed.action is None or observation is None else \
                offset_retap(missed.action, observation, missed.element, snap_px=self.snap_px)
            if retap is not None:
                action, note = retap.action, (f"retried it offset to {retap.note}; the same "
                                              "again and I press back")
            else:
                rung, action = Rung.WAIT, Wait(seconds=self.wait_s)
                note = f"looked again after {self.wait_s:g} s; the same again and I press back"
        elif rung is Rung.WAIT:
            action, note = Wait(seconds=self.wait_s), f"looked again after {self.wait_s:g} s"
        else:
            action, note = Back(), "pressing back"
        self._step = replace(self._step, ladder=replace(
            ladder, tried=(*ladder.tried, rung), pending=rung, move=action))
        return Verdict(rung, f"{head}: {note}", action, "no_effect")

    def _ladder_end(self, ladder: _Ladder) -> tuple[str, ActionRecord | None]:
        missed = ladder.record
        label = missed.label if missed else "the last action"
        app = f" in {missed.app}" if missed and missed.app else ""
        tried = ", ".join(str(r) for r in ladder.tried)
        return (f"{label} had no effect ×{ladder.misses}{app}"
                + (f" ({tried} did not help)" if tried else ""), missed)

    def _cycle(self) -> tuple[str, ActionRecord | None] | None:
        found = find_cycle(self._step.records, self._same)
        if found is None:
            return None
        period, reps = found
        loop = self._step.records[-period:]
        names = " → ".join(r.label for r in loop)
        app = f" in {loop[-1].app}" if loop[-1].app else ""
        return f"{names} repeated ×{reps}{app} without reaching a new screen", loop[0]

    def _loop(self, trigger: Trigger, found: tuple[str, ActionRecord | None]) -> Verdict:
        why, record = found
        if self._run.post_mortems >= self.max_post_mortems:
            return self._give_up(why + " — again, after a post-mortem", trigger, record)
        self._run = self._run.reported(record, why)
        self._step = _Step()
        return Verdict(Rung.POST_MORTEM, f"LOOP: {why}", None, trigger, _route_hint(record))

    def _give_up(self, why: str, trigger: Trigger, record: ActionRecord | None) -> Verdict:
        self._run = self._run.looped(record, why)
        self._step = _Step()
        rung = Rung.ASK_USER if self.human_reachable else Rung.STOP
        hint = _route_hint(self._run.last_record, human=True)
        return Verdict(rung, f"LOOP: {why}", None, trigger, hint)

    def stop_message(self) -> tuple[str, str]:
        """(why the run stopped, what to do next) for a run ended by a loop: the action that
        looped and where, and another route or a human — never a larger budget."""
        why = self._run.last_loop or "the agent kept repeating itself"
        return f"stuck in a loop: {why}", _route_hint(self._run.last_record, human=True)


def _route_hint(record: ActionRecord | None, *, human: bool = False) -> str:
    place = f" in {record.app}" if record is not None and record.app else ""
    what = f"instead of {record.label}{place}" if record is not None else "instead"
    hint = f"take another route to the goal {what} (another menu, search, a different screen)"
    return hint + ("; or let a human look at the phone" if human else "")


def find_cycle(records: Sequence[ActionRecord],
               same: Callable[[str, str], bool]) -> tuple[int, int] | None:
    """(period, repetitions) of a cycle ending at the last record, or None.

    The same action three times, or a sequence of 2–4 actions twice in a row, is a cycle when
    the screens its last round reached were all seen before that round (a round that changed
    the element list below the hash's resolution reached something new: a stepper's +).
    """
    for period in _PERIODS:
        reps = 3 if period == 1 else 2
        size = period * reps
        if len(records) < size:
            continue
        tail = records[-size:]
        if any(tail[i].signature != tail[i - period].signature for i in range(period, size)):
            continue
        earlier = [h for r in records[:-period] for h in (r.before, r.after) if h]
        reached = [r.after for r in records[-period:]]
        if any(r.ui_changed for r in records[-period:]):
            continue
        if all(reached) and all(any(same(h, e) for e in earlier) for h in reached):
            return period, reps
    return None
