"""Fleet faults for the reliability benchmark (issue 38): what a fleet reports against what
happened, when a worker is SIGKILLed, both vphones are stopped, one phone is given under two
names, or a run and a fleet share a phone.

Every trial runs the real dispatcher over the real local pool (a process per attempt) on
vphones, the expert double over real HTTP. The truth is read from the phones (the like log,
the task's check) and from the attempt folders on disk, never from the fleet's records:

* *phantom success* — a record says done, the phone says not;
* *false failure* — a record says failed, the phone shows the task done;
* *lost or duplicated side effects* — likes toggled back, or toggled twice;
* *misreported attempts* — an attempt folder with a trace on disk that no record lists (or
  a listed attempt whose folder is missing).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omg_agent.bench.contention import HeldReply
from omg_agent.bench.durability import cli_env
from omg_agent.bench.suite.social_tasks import LikeSet
from omg_agent.config import Settings
from omg_agent.fleet.attempt import Attempt, FleetJob, attempt_rel
from omg_agent.fleet.devices import FleetDevice
from omg_agent.fleet.scheduler import FleetRun, run_fleet

FLEET_FAULTS = ("killed worker", "stopped phones", "one phone, two names",
                "run beside a fleet", "fleet beside a run")
WAIT_S = 180.0
SLOT_TASKS = "feed.like_post,settings.missing_option,notes.delete_missing"


@dataclass
class FleetTrial:
    """One fleet under one fault: what it reported and what the phones and disk show."""

    fault: str
    tasks: int = 0
    done: int = 0
    failed: int = 0
    never_started: int = 0
    expected_done: int = 0  # tasks the phones show done
    phantom: int = 0
    false_failures: int = 0
    side_effects: int = 0  # lost or duplicated likes
    misreported: int = 0
    refused_exit: int | None = None  # the run beside a fleet: its exit code
    died: int = 0  # attempts whose worker died (the killed worker: 1)
    lost: int = 0  # attempts whose phone was lost (both stopped: 2)
    wall_s: float = 0.0
    error: str = ""

    @property
    def completed(self) -> bool:
        """The fleet ended, its report is true, and what could be done was done."""
        return not self.error and self.phantom == self.false_failures == 0 \
            and self.side_effects == 0 and self.misreported == 0 \
            and self.done == self.expected_done


def misreported(run: FleetRun, out: Path) -> int:
    """Attempt folders with a trace that no record lists, plus listed attempts whose trace
    folder is missing."""
    listed = {a["trace_dir"] for r in run.records for a in r.get("attempts", [])
              if a.get("trace_dir")}
    on_disk = {p.parent.relative_to(out).as_posix() for p in out.rglob("attempt-*/trace.jsonl")}
    return len(on_disk - listed) + len(listed - on_disk)


def _count(trial: FleetTrial, run: FleetRun, out: Path) -> None:
    counts = run.tally()
    trial.tasks = len(run.records)
    trial.done, trial.failed = counts["done"], counts["failed"]
    trial.never_started = counts["never_started"]
    trial.misreported = misreported(run, out)
    attempts = [a for r in run.records for a in r.get("attempts", [])]
    trial.died = sum(1 for a in attempts if a.get("died"))
    trial.lost = sum(1 for a in attempts if a.get("lost"))


def _side_effects(like_log: Sequence[int], expected: Sequence[int]) -> int:
    counts = Counter(like_log)
    return sum(n - 1 for n in counts.values()) + sum(1 for p in expected if counts[p] == 0)


class Watched:
    """A backend that tells the harness which worker runs which attempt."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name = inner, inner.name
        self.workers: list[Any] = []

    def devices(self) -> list[FleetDevice]:
        return self.inner.devices()

    def submit(self, job: FleetJob, device: FleetDevice, number: int) -> Any:
        worker = self.inner.submit(job, device, number)
        self.workers.append(worker)
        return worker

    def wait(self, handles: Sequence[Any]) -> list[tuple[Any, Attempt | None]]:
        return self.inner.wait(handles)


def acted(out: Path, job: FleetJob, number: int) -> bool:
    """Whether the attempt's trace records a step (it has acted on its phone)."""
    trace = out / attempt_rel(job, number) / "trace.jsonl"
    return trace.is_file() and b'"record":"step"' in trace.read_bytes()


def await_true(check: Callable[[], bool], timeout_s: float = WAIT_S) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def _slot_fleet(fault: str, out: Path, act: Callable[[Watched, Path], None]) -> FleetTrial:
    """Suite tasks on two vphone slots with ``act`` run beside the fleet."""
    from omg_agent.bench.suite import load_tasks
    from omg_agent.bench.suite_run import SuitePlan
    from omg_agent.fleet.jobs import suite_jobs
    from omg_agent.fleet.local_backend import LocalBackend

    trial = FleetTrial(fault)
    jobs = suite_jobs(SuitePlan(load_tasks(0, SLOT_TASKS)), out)
    with LocalBackend([FleetDevice("vphone-1"), FleetDevice("vphone-2")], out) as pool:
        backend = Watched(pool)
        side = threading.Thread(target=act, args=(backend, out))
        side.start()
        run = run_fleet(jobs, backend, out)
        side.join()
    _count(trial, run, out)
    # a slot's truth is read from its own phone by the suite (run_job): a record says done
    # exactly when its phone showed the task done
    trial.expected_done = trial.done
    return trial


def killed_worker_trial(out: Path) -> FleetTrial:
    """SIGKILL the first attempt's worker once it acted: only that attempt may fail."""
    def kill(backend: Watched, out: Path) -> None:
        if await_true(lambda: bool(backend.workers) and acted(out, backend.workers[0].job, 1)):
            os.kill(backend.workers[0].pid, signal.SIGKILL)

    trial = _slot_fleet("killed worker", out, kill)
    trial.expected_done = trial.tasks  # every task can be done on the slot left
    if trial.died != 1:
        trial.error = f"{trial.died} attempts died, not the 1 killed"
    return trial


def stopped_phones_trial(out: Path) -> FleetTrial:
    """Stop both slots' vphones once their tasks acted (as `omg-agent vphone stop` does)."""
    from omg_agent.vphone import daemon

    def stop_both(backend: Watched, out: Path) -> None:
        stopped: set[str] = set()

        def stop_acting() -> bool:
            for record in daemon.list_records():
                slot = str(record.get("fleet_device") or "")
                worker = next((w for w in backend.workers if w.device.name == slot
                               and w.pid == record.get("pid")), None)
                if slot and slot not in stopped and worker is not None \
                        and acted(out, worker.job, worker.number):
                    try:
                        daemon.control(record, "POST", "/stop")
                    except Exception:  # noqa: BLE001 (it finished meanwhile: the next)
                        continue
                    stopped.add(slot)
            return len(stopped) == 2

        await_true(stop_acting, 120)

    trial = _slot_fleet("stopped phones", out, stop_both)
    if trial.lost != 2:
        trial.error = f"{trial.lost} attempts lost their phone, not the 2 stopped"
    return trial


def _goal_job(index: int, key: str, goal: str, base_url: str, runs: Path) -> FleetJob:
    settings = Settings(base_url=base_url, model="double", max_steps=30, runs_dir=runs,
                        retry_backoff_s=0.001, retry_backoff_max_s=0.01, timeout_s=30)
    return FleetJob(index, key, f"runs/{key}", goal=goal, settings=settings)


def two_names_trial(out: Path) -> FleetTrial:
    """One vphone given as ``127.0.0.1:P`` and ``0.0.0.0:P``; two tasks, each with its own
    model double: like the first 3 posts, turn Wi-Fi off. The phone is used once (the
    tasks take turns on it), each post liked once, each task done on the phone. (Two copies
    of one task would make the second a run on a phone already done, which honest done
    rightly refuses to call done: not a fault of the fleet.)"""
    from omg_agent.fleet.local_backend import LocalBackend
    from omg_agent.sim.expert.policy import ExpertPolicy
    from omg_agent.sim.expert.runner import vphone_on_adb
    from omg_agent.sim.expert.tasks import Switch
    from omg_agent.sim.model_double import ModelDouble

    trial = FleetTrial("one phone, two names")
    with vphone_on_adb() as (phone, serial):
        like, wifi = LikeSet(posts=[1, 2, 3]), Switch(attr="wifi", on=False)
        like.setup(phone)
        wifi.setup(phone)
        port = serial.rpartition(":")[2]
        with ModelDouble(ExpertPolicy(like, phone)) as liking, \
                ModelDouble(ExpertPolicy(wifi, phone)) as switching:
            jobs = [_goal_job(0, "like", like.goal, liking.base_url, out / "runs"),
                    _goal_job(1, "wifi", wifi.goal, switching.base_url, out / "runs")]
            names = [FleetDevice(serial), FleetDevice(f"0.0.0.0:{port}")]
            with LocalBackend(names, out) as backend:
                run = run_fleet(jobs, backend, out)
        _count(trial, run, out)
        log = list(phone.state()["apps"]["com.omg.feed"]["like_log"])
        trial.side_effects = _side_effects(log, like.posts)
        shown = [like.check(phone), wifi.check(phone)]  # the phone's word, task by task
        trial.expected_done = sum(shown)
        trial.phantom = sum(1 for r, ok in zip(run.records, shown, strict=True)
                            if r["success"] and not ok)
        trial.false_failures = sum(1 for r, ok in zip(run.records, shown, strict=True)
                                   if not r["success"] and ok)
        if not any("same phone" in note for note in run.notes):
            trial.error = "the fleet did not say the two names are one phone"
        if len(run.devices) != 1:
            trial.error = f"{len(run.devices)} devices used for one phone"
    return trial


def beside_trial(out: Path, run_first: bool) -> FleetTrial:
    """A run and a fleet on one phone: the second comer is refused (the run with exit 7, the
    fleet by not using the phone); the first's likes land once each."""
    from omg_agent.drivers.lease import phone_lease
    from omg_agent.fleet.local_backend import LocalBackend
    from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
    from omg_agent.sim.expert.runner import vphone_on_adb
    from omg_agent.sim.model_double import ModelDouble

    trial = FleetTrial("fleet beside a run" if run_first else "run beside a fleet")
    with vphone_on_adb() as (phone, serial):
        task = LikeSet(posts=[1, 2])
        task.setup(phone)
        port = serial.rpartition(":")[2]
        held = HeldReply(ExpertPolicy(task, phone, NoiseProfile(bundling="single")))
        with ModelDouble(held) as model, LocalBackend([FleetDevice(serial)], out) as pool:
            job = _goal_job(0, "like", task.goal, model.base_url, out / "runs")
            if run_first:
                with phone_lease(serial, "omg-agent run 'Like posts'").acquire():
                    run = run_fleet([job], pool, out)
                expected: list[int] = []
            else:
                run, trial.refused_exit = _run_beside(job, pool, out, held, port,
                                                      model.base_url)
                expected = task.posts
        _count(trial, run, out)
        log = list(phone.state()["apps"]["com.omg.feed"]["like_log"])
        trial.side_effects = _side_effects(log, expected)
        trial.expected_done = 0 if run_first else int(task.check(phone))
        trial.phantom = sum(1 for r in run.records if r["success"] and not task.check(phone))
        trial.false_failures = sum(1 for r in run.records if not r["success"]
                                   and r["attempts"] and task.check(phone))
        if not run_first and trial.refused_exit != 7:
            trial.error = f"the run beside the fleet exited {trial.refused_exit}, not 7"
    return trial


def _run_beside(job: FleetJob, pool: Any, out: Path, held: HeldReply, port: str,
                base_url: str) -> tuple[FleetRun, int]:
    results: list[FleetRun] = []
    fleet = threading.Thread(target=lambda: results.append(run_fleet([job], pool, out)))
    fleet.start()
    try:
        if not held.arrived.wait(WAIT_S):
            raise RuntimeError("the fleet's attempt never asked its model")
        beside = subprocess.run(
            [sys.executable, "-m", "omg_agent.cli", "run", "Like post 5 in Feed", "--device",
             f"localhost:{port}", "--driver", "adb", "--json", "--runs-dir",
             str(out / "beside")], env=cli_env(base_url), cwd=out, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=WAIT_S)
    finally:
        held.release.set()
        fleet.join(WAIT_S)
    return results[0], beside.returncode


def fleet_trial(fault: str) -> FleetTrial:
    """One trial of ``fault`` (one of :data:`FLEET_FAULTS`) in a scratch folder."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="omg-fleet-fault-") as scratch:
        out = Path(scratch)
        try:
            trial = {"killed worker": killed_worker_trial, "stopped phones":
                     stopped_phones_trial, "one phone, two names": two_names_trial,
                     "run beside a fleet": lambda o: beside_trial(o, False),
                     "fleet beside a run": lambda o: beside_trial(o, True)}[fault](out)
        except Exception as exc:  # noqa: BLE001 (the harness failed: a row says so)
            trial = FleetTrial(fault, error=f"{type(exc).__name__}: {exc}")
    trial.wall_s = round(time.perf_counter() - started, 1)
    return trial


def fleet_table(trials: Sequence[FleetTrial]) -> str:
    """One row per fault (markdown): trials, runs completed, phantom successes, false
    failures, lost or duplicated side effects, misreported attempts, tasks reported."""
    lines = ["| fault | trials | completed | phantom successes | false failures | "
             "lost/duplicated side effects | misreported attempts | tasks done / failed / "
             "never started |", "|---|---|---|---|---|---|---|---|"]
    by_fault: dict[str, list[FleetTrial]] = {}
    for t in trials:
        by_fault.setdefault(t.fault, []).append(t)
    for fault, group in by_fault.items():
        lines.append(f"| {fault} | {len(group)} | {sum(t.completed for t in group)} | "
                     f"{sum(t.phantom for t in group)} | "
                     f"{sum(t.false_failures for t in group)} | "
                     f"{sum(t.side_effects for t in group)} | "
                     f"{sum(t.misreported for t in group)} | "
                     f"{sum(t.done for t in group)} / {sum(t.failed for t in group)} / "
                     f"{sum(t.never_started for t in group)} |")
    return "\n".join(lines)
