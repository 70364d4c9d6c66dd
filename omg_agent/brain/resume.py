"""A stopped run, saved so that a later process can go on with it.

A run that stops for a human — a question (``ask_user``) or a sensitive action waiting for a
yes (``needs_confirmation``) — leaves ``state.json`` in its run folder: the task, the plan
with its ticks, the step budget spent, the dialogue, the turn history, the memory bank's
values, the model usage so far and the device it ran on. ``omg-agent run --resume RUN_DIR
--answer "…"`` reads it back (:func:`load_state`) and the orchestrator continues with the
same plan, memory, step count and trace (:meth:`Orchestrator.resume`).

Secrets are masked before anything is written (the caller passes the run's mask); their
values come back from where the user gave them (``--secret``, ``OMG_SECRET_*``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omg_agent.brain.budget import StepBudget, StopReport
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.planner import TodoList
from omg_agent.brain.run_state import RESUMABLE, Dialogue, RunState, TurnRecord
from omg_agent.core.contracts import TaskStep
from omg_agent.core.results import Failure, FailureKind, PostMortem
from omg_agent.errors import ConfigError

STATE_FILE = "state.json"
VERSION = 1


@dataclass(frozen=True)
class SavedRun:
    state: RunState
    memory: dict[str, str]
    turns: int  # operator turns recorded (trace step numbers continue after them)
    usage: tuple[int, int, int]  # model calls, tokens in, tokens out so far
    device: str


def save_state(run_dir: Path, state: RunState, memory: MemoryBank, *, turns: int,
               usage: tuple[int, int, int], device: str,
               mask: Callable[[Any], Any] = lambda v: v) -> Path:
    """Write ``state.json`` (atomically) for a run that stopped resumable."""
    if state.phase not in RESUMABLE:
        raise ValueError(f"a run in phase {state.phase} cannot be resumed")
    data = {
        "version": VERSION, "task": state.task, "phase": state.phase,
        "predefined": state.predefined, "goal": state.todo.goal,
        "todo": [{"step": s.model_dump(mode="json"), "ticked": t}
                 for s, t in state.todo.entries],
        "budget": {"limit": state.budget.limit, "used": state.budget.used,
                   "counts": dict(state.budget.counts)},
        "dialogue": {"pending": state.dialogue.pending,
                     "answers": [list(qa) for qa in state.dialogue.answers]},
        "records": [{"step": r.step, "summary": r.summary, "screen_hash": r.screen_hash,
                     "failure": [r.failure.kind.value, r.failure.message] if r.failure
                     else None} for r in state.records],
        "retried": sorted(state.retried), "jumps": {str(k): v for k, v in state.jumps.items()},
        "checkpoint": state.checkpoint, "outcome": state.outcome, "held": state.held,
        "plan_repeats": state.plan_repeats,
        "post_mortems": [pm.model_dump(mode="json") for pm in state.post_mortems],
        "memory": memory.snapshot(), "turns": turns, "usage": list(usage), "device": device,
    }
    path = Path(run_dir) / STATE_FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(mask(data), ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(tmp, path)
    return path


def load_state(run_dir: Path) -> SavedRun:
    """The run saved in ``run_dir``; :class:`ConfigError` says what is wrong with it."""
    path = Path(run_dir) / STATE_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{run_dir} holds no resumable run (no {STATE_FILE}): only a run "
                          "that stopped for an answer or a confirmation can be resumed") from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path} cannot be read: {exc}") from None
    if data.get("version") != VERSION or data.get("phase") not in RESUMABLE:
        raise ConfigError(f"{path} is not a resumable run of this version "
                          f"(version {data.get('version')!r}, phase {data.get('phase')!r})")
    budget = StepBudget(int(data["budget"]["limit"]))
    budget.used = int(data["budget"]["used"])
    budget.counts.update(data["budget"]["counts"])
    todo = TodoList(data.get("goal", ""), [(TaskStep.model_validate(e["step"]), e["ticked"])
                                           for e in data["todo"]])
    state = RunState(data["task"], budget, phase=data["phase"], todo=todo,
                     predefined=bool(data["predefined"]))
    state.dialogue = Dialogue(data["dialogue"]["pending"],
                              tuple((q, a) for q, a in data["dialogue"]["answers"]))
    state.records = [TurnRecord(r["step"], r["summary"], r["screen_hash"],
                                Failure(FailureKind(r["failure"][0]), r["failure"][1])
                                if r["failure"] else None) for r in data["records"]]
    state.retried = set(data["retried"])
    state.jumps = {int(k): v for k, v in data["jumps"].items()}
    state.checkpoint, state.outcome = data["checkpoint"], data["outcome"]
    state.held, state.plan_repeats = data["held"], data["plan_repeats"]
    state.post_mortems = [PostMortem.model_validate(pm) for pm in data["post_mortems"]]
    state.report = StopReport(tuple(todo.done()), "", "")
    calls, tin, tout = data["usage"]
    return SavedRun(state, dict(data["memory"]), int(data["turns"]), (calls, tin, tout),
                    data["device"])


def restore_memory(memory: MemoryBank, values: dict[str, str]) -> None:
    for key, value in values.items():
        memory.save(key, value, source="model")


__all__ = ["STATE_FILE", "SavedRun", "load_state", "restore_memory", "save_state"]
