"""3 vphones × 3 agents in parallel, 150 budget steps in total, in one process (500 until
the suite outgrew its 15 minutes; the bound checks are the same).

Three lanes (threads), each with its own vphone on the real adb server, its own expert
double and its own run folders, run agents one after another — lane 0 likes posts in Feed,
lane 1 copies a price from Shop into a note (through the memory bank), lane 2 creates a
note — until the lanes' budgets add up to TOTAL_STEPS (one per model turn: the device work of
the 1,000 steps counted before a turn's bundle stopped costing a step of its own, issue 27).
All lanes share ONE memory bank file (as ``omg-agent run`` does: ``runs/memory.sqlite``),
each run under its own session.

No cross-talk: after every run its own phone shows its own task done (read from the phone),
no app outside the task's changed on that phone, its trace and ``state.json`` name its own
task and device, and no run can see another's memory values.

Bounded resources (stated here, measured with /proc/self): after the warm-up (the first
two runs of every lane) the process's open file descriptors never exceed the warm-up
maximum + ``FD_SLACK`` (no descriptor leaks per run), and its resident memory (after a
collection and ``malloc_trim``) stays within the warm-up maximum + ``RSS_SLACK_MB`` over the
remaining runs (no memory growing with steps). Measured here: 18–26 descriptors for the
whole process, 290–410 MB resident with three phones rendering.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import threading
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

from omg_agent.bench.suite import select, suite_tasks
from omg_agent.bench.suite.social_tasks import LikeSet
from omg_agent.brain.agent import open_agent
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.resume import load_state
from omg_agent.errors import ConfigError
from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
from omg_agent.sim.expert.runner import sim_settings, vphone_on_adb
from omg_agent.sim.expert.tasks import Task
from omg_agent.sim.model_double import ModelDouble
from omg_agent.trace.loader import load_trace

TOTAL_STEPS = 150  # the CI size; scripts and earlier sessions ran 500 (docstring)
LANES = 3
WARM_UP_RUNS = 2
FD_SLACK = 12
RSS_SLACK_MB = 120


def lane_task(lane: int) -> tuple[Task, set[str]]:
    """The lane's task and the apps it may change."""
    if lane == 0:
        return LikeSet(posts=[1, 2, 3, 4, 5]), {"com.omg.feed"}
    if lane == 1:
        return select(suite_tasks(0), "shop.price_to_notes")[0], {"com.omg.shop",
                                                                   "com.omg.notes"}
    return select(suite_tasks(0), "notes.create")[0], {"com.omg.notes"}


@dataclass(frozen=True)
class Run:
    lane: int
    number: int
    serial: str
    status: str
    steps: int
    done_on_phone: bool
    changed: frozenset[str]
    allowed: frozenset[str]
    run_dir: Path
    session: str
    goal: str
    fds: int
    rss_mb: float


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def rss_mb() -> float:
    """Resident memory after a collection and glibc's ``malloc_trim``: what the process
    holds, not the allocator's high-water mark (three threads handling 10 MB frames at once
    leave arenas that swing raw RSS by hundreds of MB without anything being kept)."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # not glibc: the raw figure it is
        ctypes.CDLL(None).malloc_trim(0)
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


class Tally:
    def __init__(self) -> None:
        self.steps = 0
        self.lock = threading.Lock()
        self.runs: list[Run] = []
        self.errors: list[BaseException] = []

    def add(self, run: Run) -> None:
        with self.lock:
            self.steps += run.steps
            self.runs.append(run)


def lane(index: int, tally: Tally, folder: Path, memory_path: Path) -> None:
    task, allowed = lane_task(index)
    with vphone_on_adb(seed=index) as (phone, serial):
        number = 0
        while tally.steps < TOTAL_STEPS and not tally.errors:
            for package in list(phone.apps):
                phone.clear_app(package)
            phone.go_home()
            task.setup(phone)
            before = phone.state()["apps"]
            run_dir = folder / f"lane{index}" / f"run{number:03d}"
            session = f"lane{index}-run{number}"
            policy = ExpertPolicy(task, phone, NoiseProfile(bundling="single"), seed=number)
            with ModelDouble(policy) as double, ExitStack() as stack:
                from omg_agent.drivers.adb import AdbDriver

                driver = AdbDriver(serial)
                stack.callback(driver.close)
                settings = sim_settings(double.base_url, folder, max_steps=60)
                result = open_agent(stack, driver, settings, task.goal, run_dir=run_dir,
                                    memory_path=memory_path, session=session,
                                    checkpoint=serial).run(task.goal)
            after = phone.state()["apps"]
            changed = frozenset(p for p in after if after[p] != before.get(p))
            tally.add(Run(index, number, serial, result.status, result.steps_used,
                          task.check(phone), changed, frozenset(allowed), run_dir, session,
                          task.goal, open_fds(), rss_mb()))
            number += 1


def run_lanes(folder: Path) -> Tally:
    tally = Tally()
    memory_path = folder / "memory.sqlite"

    def guarded(index: int) -> None:
        try:
            lane(index, tally, folder, memory_path)
        except BaseException as exc:  # reported by the test, not lost in a thread
            tally.errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(i,), name=f"lane{i}")
               for i in range(LANES)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return tally


@pytest.mark.slow
@pytest.mark.timeout(1800)  # minutes of real runs; slower on a busy machine
def test_three_phones_three_agents_150_turns_no_cross_talk_bounded_fds_and_memory(
        tmp_path: Path) -> None:
    tally = run_lanes(tmp_path)
    assert not tally.errors, tally.errors
    runs = tally.runs
    assert tally.steps >= TOTAL_STEPS
    assert {r.lane for r in runs} == set(range(LANES))
    assert len({r.serial for r in runs}) == LANES

    for run in runs:  # each phone shows its own task, and only its own task, done
        assert run.status == "done" and run.done_on_phone, run
        assert run.changed <= run.allowed, run
        trace = load_trace(run.run_dir)
        assert trace.task == run.goal and trace.result is not None
        with pytest.raises(ConfigError, match="already ended"):
            load_state(run.run_dir)  # saved, finished: its own device and task below
        state = (run.run_dir / "state.json").read_text()
        assert f'"device": "{run.serial}"' in state and f'"session": "{run.session}"' in state

    with MemoryBank(tmp_path / "memory.sqlite", "reader") as bank:
        assert bank.snapshot() == {}  # no session sees another's values
    for run in runs:
        with MemoryBank(tmp_path / "memory.sqlite", run.session) as bank:
            values = bank.snapshot()
        assert run.lane == 1 or values == {}, run  # only the price lane saves a value

    warm = [r for r in runs if r.number < WARM_UP_RUNS]
    late = [r for r in runs if r.number >= WARM_UP_RUNS]
    assert late, "too few runs to see growth"
    fd_bound = max(r.fds for r in warm) + FD_SLACK
    assert max(r.fds for r in late) <= fd_bound, [(r.lane, r.number, r.fds) for r in runs]
    rss_bound = max(r.rss_mb for r in warm) + RSS_SLACK_MB
    assert max(r.rss_mb for r in late) <= rss_bound, [(r.number, r.rss_mb) for r in runs]
