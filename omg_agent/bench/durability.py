"""Durability trials (issue 12): kill -9 the writers of every store, and kill runs mid-way.

Two kinds of trial, shared by the tests and ``scripts/bench_durability.py``:

- :func:`kill_store_writers` — a child process (forked, so a trial costs milliseconds) writes
  an increasing counter through the real stores, in this order per value: the
  :class:`~omg_agent.brain.memory.MemoryBank` (sqlite WAL), the trace
  (:class:`~omg_agent.trace.recorder.TraceRecorder`, append-only jsonl) and ``state.json``
  (:func:`~omg_agent.brain.resume.save_state`, atomic replace); after all three it reports
  the value through a pipe. The parent SIGKILLs it after a seeded number of reports plus a
  seeded sub-write delay, reads every report that made it out, and reopens each store: each
  must open and hold the last reported value or the one in flight (never less, never
  garbage), in write order (memory ≥ trace ≥ state).
- :func:`kill_and_resume` — ``omg-agent run`` (a real CLI process on a vphone behind the
  real adb server, the expert double over HTTP) killed with SIGKILL at a seeded point — the
  n-th model request, or once the trace holds n lines — then ``omg-agent run --resume``;
  the trial completes when the phone shows the task done (read from the phone).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from omg_agent.brain.budget import StepBudget
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.resume import STATE_FILE, load_state, save_state
from omg_agent.brain.run_state import FINAL_PHASES, RESUMABLE, RunState
from omg_agent.errors import ConfigError
from omg_agent.trace.recorder import TRACE_FILE, TraceRecorder

COUNTER = "counter"
MAX_REPORTS_BEFORE_KILL = 12
MAX_KILL_DELAY_S = 0.004
BLANK_ENV = {"OMG_API_KEY": "", "OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "OMG_CONFIG": "",
             "OMG_PLANNER_MODEL": "", "OMG_OPERATOR_MODEL": ""}


# -- stores ------------------------------------------------------------------------------
@dataclass(frozen=True)
class StoreKill:
    """One killed writer: the last value it reported and what each store holds now."""

    trial: int
    reported: int
    memory: int
    trace: int
    state: int
    error: str = ""

    @property
    def ok(self) -> bool:
        """Every store opened and holds the last committed value (or the one in flight)."""
        held = (self.memory, self.trace, self.state)
        return (not self.error and all(self.reported <= v <= self.reported + 1 for v in held)
                and self.memory >= self.trace >= self.state)


def _writer(folder: Path, report: int) -> NoReturn:
    """The child: count up through all three stores forever (until killed)."""
    run_dir = folder / "run"
    memory = MemoryBank(folder / "memory.sqlite", "writer")
    recorder = TraceRecorder(run_dir, task="count", resume=(run_dir / TRACE_FILE).exists())
    state = RunState("count", StepBudget(10**9), phase="THINK")
    for value in itertools.count(int(memory.get(COUNTER) or 0) + 1):
        memory.save(COUNTER, str(value))
        recorder.record_event("tick", counter=value)
        state.budget.used = value
        state.turns, state.usage = value, (value, 0, 0)
        save_state(run_dir, state, memory, device="writer")
        os.write(report, f"{value}\n".encode())
    raise AssertionError("unreachable")


def read_stores(folder: Path) -> tuple[int, int, int]:
    """The counter each store holds: memory, the trace's last tick, ``state.json``. Opening
    the trace for writing again (resume) is part of the check: it must accept the file."""
    run_dir = folder / "run"
    with MemoryBank(folder / "memory.sqlite", "writer") as memory:
        in_memory = int(memory.get(COUNTER) or 0)
    reopened = TraceRecorder(run_dir, task="count", resume=True)  # repairs a torn tail
    reopened.finished = True  # left open-ended: the next writer goes on in the same trace
    ticks = [json.loads(line) for line in (run_dir / TRACE_FILE).read_text().splitlines()]
    in_trace = max((r["data"]["counter"] for r in ticks if r.get("kind") == "tick"), default=0)
    in_state = load_state(run_dir).state.budget.used if (run_dir / STATE_FILE).exists() else 0
    return in_memory, in_trace, in_state


def kill_store_writers(folder: Path, trials: int, seed: int = 0) -> list[StoreKill]:
    """``trials`` writer processes, each SIGKILLed at a seeded point; the stores checked
    after each kill (the next writer goes on from what survived)."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    out: list[StoreKill] = []
    for trial in range(trials):
        wanted, delay = rng.randint(1, MAX_REPORTS_BEFORE_KILL), rng.uniform(0, MAX_KILL_DELAY_S)
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child never returns
            os.close(read_end)
            try:
                _writer(folder, write_end)
            finally:
                os._exit(1)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as reports:
            values: list[int] = []
            while len(values) < wanted and (line := reports.readline()):
                values.append(int(line))
            time.sleep(delay)  # the kill lands anywhere inside the next value's writes
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            values += [int(x) for x in reports.read().split()]  # reports that made it out
        if not values:
            raise RuntimeError(f"{folder}: the writer died before it reported a value")
        try:
            held = read_stores(folder)
        except Exception as exc:  # a store that cannot be opened is the failure we count
            out.append(StoreKill(trial, max(values), -1, -1, -1, f"{type(exc).__name__}: {exc}"))
            continue
        out.append(StoreKill(trial, max(values), *held))
    return out


# -- runs --------------------------------------------------------------------------------
@dataclass(frozen=True)
class ResumeTrial:
    """One run killed at a seeded point and resumed."""

    seed: int
    kill_at: str  # "model call 4" / "trace line 9"
    killed: bool  # False: the run finished before the kill point
    stores_ok: bool
    completed: bool
    status: str
    steps_at_kill: int
    steps_total: int
    error: str = ""


class KillingPolicy:
    """Wraps a model double's policy: the ``at``-th request first sends ``sig`` to the run
    process (SIGKILL: and waits for it to die; SIGINT: the user's Ctrl-C)."""

    def __init__(self, inner: Any, at: int | None, sig: int = signal.SIGKILL) -> None:
        self.inner, self.at, self.sig, self.seen = inner, at, sig, 0
        self.proc: subprocess.Popen[str] | None = None

    def reply(self, request: dict[str, Any]) -> Any:
        self.seen += 1
        if self.at is not None and self.seen == self.at and self.proc is not None:
            self.proc.send_signal(self.sig)
            if self.sig == signal.SIGKILL:
                self.proc.wait()
            return {"status": 503, "body": {"error": {"message": "the caller was stopped"}}}
        return self.inner.reply(request)


def cli_env(base_url: str) -> dict[str, str]:
    """The environment for a CLI run on the double, importing this very copy of the package
    (a relative ``PYTHONPATH`` would not survive the change of folder)."""
    import omg_agent

    root = str(Path(omg_agent.__file__).resolve().parents[1])
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, **BLANK_ENV, "OMG_MODEL": "double", "OMG_BASE_URL": base_url,
            "PYTHONPATH": path}


def omg(*args: str, env: Mapping[str, str], cwd: Path,
        timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "omg_agent.cli", *args], env=dict(env),
                          cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout, check=False)


def kill_and_resume(phone: Any, serial: str, seed: int, workdir: Path, *,
                    posts: int = 6) -> ResumeTrial:
    """Like the first ``posts`` posts in Feed; kill the run at a point drawn from ``seed``;
    resume it; read the outcome from the phone."""
    from omg_agent.bench.suite.social_tasks import LikeSet
    from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
    from omg_agent.sim.model_double import ModelDouble
    from omg_agent.trace.loader import load_trace

    rng = random.Random(seed)
    by_call = rng.random() < 0.5
    at = rng.randint(2, posts + 3) if by_call else rng.randint(3, 2 * posts + 2)
    kill_at = f"model call {at}" if by_call else f"trace line {at}"
    task = LikeSet(posts=list(range(1, posts + 1)))
    phone.clear_app("com.omg.feed")
    phone.go_home()
    task.setup(phone)
    runs = workdir / f"runs-{seed}"
    policy = KillingPolicy(ExpertPolicy(task, phone, NoiseProfile(bundling="single"), seed=seed),
                           at if by_call else None)
    with ModelDouble(policy) as double:
        env = cli_env(double.base_url)
        proc = subprocess.Popen(
            [sys.executable, "-m", "omg_agent.cli", "run", task.goal, "--device", serial,
             "--driver", "adb", "--json", "--runs-dir", str(runs)], env=env, cwd=workdir,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True)
        policy.proc = proc
        if not by_call:
            _kill_at_trace_line(proc, runs, at)
        _, err = proc.communicate(timeout=240)
        killed = proc.returncode == -signal.SIGKILL
        run_dir = next(iter(sorted(runs.iterdir())), None) if runs.is_dir() else None
        if not killed or run_dir is None:
            return ResumeTrial(seed, kill_at, False, True, task.check(phone), "not killed", 0,
                               0, err[-300:] if proc.returncode else "")
        if _ended(run_dir):  # the kill came after the run's last checkpoint: not mid-run
            return ResumeTrial(seed, kill_at, False, True, task.check(phone),
                               "finished before the kill", 0, 0)
        try:
            saved = load_state(run_dir)
            load_trace(run_dir)
            steps_at_kill, stores_ok = saved.state.budget.used, True
        except ConfigError as exc:
            return ResumeTrial(seed, kill_at, True, False, False, "unreadable", 0, 0, str(exc))
        second = omg("run", "--resume", str(run_dir), "--json", env=env, cwd=workdir)
    try:
        result = json.loads(second.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return ResumeTrial(seed, kill_at, True, stores_ok, False, f"exit {second.returncode}",
                           steps_at_kill, 0, second.stderr[-300:])
    done = second.returncode == 0 and result["status"] == "done" and task.check(phone)
    return ResumeTrial(seed, kill_at, True, stores_ok, done, result["status"], steps_at_kill,
                       int(result["steps_used"]), "" if done else second.stderr[-300:])


def _ended(run_dir: Path) -> bool:
    """Whether ``state.json`` records a run that is over (done, infeasible, failed)."""
    try:
        phase = json.loads((run_dir / STATE_FILE).read_text(encoding="utf-8")).get("phase")
    except (OSError, ValueError):
        return False  # unreadable: load_state names the problem
    return phase in FINAL_PHASES and phase not in RESUMABLE


def _kill_at_trace_line(proc: subprocess.Popen[str], runs: Path, lines: int) -> None:
    """SIGKILL ``proc`` once its trace holds ``lines`` lines (or leave it if it ends first)."""
    while proc.poll() is None:
        traces = list(runs.glob(f"*/{TRACE_FILE}")) if runs.is_dir() else []
        if traces and traces[0].read_bytes().count(b"\n") >= lines:
            proc.kill()
            return
        time.sleep(0.002)


def store_table(kills: list[StoreKill]) -> str:
    bad = [k for k in kills if not k.ok]
    lines = ["| kills | stores opened | last committed value held | data lost |",
             "|---|---|---|---|",
             f"| {len(kills)} | {sum(1 for k in kills if not k.error)} | "
             f"{len(kills) - len(bad)} | {len(bad)} |"]
    return "\n".join(lines)


def resume_table(trials: list[ResumeTrial]) -> str:
    killed = [t for t in trials if t.killed]
    done = sum(1 for t in killed if t.completed)
    share = f"{100 * done / len(killed):.0f}%" if killed else "-"
    lines = ["| runs | killed mid-run | stores readable | resumed to done | share |",
             "|---|---|---|---|---|",
             f"| {len(trials)} | {len(killed)} | {sum(1 for t in killed if t.stores_ok)} | "
             f"{done} | {share} |"]
    return "\n".join(lines)


__all__ = ["KillingPolicy", "ResumeTrial", "StoreKill", "cli_env", "kill_and_resume",
           "kill_store_writers", "omg", "read_stores", "resume_table", "store_table"]


def as_at_a_terminal() -> None:
    """``preexec_fn`` of a child the harness stops with a signal, as a user's terminal and a
    supervisor would: SIGINT, SIGTERM and SIGHUP at their default disposition. A job started
    in the background of a script (``nohup … &``, as CI may run the suite) inherits SIGINT
    ignored, and Python then never raises KeyboardInterrupt — Ctrl-C would not reach it."""
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
