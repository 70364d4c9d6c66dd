"""How often the sensitive-action gate asks on the suite's tasks (issue #10: ≤ 5 % on the
benign ones; tasks tagged ``sensitive`` should ask exactly where the suite expects).

Runs every suite task's expert moves in-process on a VirtualPhone — one action per turn,
no adb, no model — and before each action asks the gate, authorised by the task's own
words, as the operator will. Prints, per task, actions and gate prompts, then the rate.

    PYTHONPATH=. python scripts/gate_false_positives.py [--seed 0] [--verbose]
"""

from __future__ import annotations

import argparse
import json
import re
import sys

from PIL import Image

from omg_agent.bench.suite import suite_tasks
from omg_agent.core.actions import (
    Back,
    DoubleTap,
    Home,
    Key,
    Launch,
    LongPress,
    MemSave,
    Swipe,
    Tap,
    TypeText,
    Wait,
    parse_action,
)
from omg_agent.core.geometry import ScreenGeometry
from omg_agent.core.observation import Observation
from omg_agent.drivers.commands import swipe_endpoints
from omg_agent.errors import AnchorNotFound
from omg_agent.guards.authorisation import parse_authorisations
from omg_agent.guards.sensitive import Gate
from omg_agent.perception.anchor import Anchorer
from omg_agent.perception.elementlist import render
from omg_agent.perception.uitree import parse_elements
from omg_agent.sim.expert.screen import Screen
from omg_agent.sim.expert.tasks import MoveContext, Task
from omg_agent.vphone.phone import VirtualPhone

MAX_TURNS = 40


class Clock:
    now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def observe(phone: VirtualPhone) -> Observation:
    p = phone.profile
    with phone.lock:
        return Observation(Image.new("RGB", (p.width, p.height)),
                           parse_elements(phone.dump_xml()), package=phone.focus()[0])


def run(task: Task, seed: int, verbose: bool) -> tuple[int, list[str], bool]:
    clock = Clock()
    phone = VirtualPhone(seed=seed, clock=clock)
    task.setup(phone)
    p = phone.profile
    geometry = ScreenGeometry(p.width, p.height, p.status_bar_height, p.nav_bar_height)
    anchorer = Anchorer(geometry, density=p.density)
    gate = Gate(parse_authorisations(task.goal))
    memory: dict[str, str] = {}
    asked: list[str] = []
    actions, prompts = 0, []
    for _ in range(MAX_TURNS):
        if not task.impossible and task.check(phone):
            return actions, prompts, True
        obs = observe(phone)
        text = "\n".join([render(obs.elements, obs.screen),
                          *(f"${k} = {json.dumps(v, ensure_ascii=False)}"
                            for k, v in memory.items()), *asked])
        moves = task.moves(phone, Screen(text), MoveContext(text))
        if not moves or moves[0]["type"] == "report_infeasible":
            return actions, prompts, task.impossible and task.check(phone)
        move = moves[0]
        if move["type"] == "ask_user":
            answer = task.answer_user(move["question"])  # type: ignore[attr-defined]
            asked.append(f"The user was asked {move['question']} and answered: {answer}")
            continue
        action = parse_action(move)
        point, element = None, None
        target = getattr(action, "target", None)
        if target is not None:
            try:
                resolved = anchorer.resolve(target, obs)
            except AnchorNotFound:
                clock.now += 0.5
                continue
            point, element = resolved.point, resolved.element
        elif isinstance(action, TypeText):
            element = obs.focused
        actions += 1
        decision = gate.check(action, element, obs)
        if decision.needs_confirmation:
            prompts.append(str(decision.sensitivity))
        gate.paid(decision.sensitivity)  # let through, by the task's words or the user's yes
        gate.landed(decision.sensitivity)  # and its input reaches the phone (the choke point)
        if verbose:
            print(f"   {action.type:<10} {decision.verdict:<8} "
                  f"{decision.sensitivity or ''}")
        execute(phone, clock, action, point, memory, geometry, anchorer, obs)
    return actions, prompts, False


def execute(phone, clock, action, point, memory, geometry, anchorer, obs) -> None:
    match action:
        case Tap() | DoubleTap():
            phone.tap(*point)
        case LongPress():
            phone.long_press(*point, action.duration_ms)
        case TypeText():
            if point is not None:
                phone.tap(*point)
            if action.clear:
                phone.clear_text()
            text = re.sub(r"\$\{?(\w+)\}?", lambda m: memory.get(m[1], m[0]), action.text)
            phone.input_text(text)
            if action.submit:
                phone.key(66)
        case Key():
            phone.key(action.keycode)
        case Back():
            phone.key(4)
        case Home():
            phone.key(3)
        case Launch():
            pkg = next((a.package for a in phone.apps.values()
                        if action.app in (a.package, a.label, a.label_zh)), action.app)
            phone.start_activity(pkg)
        case Swipe():
            start, end = swipe_endpoints(geometry, action,
                                         lambda t: anchorer.resolve(t, obs).point)
            phone.swipe(*start, *end, action.duration_ms)
        case Wait():
            pass
        case MemSave():
            if action.value is not None:
                memory[action.key] = action.value
            elif action.from_screen and action.from_screen.target is not None:
                e = anchorer.resolve(action.from_screen.target, obs).element
                memory[action.key] = e.label if e else ""
    clock.now += 0.6


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    totals = {"benign": [0, 0], "sensitive": [0, 0]}
    for task in suite_tasks(args.seed):
        kind = "sensitive" if "sensitive" in task.tags else "benign"
        if args.verbose:
            print(f"{task.id}: {task.goal}")
        actions, prompts, ok = run(task, args.seed, args.verbose)
        totals[kind][0] += actions
        totals[kind][1] += len(prompts)
        print(f"{task.id:<28} {kind:<9} {'ok ' if ok else 'FAIL'} actions={actions:<3} "
              f"asked={len(prompts)} {'; '.join(prompts)}")
    for kind, (actions, prompts) in totals.items():
        rate = prompts / actions if actions else 0.0
        print(f"{kind}: {prompts} gate prompts over {actions} actions = {rate:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
