"""A fleet is one more driver of a phone, and outlives its workers (issue 38 items 1, 2).

Through the real local pool (a process per attempt) on vphones behind the real adb server,
the expert double over real HTTP: a fleet does not drive a phone another agent holds, and a
``run`` started while a fleet drives a phone is refused naming the fleet; one phone given
as two names is used once and the run says so; a SIGKILLed worker fails only its own
attempt, which is retried on the other slot and recorded with what it did. What happened
is read from the phones.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from omg_agent.bench.contention import HeldReply
from omg_agent.bench.durability import cli_env
from omg_agent.bench.suite import load_tasks
from omg_agent.bench.suite.social_tasks import LikeSet
from omg_agent.bench.suite_run import SuitePlan
from omg_agent.config import Settings
from omg_agent.drivers.lease import phone_lease
from omg_agent.fleet.attempt import FleetJob
from omg_agent.fleet.devices import FleetDevice
from omg_agent.fleet.faults import Watched, acted, await_true
from omg_agent.fleet.jobs import suite_jobs
from omg_agent.fleet.local_backend import LocalBackend
from omg_agent.fleet.scheduler import run_fleet
from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
from omg_agent.sim.model_double import ModelDouble


def like_log(phone: Any) -> list[int]:
    return list(phone.state()["apps"]["com.omg.feed"]["like_log"])


def goal_job(index: int, key: str, goal: str, base_url: str, runs: Path) -> FleetJob:
    settings = Settings(base_url=base_url, model="double", max_steps=30, runs_dir=runs,
                        retry_backoff_s=0.001, retry_backoff_max_s=0.01, timeout_s=30)
    return FleetJob(index, key, f"runs/{key}", goal=goal, settings=settings)


def test_a_fleet_and_a_run_take_turns_on_one_phone(vphone, tmp_path: Path) -> None:
    """A phone a run holds is not used by the fleet (nothing toggled); a run started while
    the fleet drives the phone is refused with exit 7 naming the fleet's task."""
    task = LikeSet(posts=[1, 2])
    task.setup(vphone.phone)
    with ModelDouble(ExpertPolicy(task, vphone.phone)) as model:
        job = goal_job(0, "like", task.goal, model.base_url, tmp_path / "runs")
        with phone_lease(vphone.serial, "omg-agent run 'Like post 7'").acquire(), \
                LocalBackend([FleetDevice(vphone.serial)], tmp_path / "a") as backend:
            refused = run_fleet([job], backend, tmp_path / "a")
        assert model.requests == []
    record = refused.records[0]
    assert (record["success"], record["attempts"]) == (False, [])
    assert "never started" in record["error"] and "omg-agent run 'Like post 7'" in \
        record["error"]
    assert any(n.startswith(f"{vphone.serial} not used") for n in refused.notes)
    assert refused.tally() == {"done": 0, "failed": 0, "never_started": 1}
    assert like_log(vphone.phone) == []

    held = HeldReply(ExpertPolicy(task, vphone.phone, NoiseProfile(bundling="single")))
    with ModelDouble(held) as model, \
            LocalBackend([FleetDevice(vphone.serial)], tmp_path / "b") as backend:
        job = goal_job(0, "like", task.goal, model.base_url, tmp_path / "runs")
        fleet = threading.Thread(target=lambda: results.append(
            run_fleet([job], backend, tmp_path / "b")))
        results: list[Any] = []
        fleet.start()
        try:
            assert held.arrived.wait(120), "the fleet's attempt never asked its model"
            run = subprocess.run(
                [sys.executable, "-m", "omg_agent.cli", "run", "Like post 7 in Feed",
                 "--device", f"localhost:{vphone.port}", "--driver", "adb", "--json",
                 "--runs-dir", str(tmp_path / "runs")], env=cli_env(model.base_url),
                cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                timeout=120)
        finally:
            held.release.set()
            fleet.join(180)
    assert run.returncode == 7, run.stderr
    assert "is busy: omg-agent fleet task like" in run.stderr
    assert results[0].records[0]["success"] is True
    assert like_log(vphone.phone) == [1, 2]  # the fleet's toggles, each once


def test_one_phone_named_twice_is_used_once(vphone, tmp_path: Path) -> None:
    first = LikeSet(posts=[3])
    first.setup(vphone.phone)
    wifi = next(t for t in load_tasks(0, "settings.wifi"))
    wifi.setup(vphone.phone)
    with ModelDouble(ExpertPolicy(first, vphone.phone)) as like, \
            ModelDouble(ExpertPolicy(wifi, vphone.phone)) as settings:
        jobs = [goal_job(0, "like", first.goal, like.base_url, tmp_path / "runs"),
                goal_job(1, "wifi", wifi.goal, settings.base_url, tmp_path / "runs")]
        names = [FleetDevice(vphone.serial), FleetDevice(f"0.0.0.0:{vphone.port}")]
        with LocalBackend(names, tmp_path) as backend:
            run = run_fleet(jobs, backend, tmp_path)
    assert [d.name for d in run.devices] == [vphone.serial]
    assert run.notes == [f"0.0.0.0:{vphone.port} is the same phone as {vphone.serial}: "
                         f"used once, as {vphone.serial}"]
    assert [(r["success"], r["device"]) for r in run.records] == [(True, vphone.serial)] * 2
    assert like_log(vphone.phone) == [3] and wifi.check(vphone.phone)


def _kill_once_it_acted(backend: Watched, out: Path, killed: list[int]) -> None:
    """SIGKILL the first attempt's worker once its trace shows a step."""
    if await_true(lambda: bool(backend.workers)
                  and acted(out, backend.workers[0].job, backend.workers[0].number), 120):
        os.kill(backend.workers[0].pid, signal.SIGKILL)
        killed.append(backend.workers[0].pid)


def test_a_killed_worker_fails_only_its_attempt(tmp_path: Path) -> None:
    plan = SuitePlan(load_tasks(0, "feed.like_post,notes.delete_missing"))
    jobs = suite_jobs(plan, tmp_path)
    with LocalBackend([FleetDevice("vphone-1"), FleetDevice("vphone-2")], tmp_path) as pool:
        backend = Watched(pool)
        killed: list[int] = []
        killer = threading.Thread(target=_kill_once_it_acted, args=(backend, tmp_path, killed))
        killer.start()
        run = run_fleet(jobs, backend, tmp_path)
        killer.join()
    assert killed, "the first worker was never seen acting"
    first = run.records[0]
    assert [(a["attempt"], a["died"], a["success"]) for a in first["attempts"]] == [
        (1, True, False), (2, False, True)]
    one, two = first["attempts"]
    assert one["device"] != two["device"]  # retried on the other slot
    assert f"pid {killed[0]}" in one["error"] and one["turns"] >= 1
    assert (tmp_path / one["trace_dir"] / "trace.jsonl").is_file()
    assert all(r["success"] for r in run.records)
    assert run.tally() == {"done": 2, "failed": 0, "never_started": 0}
    assert {d.name for d in run.devices} == {"vphone-1", "vphone-2"}
