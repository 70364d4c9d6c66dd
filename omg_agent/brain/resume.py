"""A run saved at every turn boundary, so that a later process can go on with it.

Every run with a folder keeps ``state.json`` there, rewritten atomically (temp + fsync +
rename + fsync of the folder, :func:`omg_agent.durable.write_atomic`) after each turn by
:class:`RunCheckpoint`: the task, the plan with its ticks, the step budget spent, the
dialogue, the turn history, the memory bank's values and session, the model usage so far
and the device it ran on. Two kinds of stopped run continue from it:

- one that stopped for a human — a question (``ask_user``) or a sensitive action waiting
  for a yes (``needs_confirmation``): ``omg-agent run --resume RUN_DIR --answer "…"``
  (:meth:`Orchestrator.resume`);
- one that was interrupted — killed, crashed, Ctrl-C, device lost: ``omg-agent run
  --resume RUN_DIR`` (:func:`continue_interrupted`). A run that ended ``failed`` (the device
  gone, the model endpoint down, a step given up) keeps its last running state, marked
  ``ended``, so the same command tries again from there once the cause is fixed; a run
  that ended ``done`` or ``infeasible`` is over. The phone may be ahead of the last
  checkpoint (the turn in flight acted), so the run re-observes and re-syncs the plan
  cursor with the screen first: from the cursor on, each step whose checks name an element
  that must be present and pass on the current screen is ticked (the same evidence the
  orchestrator's auto-verify accepts) — a toggle such as a like is never done twice.

The turn in flight when a run dies is lost: its budget charge and its half-written trace
line (cut off by the recorder on resume); the turn is redone.

Secrets are masked before anything is written (the caller passes the run's mask); their
values come back from where the user gave them (``--secret``, ``OMG_SECRET_*``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import astuple, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from omg_agent.brain import honest
from omg_agent.brain.budget import StepBudget, StopReport
from omg_agent.brain.kept import KeptResults
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.planner import TodoList
from omg_agent.brain.run_state import (
    FINAL_PHASES,
    RESUMABLE,
    Dialogue,
    HeldAction,
    Refusal,
    RunResult,
    RunState,
    TurnRecord,
)
from omg_agent.brain.state_schema import MAX_STATE_BYTES, SavedStateFile, first_problem
from omg_agent.brain.verify import names_present_element, verify_step
from omg_agent.core.contracts import TaskStep
from omg_agent.core.results import Failure, FailureKind, PostMortem
from omg_agent.durable import write_atomic
from omg_agent.errors import ConfigError, RunAlreadyEnded
from omg_agent.guards.ledger import Passage
from omg_agent.guards.spend_ledger import SpendLedger

if TYPE_CHECKING:
    from omg_agent.brain.orchestrator import Orchestrator

STATE_FILE = "state.json"
VERSION = 1
RESUME_NOTE = ("The run was interrupted and has just been resumed: the screen may already "
               "show part of this step done. Look before acting; never repeat a toggle "
               "(like, switch) that is already in the wanted state.")


@dataclass(frozen=True)
class SavedRun:
    state: RunState  # with its turns, usage, planning mode, dialogue and todo
    memory: dict[str, str]
    device: str
    session: str = ""  # the memory bank's run id ("" in files from before checkpoints)
    plan_file: str | None = None  # the --plan file of a run interrupted while planning
    ended: str | None = None  # "FAILED": the run failed after this state; a resume retries
    ended_because: str = ""
    dry_run: bool = False  # saved by a --dry-run: resuming it would act for real
    words_grant: bool = False  # the task's words grant (guards/provenance); files before: no

    @property
    def turns(self) -> int:
        """Operator turns recorded (the trace's step numbers continue after them)."""
        return self.state.turns

    @property
    def usage(self) -> tuple[int, int, int]:
        """Model calls, tokens in, tokens out so far."""
        return self.state.usage

    @property
    def interrupted(self) -> bool:
        """Stopped mid-run (killed, Ctrl-C), not waiting for a human's answer."""
        return self.state.phase not in RESUMABLE


def state_data(state: RunState, memory: MemoryBank, *, device: str,
               plan_file: str | None = None, dry_run: bool = False,
               words_grant: bool = False) -> dict[str, Any]:
    """Everything :func:`load_state` needs, as JSON-ready data (not yet masked)."""
    return ({"dry_run": True} if dry_run else {}) | {"words_grant": words_grant} | {
        "version": VERSION, "task": state.task, "phase": state.phase,
        "predefined": state.predefined, "goal": state.todo.goal,
        "todo": [{"step": s.model_dump(mode="json"), "ticked": t}
                 for s, t in state.todo.entries],
        "budget": {"limit": state.budget.limit, "used": state.budget.used,
                   "counts": dict(state.budget.counts)},
        "dialogue": {"pending": state.dialogue.pending, "secret": state.dialogue.secret,
                     "answers": [list(qa) for qa in state.dialogue.answers]},
        "records": [{"step": r.step, "summary": r.summary, "screen_hash": r.screen_hash,
                     "failure": [r.failure.kind.value, r.failure.message] if r.failure
                     else None, "intent": r.intent, "acted": r.acted}
                    for r in state.records],
        "retried": sorted(state.retried), "jumps": {str(k): v for k, v in state.jumps.items()},
        "checkpoint": state.checkpoint, "outcome": state.outcome,
        "held": state.held.as_dict() if state.held else None,
        "refusal": list(astuple(state.refusal)) if state.refusal else None,
        "plan_repeats": state.plan_repeats, "note": state.note, "claim": state.claim,
        "own_todo": state.own_todo, "planned": state.planned,
        "planner_calls": state.planner_calls, "wait_turns": state.wait_turns,
        "confirm_calls": state.confirm_calls,
        "pending_pm": state.pending_pm.model_dump(mode="json") if state.pending_pm else None,
        "post_mortems": [pm.model_dump(mode="json") for pm in state.post_mortems],
        "memory": memory.snapshot(), "session": memory.run_id, "turns": state.turns,
        "usage": list(state.usage), "device": device, "plan_file": plan_file,
        "spent": state.spent.as_data(),
        "baseline": dict(state.baseline), "touched": list(state.touched),
        "shown": list(state.shown), "apps": dict(state.apps), "seen": honest.saved_screens(state),
        "passed": [p.as_dict() for p in state.passed], "kept": state.kept.as_data(),
    }


def save_state(run_dir: Path, state: RunState, memory: MemoryBank, *, device: str,
               mask: Callable[[Any], Any] = lambda v: v, plan_file: str | None = None) -> Path:
    """Write ``state.json`` durably (old or new survives any crash, never a mix)."""
    data = state_data(state, memory, device=device, plan_file=plan_file)
    return _write_state(Path(run_dir), mask(data))


def _write_state(run_dir: Path, data: dict[str, Any]) -> Path:
    path = run_dir / STATE_FILE
    write_atomic(path, json.dumps(data, ensure_ascii=False, indent=1))
    return path


def load_state(run_dir: Path) -> SavedRun:
    """The run saved in ``run_dir``; :class:`ConfigError` says in one line what is wrong
    with it (for a file of the wrong shape, the field: :mod:`.state_schema`)."""
    path = Path(run_dir) / STATE_FILE
    try:
        with path.open("rb") as fh:  # bounded: the path may be anything, even a device
            raw = fh.read(MAX_STATE_BYTES + 1)
        if len(raw) > MAX_STATE_BYTES:
            raise ConfigError(f"{path} is larger than {MAX_STATE_BYTES // 2**20} MiB: not a "
                              "saved run")
        data = json.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{run_dir} holds no resumable run (no {STATE_FILE}): give the "
                          "folder of a run that was interrupted or stopped for an answer"
                          ) from None
    except (OSError, ValueError, RecursionError) as exc:
        raise ConfigError(f"{path} cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} is not a saved run: it holds a JSON "
                          f"{type(data).__name__}, not an object")
    phase = data.get("phase")
    if data.get("version") != VERSION or not isinstance(phase, str):
        raise ConfigError(f"{path} is not a saved run of this version "
                          f"(version {data.get('version')!r}, phase {phase!r})")
    if phase in FINAL_PHASES and phase not in RESUMABLE:
        raise RunAlreadyEnded(run_dir, phase)
    try:
        SavedStateFile.model_validate(data)  # the shape every read below relies on
    except ValidationError as exc:
        raise ConfigError(f"{path} is not a valid saved run: {first_problem(exc)}") from None
    return SavedRun(_state(data), dict(data["memory"]), data["device"],
                    str(data.get("session") or ""), data.get("plan_file"),
                    data.get("ended"), str(data.get("ended_because") or ""),
                    bool(data.get("dry_run", False)), data.get("words_grant") is True)


def _state(data: dict[str, Any]) -> RunState:
    budget = StepBudget(int(data["budget"]["limit"]))
    budget.used = int(data["budget"]["used"])
    budget.counts.update(data["budget"]["counts"])
    todo = TodoList(data.get("goal", ""), [(TaskStep.model_validate(e["step"]), e["ticked"])
                                           for e in data["todo"]])
    state = RunState(data["task"], budget, phase=data["phase"], todo=todo,
                     predefined=bool(data["predefined"]))
    state.dialogue = Dialogue(data["dialogue"]["pending"],
                              tuple((q, a) for q, a in data["dialogue"]["answers"]),
                              secret=bool(data["dialogue"].get("secret", False)))
    state.records = [TurnRecord(r["step"], r["summary"], r["screen_hash"],
                                Failure(FailureKind(r["failure"][0]), r["failure"][1])
                                if r["failure"] else None, str(r.get("intent") or ""),
                                bool(r.get("acted"))) for r in data["records"]]
    state.retried = set(data["retried"])
    state.jumps = {int(k): v for k, v in data["jumps"].items()}
    state.checkpoint, state.outcome = data["checkpoint"], data["outcome"]
    state.held, state.plan_repeats = _held(data["held"]), data["plan_repeats"]
    if data.get("refusal"):
        words, what, cls, turn = data["refusal"]
        state.refusal = Refusal(str(words), str(what), str(cls), int(turn))
    state.note, state.claim = data.get("note", ""), data.get("claim")
    state.own_todo, state.planned = data.get("own_todo", ""), bool(data.get("planned"))
    state.planner_calls = int(data.get("planner_calls", 0))
    state.wait_turns = int(data.get("wait_turns", 0))
    state.confirm_calls = int(data.get("confirm_calls", 0))
    if data.get("pending_pm"):
        state.pending_pm = PostMortem.model_validate(data["pending_pm"])
    state.post_mortems = [PostMortem.model_validate(pm) for pm in data["post_mortems"]]
    state.report = StopReport(tuple(todo.done()), "", "")
    state.turns = int(data["turns"])
    calls, tokens_in, tokens_out = (int(n) for n in data["usage"])
    state.usage = (calls, tokens_in, tokens_out)
    try:
        state.spent = SpendLedger.of(data.get("spent") or [])
    except ValueError as exc:
        raise ConfigError(f"{STATE_FILE} is not a valid saved run: {exc}") from None
    state.baseline = dict(data.get("baseline") or {})  # honest done (brain/honest.py)
    state.touched = list(data.get("touched") or ())
    state.shown = [str(o) for o in data.get("shown") or ()]
    state.apps = dict(data.get("apps") or {})
    honest.restore_screens(state, data.get("seen") or ())
    state.passed = [Passage.of(p) for p in data.get("passed") or ()]
    state.kept = KeptResults.of(data.get("kept"))  # the scans under Kept (issue 40)
    return state


def _held(data: Any) -> HeldAction | None:
    """The held action as saved: the whole action since issue 24; a description alone in
    files from before (a yes to it then goes to the operator, which must tap again)."""
    if isinstance(data, str):
        return HeldAction(data, "", {})
    return HeldAction.of(data) if isinstance(data, dict) else None


def restore_memory(memory: MemoryBank, values: dict[str, str]) -> None:
    """Put the saved values back where the bank lacks them. A value the bank already holds
    is newer than (or equal to) the checkpoint's: it was committed after it."""
    present = memory.snapshot()
    for key, value in values.items():
        if key not in present:
            memory.save(key, value, source="model")


class RunCheckpoint:
    """Saves ``state.json`` from the run's state at every turn boundary (the orchestrator's
    ``checkpoint``), with the memory bank's values beside it. The trace's lines are fsynced
    once here, per turn, instead of one by one (see ``__init__``)."""

    def __init__(self, run_dir: Path, device: str, memory: MemoryBank, recorder: Any = None,
                 *, mask: Callable[[Any], Any] = lambda v: v, dry_run: bool = False,
                 words_grant: bool = False) -> None:
        self.run_dir = Path(run_dir)
        self.device = device
        self.dry_run = dry_run  # written into the state: a dry run is never resumed for real
        self.words_grant = words_grant  # whether the task's words grant: kept for a resume
        self.memory = memory
        self.recorder = recorder
        self.mask = mask
        self.saves = 0
        self._running: dict[str, Any] | None = None  # the last running state saved
        self.retryable = False  # the run failed, and --resume can try again from a boundary
        if hasattr(recorder, "sync_each"):
            recorder.sync_each = False  # this checkpoint syncs once per turn

    def __call__(self, state: RunState) -> None:
        self.save(state)

    def save(self, state: RunState, plan_file: str | None = None) -> None:
        """Save ``state`` (before the run begins: with the ``--plan`` file it plans)."""
        sync = getattr(self.recorder, "sync", None)
        if callable(sync):  # the turn's trace lines reach the disk before the state does
            sync()
        data = self.mask(state_data(state, self.memory, device=self.device,
                                    plan_file=plan_file, dry_run=self.dry_run,
                                    words_grant=self.words_grant))
        if state.phase not in FINAL_PHASES:
            self._running = data
        elif state.phase == "FAILED" and self._running is not None \
                and not state.budget.exhausted:
            # a failed run (device lost, model down, a step given up) can be tried again
            # from its last good boundary; done, infeasible and out-of-budget runs are over
            report = state.report.stopped_because if state.report else ""
            data = {**self._running, "ended": "FAILED", "ended_because": self.mask(report)}
            self.retryable = True
        _write_state(self.run_dir, data)
        self.saves += 1


def continue_interrupted(orchestrator: Orchestrator, saved: SavedRun) -> RunResult:
    """Go on with an interrupted run: re-observe, re-sync the plan with the screen, loop."""
    state = saved.state
    if state.phase == "PLAN":  # died while planning: nothing was spent, plan again
        plan = Path(saved.plan_file) if saved.plan_file else None
        fresh = RunState(state.task, StepBudget(orchestrator.settings.max_steps),
                         turns=state.turns, usage=state.usage)
        return orchestrator.start(fresh, plan)
    orchestrator.begin(state)
    obs = orchestrator.driver.observe()
    state.last_obs = obs
    ticked = resync_plan(state.todo, obs, orchestrator.memory)
    if ticked:
        state.checkpoint = obs.screen_hash
        state.outcome = f"step {ticked[-1] + 1} '{state.todo.steps[ticked[-1]].description}' done"
    if state.phase == "THINK":
        state.note = RESUME_NOTE
    if orchestrator.recorder is not None:
        orchestrator.recorder.record_event("resynced", phase=state.phase,
                                           ticked=[i + 1 for i in ticked],
                                           todo=state.todo.markdown())
    orchestrator.save_checkpoint()  # the re-synced state is this process's first boundary
    return orchestrator.finish_loop()


def resync_plan(todo: TodoList, obs: Any, memory: MemoryBank) -> list[int]:
    """Tick the steps the screen shows done, from the cursor on and in order: each needs a
    check naming an element that must be present, and every check passing. Returns the
    indexes ticked."""
    ticked: list[int] = []
    while (index := todo.cursor) is not None:
        step = todo.steps[index]
        if not step.checks or not names_present_element(step.checks):
            break
        if verify_step(step, obs, memory.get, memory.substitute) is not None:
            break
        todo.tick(index)
        ticked.append(index)
    return ticked


def interrupted(orchestrator: Orchestrator, run_dir: Path, during: str = "Ctrl-C") -> RunResult:
    """End a run the user interrupted: status ``interrupted``, the trace finished with it,
    and the command that goes on. ``state.json`` keeps the last turn boundary. A run that had
    already ended when the interrupt took effect keeps its outcome (and its trace)."""
    state = orchestrator.state
    if state is None:
        raise RuntimeError("interrupted before the run began: nothing to end")
    if state.phase in FINAL_PHASES:
        if getattr(orchestrator.recorder, "finished", False):
            return orchestrator.outcome()
        return orchestrator._result()
    state.finish("INTERRUPTED", "", StopReport(
        orchestrator.done_so_far(), f"interrupted ({during}) at step {state.budget.used}",
        f"go on with: omg-agent run --resume {run_dir}"))
    return orchestrator._result()  # the one place a result is built and the trace finished


__all__ = ["STATE_FILE", "RunCheckpoint", "SavedRun", "continue_interrupted", "interrupted",
           "load_state", "restore_memory", "resync_plan", "save_state", "state_data"]
