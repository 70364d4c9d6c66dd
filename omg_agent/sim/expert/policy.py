"""The expert policy: a model double's brain that reads the vphone's TRUE state.

:class:`ExpertPolicy` answers each request in the contract it asks for (see
:func:`~omg_agent.sim.model_double.contract_name`): a one-step ``TaskPlan`` for the planner,
a ``DecisionBundle`` for the operator (the task's next moves, with element ids read from the
request's element list), a ``Replan`` after a sub-task. Seeded :class:`NoiseProfile` knobs
make it behave like an imperfect model: misplaced taps (point targets off the element
centre, relying on the driver's snapping), no-op turns, malformed JSON, premature
``goal_complete``, a wrongly remembered value, and one action per reply vs bundles.
"""

from __future__ import annotations

import json
import logging
import random
import re
import threading
from dataclasses import dataclass
from typing import Any, Literal

from omg_agent.core.actions import AnchorTarget, AskUser, Done, is_boundary, parse_action
from omg_agent.core.geometry import pixel_to_norm
from omg_agent.drivers.unseen import blind_reason, targets
from omg_agent.sim.expert.screen import Screen, request_text
from omg_agent.sim.expert.tasks import MoveContext, Task
from omg_agent.sim.model_double import contract_name
from omg_agent.sim.replies import bundle

log = logging.getLogger(__name__)
MAX_BUNDLE = 5


@dataclass(frozen=True)
class NoiseProfile:
    """How imperfect the simulated model is; every draw comes from one seeded RNG."""

    tap_offset_px: int = 0
    noop_rate: float = 0.0
    malformed_rate: float = 0.0
    premature_done_rate: float = 0.0
    wrong_memory_rate: float = 0.0
    bundling: Literal["single", "multi"] = "multi"

    @classmethod
    def named(cls, name: str, bundling: Literal["single", "multi"] = "multi") -> NoiseProfile:
        profiles = {
            "none": cls(bundling=bundling),
            "moderate": cls(tap_offset_px=24, noop_rate=0.08, malformed_rate=0.05,
                            premature_done_rate=0.03, wrong_memory_rate=0.5,
                            bundling=bundling),
        }
        if name not in profiles:
            raise ValueError(f"unknown noise profile {name!r}: choose "
                             + " or ".join(profiles))
        return profiles[name]


class ExpertPolicy:
    """Answers for one task on one phone (``phone`` is the in-process VirtualPhone)."""

    def __init__(self, task: Task, phone: Any, noise: NoiseProfile | None = None,
                 seed: int = 0) -> None:
        self.task = task
        self.phone = phone
        self.noise = noise or NoiseProfile()
        self.rng = random.Random(seed)
        self.turns = 0
        self._wrong_saved = False
        self._lock = threading.Lock()
        # each app's first screen the run showed, as texts: what it did not bring about
        self._first: dict[str, set[str]] = {}

    def reply(self, request: dict[str, Any]) -> str:
        with self._lock:
            name = contract_name(request)
            text = request_text(request)
            try:
                if name == "TaskPlan":
                    return json.dumps(self._plan())
                if name == "Replan":
                    return json.dumps(self._replan(text))
                return self._decide(request)
            finally:
                self._first.setdefault(_app(text), set(_texts(text)))

    # -- planner -------------------------------------------------------------------------
    def _plan(self, guide: str = "", saved: bool = False) -> dict[str, Any]:
        """Milestones as a careful planner writes them: a task that carries a value to
        another place reads it first (a step checked by the saved key), then the goal."""
        step: dict[str, Any] = {"description": self.task.goal, "action_guide": guide,
                                "success_criteria": self.task.criteria, "complexity": 3,
                                "checks": criteria_checks(self.task.criteria)}
        key = self.task.data_output
        if not key or saved:
            return {"goal": self.task.goal, "steps": [step]}
        read = {"description": f"Find the value the task needs and save it as ${key}",
                "action_guide": guide, "success_criteria": f"${key} is saved",
                "complexity": 3, "data_output": key,
                "checks": [{"kind": "memory", "key": key}]}
        return {"goal": self.task.goal, "steps": [read, step]}

    def _replan(self, text: str) -> dict[str, Any]:
        if self._achieved():
            return {"status": "done", "response": self._summary(),
                    # what the criteria quote and the value the run saved (what it brought
                    # to the screen), else a text no earlier screen showed
                    "evidence": (criteria_checks(self.task.criteria)
                                 + self.task.evidence(self.phone)
                                 + _value_shown(text, self.task.data_output))
                    or _shown(text, self._first.get(_app(text), set()))}
        # what is left, from where the phone is now (as the replan prompt asks)
        where = re.search(r"Current screen:\s*app (\S+)", text)
        guide = f"continue from the current screen ({where.group(1)})" if where else ""
        return {"status": "replanned", "plan": self._plan(guide, saved=_saved(
            text, self.task.data_output))}

    def _summary(self) -> str:
        """The answer for the user: the goal, and the value it produced ($var, filled in by
        the agent's memory)."""
        key = self.task.data_output
        return f"Finished: {self.task.goal}" + (f" — ${key}" if key else "")

    def _achieved(self) -> bool:
        """The goal is reached (an impossible task never is: its check only says nothing
        was harmed, and the right end is reporting it infeasible)."""
        return not self.task.impossible and self.task.check(self.phone)

    # -- operator ------------------------------------------------------------------------
    def _decide(self, request: dict[str, Any]) -> str:
        n = self.noise
        first = self.turns == 0
        self.turns += 1
        if self.rng.random() < n.malformed_rate:
            return '{"thought": "cut off", "last_action_'
        result = "none" if first else "success"
        # as the system prompt says: without a planner the operator keeps the plan (its
        # checklist every turn, the end state's checks on the first) — or acts once a call
        system = _system_text(request)
        single = n.bundling == "single" or "exactly one action" in system
        plan: dict[str, Any] = {}
        if "you keep the plan" in system:
            plan["todo"] = [f"[{'x' if self._achieved() else ' '}] {self.task.goal}"]
            if first:
                plan["end_checks"] = criteria_checks(self.task.criteria) or None
        if self._achieved() or self.rng.random() < n.premature_done_rate:
            return bundle(result=result, goal_complete=True, step_complete=True,
                          answer=self._summary(), **plan)
        if self.rng.random() < n.noop_rate:
            return bundle([{"type": "wait", "seconds": 0.1}], "look again", result=result, **plan)
        text = request_text(request)
        screen = Screen(text)
        # the step that reads the value is done once it is saved: say so, and go on with
        # the next step's actions in the same reply
        reading = re.search(r"Current step \d+: Find the value the task needs", text)
        if reading and _saved(text, self.task.data_output):
            plan["step_complete"] = True
        wrong = not self._wrong_saved and self.rng.random() < n.wrong_memory_rate
        moves = self.task.moves(self.phone, screen, MoveContext(text, wrong_memory=wrong))
        if any(m["type"] == "mem_save" and "value" in m for m in moves):
            self._wrong_saved = True  # a misremembered value is said once, not every turn
        if not moves:
            return bundle([{"type": "wait", "seconds": 0.5}], "settle", result=result, **plan)
        if moves[0]["type"] == "report_infeasible":
            return bundle(result=result, goal_infeasible=True, answer=moves[0]["reason"], **plan)
        if moves[0]["type"] == "report_declined":
            return bundle(result=result, user_declined=True, answer=moves[0]["reason"], **plan)
        moves = [self._offset(m, screen) for m in moves]
        return bundle(self._cut(moves, screen, single), self.task.goal, result=result, **plan)

    def _cut(self, moves: list[dict[str, Any]], screen: Screen,
             single: bool = False) -> list[dict[str, Any]]:
        """The actions of one reply: the first (single), or — as the operator prompt
        says — this screen's actions up to the first boundary, then only anchored ones."""
        if single:
            return moves[:1]
        out: list[dict[str, Any]] = []
        crossed = False
        for move in moves[:MAX_BUNDLE]:
            action = parse_action(move)
            if crossed and blind_reason([action]) and not _after_anchor(out, action):
                break
            out.append(move)
            target = move.get("target") or {}
            element = next((e for e in screen.elements if target.get("kind") == "element"
                            and e.id == target.get("id")), None)
            # as the executor judges it (core.actions.stays_on_screen): a field or a switch
            stays = element is not None and ("editable" in element.flags or (
                "checkable" in element.flags and element.role == "switch"))
            if isinstance(action, AskUser | Done):
                break
            crossed = crossed or (is_boundary(action) and not stays)
        return out

    def _offset(self, move: dict[str, Any], screen: Screen) -> dict[str, Any]:
        """A tap on an element becomes a point a few pixels off its centre (noise)."""
        px = self.noise.tap_offset_px
        target = move.get("target") or {}
        if px <= 0 or move.get("type") != "tap" or target.get("kind") != "element":
            return move
        element = next((e for e in screen.elements if e.id == target["id"]), None)
        if element is None:
            return move
        prof = self.phone.profile
        dx, dy = pixel_to_norm((self.rng.uniform(-px, px), self.rng.uniform(-px, px)),
                               (prof.width, prof.height))
        x = min(1000, max(0, round(element.x + dx)))
        y = min(1000, max(0, round(element.y + dy)))
        return {**move, "target": {"kind": "point", "x": x, "y": y}}


def _saved(text: str, key: str | None) -> bool:
    """Whether the request's memory listing holds ``key``."""
    return bool(key) and f"${key} = " in text


def _system_text(request: dict[str, Any]) -> str:
    """The request's system prompt (the operator's rules, which differ by planning mode)."""
    first = request["messages"][0]
    content = first.get("content") if first.get("role") == "system" else ""
    return content if isinstance(content, str) else ""


def _after_anchor(sent: list[dict[str, Any]], action: Any) -> bool:
    """A key / back / untargeted type may follow a screen change only right after an anchored
    action (which checked the new screen); element ids and points never may."""
    if any(not isinstance(t, AnchorTarget) for t in targets(action)):
        return False
    last = parse_action(sent[-1]) if sent else None
    return last is not None and any(isinstance(t, AnchorTarget) for t in targets(last))


def _shown(text: str, seen: set[str]) -> list[dict[str, Any]]:
    """Evidence from the screen the planner is shown: the first text that is not typed into
    a field and that the app's first screen did not show (``seen``: what the run changed —
    a careful planner quotes that, not a title that was there before it acted), else the
    first text."""
    texts = _texts(text)
    new = [t for t in texts if t not in seen]
    return [{"kind": "element", "text": t, "match": "contains"} for t in (new or texts)[:1]]


def _value_shown(text: str, key: str | None) -> list[dict[str, Any]]:
    """The value the run saved under ``key`` (``$key = "…"`` in the request), as evidence."""
    m = re.search(rf'\${re.escape(key)} = "([^"]+)"', text) if key else None
    return [{"kind": "element", "text": m.group(1), "match": "contains"}] if m else []


def _app(text: str) -> str:
    """The package of a request's current screen ("" when it names none)."""
    m = re.search(r"Current screen:\s*app (\S+)", text)
    return m.group(1) if m else ""


def _texts(text: str) -> list[str]:
    """The texts a request's current screen shows outside input fields, in order (the list
    cuts long texts with …)."""
    screen = Screen(text.split("Current screen:", 1)[-1])
    return list(dict.fromkeys(e.text.rstrip("…") for e in screen.elements
                              if e.text.rstrip("…") and e.role != "input"))


_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”")


def criteria_checks(criteria: str) -> list[dict[str, Any]]:
    """The checks a careful planner attaches to criteria that quote what the screen shows:
    an element showing each quoted text."""
    return [{"kind": "element", "text": m.group(1) or m.group(2), "match": "contains"}
            for m in _QUOTED.finditer(criteria)]
