"""The dispatcher reports every attempt that started (issue 38 item 2): a task whose phone
was lost after it acted keeps its attempt when no device is left; a dead worker fails only
its attempt, retried elsewhere, its device kept; a busy phone is not used and said so; one
phone under two names is used once; tasks are counted done, failed and never started."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omg_agent.fleet.attempt import Attempt, FleetJob, died_attempt
from omg_agent.fleet.devices import FleetDevice, one_per_phone
from omg_agent.fleet.scheduler import run_fleet, tally


class Handle:
    def __init__(self, job: FleetJob, device: FleetDevice, number: int) -> None:
        self.job, self.device, self.number = job, device, number


class Backend:
    """Runs every submitted attempt at once; ``outcome(job, device, number)`` says what each
    did (default: done). Waits return the oldest running attempt."""

    name = "scripted"

    def __init__(self, devices: Sequence[FleetDevice], outcome: Any = None) -> None:
        self._devices = list(devices)
        self.outcome = outcome or (lambda job, device, number: "done")
        self.running: list[Handle] = []
        self.log: list[tuple[str, str]] = []

    def devices(self) -> list[FleetDevice]:
        return list(self._devices)

    def submit(self, job: FleetJob, device: FleetDevice, number: int) -> Any:
        handle = Handle(job, device, number)
        self.running.append(handle)
        self.log.append((job.key, device.name))
        return handle

    def wait(self, handles: Sequence[Any]) -> list[tuple[Any, Attempt | None]]:
        handle = next(h for h in self.running if h in handles)
        self.running.remove(handle)
        job, device, number = handle.job, handle.device, handle.number
        what = self.outcome(job, device, number)
        run = {"success": what == "done", "status": what, "model_calls": 3,
               "trace_dir": f"{job.rel}/attempt-{number}"}
        if what == "busy":
            run = {"success": False, "status": "device busy",
                   "error": f"device {device.name} is busy: omg-agent run 'x' (pid 7)"}
        return [(handle, Attempt(number, device.name, "", what == "lost", run,
                                 died=what == "died", busy=what == "busy"))]


def _goal(i: int, key: str) -> FleetJob:
    return FleetJob(i, key, f"runs/{key}", goal="Like post 1")


def _suite(tmp_path: Path, spec: str) -> list[FleetJob]:
    from omg_agent.bench.suite import load_tasks
    from omg_agent.bench.suite_run import SuitePlan
    from omg_agent.fleet.jobs import suite_jobs

    return suite_jobs(SuitePlan(load_tasks(0, spec)), tmp_path)


def _slots() -> list[FleetDevice]:
    return [FleetDevice("vphone-1"), FleetDevice("vphone-2")]


def test_a_task_whose_phone_was_stopped_after_it_acted_keeps_its_attempt(
        tmp_path: Path) -> None:
    """Both vphones stopped: the first task's retry finds no device left — it ran once, so
    its record is that attempt, not 'never started'."""
    backend = Backend(_slots(), lambda job, device, number: "lost")
    jobs = _suite(tmp_path, "settings.wifi,notes.delete")
    run = run_fleet(jobs, backend, tmp_path)
    first, second = run.records
    assert [(a["device"], a["lost"], a["model_calls"]) for a in first["attempts"]] == [
        ("vphone-1", True, 3)]
    assert first["status"] == "device lost"
    assert first["trace_dir"] == f"{jobs[0].rel}/attempt-1"
    assert "no device was left to try it again" in first["error"]
    assert [a["device"] for a in second["attempts"]] == ["vphone-2"]
    assert run.tally() == {"done": 0, "failed": 2, "never_started": 0}


def test_a_dead_worker_fails_its_attempt_only_and_its_device_keeps_working(
        tmp_path: Path) -> None:
    jobs = _suite(tmp_path, "settings.wifi,notes.delete,feed.comment,notes.delete_missing")

    def outcome(job: FleetJob, device: FleetDevice, number: int) -> str:
        return "died" if (job.index, number) == (0, 1) else "done"

    backend = Backend(_slots(), outcome)
    run = run_fleet(jobs, backend, tmp_path)
    first = run.records[0]
    assert [(a["device"], a["died"], a["success"]) for a in first["attempts"]] == [
        ("vphone-1", True, False), ("vphone-2", False, True)]
    assert all(r["success"] for r in run.records)
    assert any(device == "vphone-1" for _, device in backend.log[1:])  # still in the pool


def test_a_busy_phone_is_not_used_and_the_task_goes_elsewhere(tmp_path: Path) -> None:
    def outcome(job: FleetJob, device: FleetDevice, number: int) -> str:
        return "busy" if device.name == "p1" else "done"

    backend = Backend([FleetDevice("p1"), FleetDevice("p2")], outcome)
    run = run_fleet([_goal(0, "a"), _goal(1, "b")], backend, tmp_path)
    assert [(r["success"], r["device"], len(r["attempts"])) for r in run.records] == [
        (True, "p2", 1), (True, "p2", 1)]
    assert run.notes == ["p1 not used: device p1 is busy: omg-agent run 'x' (pid 7)"]
    alone = run_fleet([_goal(0, "a")], Backend([FleetDevice("p1")], outcome), tmp_path)
    assert alone.records[0]["attempts"] == []
    assert "never started" in alone.records[0]["error"]
    assert "busy: omg-agent run 'x'" in alone.records[0]["error"]
    assert alone.tally() == {"done": 0, "failed": 0, "never_started": 1}


def test_one_phone_under_two_names_is_kept_once_with_a_note() -> None:
    a = FleetDevice("127.0.0.1:5555", keys=("127.0.0.1:5555", "R58M"))
    b = FleetDevice("localhost:5555", keys=("127.0.0.1:5555",))
    c = FleetDevice("R58M", keys=("R58M",))
    d = FleetDevice("127.0.0.1:5555@10.0.0.5:5037", node="n2",
                    keys=("127.0.0.1:5555@10.0.0.5:5037",))
    e = FleetDevice("127.0.0.1:5557", node="n2", keys=("127.0.0.1:5557",))
    f = FleetDevice("127.0.0.1:5557", node="n3", keys=("127.0.0.1:5557",))
    kept, notes = one_per_phone([a, b, c, d, e, f])
    assert kept == [a, d, e, f]  # an address on another node is another phone
    assert notes == ["localhost:5555 is the same phone as 127.0.0.1:5555: used once, as "
                     "127.0.0.1:5555",
                     "R58M is the same phone as 127.0.0.1:5555: used once, as 127.0.0.1:5555"]


def test_a_dead_workers_attempt_says_what_its_trace_shows(tmp_path: Path) -> None:
    job = _goal(0, "a")
    trace = tmp_path / "runs/a/attempt-1"
    trace.mkdir(parents=True)
    step = ('{"record": "step", "step": %d, "phase": "act", "model_reply": "tap", '
            '"actions": [{"type": "tap"}]}\n')
    (trace / "trace.jsonl").write_text(step % 1 + step % 2, encoding="utf-8")
    attempt = died_attempt(job, FleetDevice("vphone-1"), 1, tmp_path, "worker died")
    summary = attempt.summary()
    assert (summary["died"], summary["trace_dir"], summary["turns"], summary["actions"],
            summary["model_calls"]) == (True, "runs/a/attempt-1", 2, 2, 2)
    nothing = died_attempt(job, FleetDevice("vphone-1"), 2, tmp_path, "worker died")
    assert nothing.summary()["trace_dir"] is None


def test_tally_counts_done_failed_and_never_started() -> None:
    records = [{"success": True, "attempts": [{}]}, {"success": False, "attempts": [{}]},
               {"success": False, "attempts": []}]
    assert tally(records) == {"done": 1, "failed": 1, "never_started": 1}
