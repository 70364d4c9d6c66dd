"""The interactive side of ``omg-agent flow record``: you act, the phone does it, the flow
keeps the anchor.

Each turn shows the current screen's element list (the one renderer,
:func:`omg_agent.perception.elementlist.render`) and reads one command; the action runs on
the device through the driver and :class:`~.record.FlowRecorder` keeps it as anchored
steps. ``done`` writes the flow atomically. No terminal library here: the CLI passes the
line reader and the printer in.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Callable
from pathlib import Path

from omg_agent.core.actions import (
    Action,
    Back,
    ElementTarget,
    Home,
    Key,
    Launch,
    LongPress,
    Swipe,
    Tap,
    TypeText,
)
from omg_agent.core.observation import Observation
from omg_agent.drivers.base import Driver
from omg_agent.flows.model import AssertVisible, Command, FlowStep, LaunchApp, SaveValue
from omg_agent.flows.record import FlowRecorder, selector_for
from omg_agent.flows.store import write_atomic
from omg_agent.flows.write import dump_flow
from omg_agent.perception.elementlist import render

HELP = ("tap N | long N | type [N] TEXT | enter | back | home | launch APP | scroll up|down"
        " | save KEY N | check N | done")


def parse_command(line: str, obs: Observation) -> Action | Command | str | None:
    """One typed command: an action to run, a flow step to add, "done", or ``None``
    (not understood)."""
    try:
        words = shlex.split(line)
    except ValueError:
        return None
    if not words:
        return None
    verb, args = words[0].lower(), words[1:]
    number = int(args[0]) if args and args[0].isdigit() else None
    match verb, args:
        case "done", []:
            return "done"
        case ("tap" | "long"), [_] if number is not None:
            target = ElementTarget(id=number)
            return Tap(target=target) if verb == "tap" else LongPress(target=target)
        case "type", [_, *rest] if number is not None and rest:
            return TypeText(text=" ".join(rest), target=ElementTarget(id=number), clear=True)
        case "type", [*rest] if rest:
            return TypeText(text=" ".join(rest))
        case "enter", []:
            return Key(key="enter")
        case "back", []:
            return Back()
        case "home", []:
            return Home()
        case "launch", [*rest] if rest:
            return Launch(app=" ".join(rest))
        case "scroll", [("up" | "down") as way]:
            return Swipe(direction="up" if way == "down" else "down")
        case ("save" | "check"), [*rest] if rest and rest[-1].isdigit():
            element = obs.element(int(rest[-1]))
            if element is None:
                return None
            sel = selector_for(element, obs.elements)
            if verb == "check":
                return AssertVisible(selector=sel)
            if len(rest) != 2:
                return None
            return SaveValue(key=rest[0], selector=sel)
    return None


def record_session(driver: Driver, out: Path, *, input_line: Callable[[str], str],
                   show: Callable[[str], None]) -> int:
    """Record until ``done``; writes ``out`` and returns how many steps it holds."""
    recorder = FlowRecorder()
    show(f"recording: {HELP}")
    while True:
        obs = driver.observe()
        show(f"— {obs.package} —\n" + render(obs.elements, obs.screen))
        parsed = parse_command(input_line("flow> "), obs)
        if parsed == "done":
            break
        if parsed is None or isinstance(parsed, str):
            show(f"not understood; commands: {HELP}")
            continue
        if isinstance(parsed, FlowStep):
            recorder.commands.append(parsed)
            continue
        result = driver.execute([parsed], obs)
        if not result.ok:
            bad = next((o for o in result.outcomes if not o.ok), None)
            show(f"not done: {bad.detail if bad else 'not run'}")
            continue
        point = result.outcomes[0].point if result.outcomes else None
        recorder.add(parsed, obs, point)
    flow = recorder.flow()
    flow = dataclasses.replace(flow, app_id=next(
        (c.app for c in flow.commands if isinstance(c, LaunchApp)), ""))
    write_atomic(out, dump_flow(flow))
    return len(flow.commands)
