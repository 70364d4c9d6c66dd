"""The fleet dispatcher over a scripted backend: free fitting devices, one job per device,
a lost device's task retried once elsewhere, and a task no device fits reported."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omg_agent.fleet.attempt import Attempt, FleetJob
from omg_agent.fleet.devices import FleetDevice
from omg_agent.fleet.scheduler import run_fleet


class Handle:
    def __init__(self, job: FleetJob, device: FleetDevice, number: int) -> None:
        self.job, self.device, self.number = job, device, number


class ScriptedBackend:
    """Finishes attempts in submission order; ``lose`` names (task, device) pairs whose
    device is lost during that attempt."""

    name = "scripted"

    def __init__(self, devices: Sequence[FleetDevice], lose: set[tuple[str, str]] = frozenset()
                 ) -> None:
        self._devices = list(devices)
        self.lose = lose
        self.busy: set[str] = set()
        self.log: list[tuple[str, str]] = []

    def devices(self) -> list[FleetDevice]:
        return list(self._devices)

    def submit(self, job: FleetJob, device: FleetDevice, number: int) -> Any:
        assert device.name not in self.busy, "two jobs on one device"
        self.busy.add(device.name)
        self.log.append((job.key, device.name))
        return Handle(job, device, number)

    def wait(self, handles: Sequence[Any]) -> list[tuple[Any, Attempt | None]]:
        job, device, number = handles[0].job, handles[0].device, handles[0].number
        self.busy.discard(device.name)
        lost = (job.key, device.name) in self.lose
        return [(handles[0], Attempt(number, device.name, device.node, lost,
                                     {"success": not lost, "status": "done",
                                      "trace_dir": f"{job.rel}/attempt-{number}"}))]


def _goal(i: int, key: str, profile: str | None = None, app: str | None = None) -> FleetJob:
    return FleetJob(i, key, f"runs/{key}", goal="Turn off Wi-Fi", profile=profile, app=app)


PIXEL = FleetDevice("p1", node="n1", profile="Pixel 7", apps=("com.android.settings",))
TAB = FleetDevice("t1", node="n2", profile="Tab S9", apps=())


def test_each_task_goes_to_a_device_with_the_profile_and_app_it_needs(tmp_path: Path) -> None:
    backend = ScriptedBackend([TAB, PIXEL])
    jobs = [_goal(0, "a", profile="pixel 7"), _goal(1, "b", app="com.android.settings"),
            _goal(2, "c", profile="Tab S9")]
    run = run_fleet(jobs, backend, tmp_path)
    assert [(r["task_id"], r["device"], r["success"]) for r in run.records] == [
        ("a", "p1", True), ("b", "p1", True), ("c", "t1", True)]


def test_a_lost_device_sends_its_task_elsewhere_once_and_gets_no_more_work(
        tmp_path: Path) -> None:
    other = FleetDevice("p2", node="n2", profile="Pixel 7")
    backend = ScriptedBackend([PIXEL, other], lose={("a", "p1")})
    run = run_fleet([_goal(0, "a"), _goal(1, "b"), _goal(2, "c")], backend, tmp_path)
    first = run.records[0]
    assert [(a["device"], a["lost"]) for a in first["attempts"]] == [("p1", True),
                                                                     ("p2", False)]
    assert (first["success"], first["device"], first["trace_dir"]) == (
        True, "p2", "runs/a/attempt-2")
    assert all(device == "p2" for key, device in backend.log[1:])


def test_a_task_lost_twice_fails_as_device_lost(tmp_path: Path) -> None:
    other = FleetDevice("p2", node="n2")
    backend = ScriptedBackend([PIXEL, other], lose={("a", "p1"), ("a", "p2")})
    record = run_fleet([_goal(0, "a")], backend, tmp_path).records[0]
    assert (record["success"], record["status"], len(record["attempts"])) == (
        False, "device lost", 2)


def test_a_task_no_device_fits_is_reported_not_waited_for(tmp_path: Path) -> None:
    backend = ScriptedBackend([TAB])
    run = run_fleet([_goal(0, "a", app="com.shop"), _goal(1, "b")], backend, tmp_path)
    assert run.records[0]["success"] is False
    assert "needs a phone with app 'com.shop'" in run.records[0]["error"]
    assert run.records[1]["success"] is True


def test_suite_jobs_go_to_vphone_slots_only(tmp_path: Path) -> None:
    from omg_agent.bench.suite import load_tasks
    from omg_agent.bench.suite_run import SuitePlan
    from omg_agent.fleet.jobs import suite_jobs

    jobs = suite_jobs(SuitePlan(load_tasks(0, "settings.wifi")), tmp_path)
    backend = ScriptedBackend([PIXEL, FleetDevice("vphone-a1", node="n1")])
    run = run_fleet(jobs, backend, tmp_path)
    assert [(r["task_id"], r["device"], r["variant"]) for r in run.records] == [
        ("settings.wifi", "vphone-a1", "default")]
