"""Many tasks on many devices: one dispatcher, two backends (a local pool, or Ray).

The dispatcher hands each job to a free device that fits it (a suite job to a vphone slot,
a goal to a phone with the profile and app it names), at most one job per device at a time,
in the jobs' order. An attempt whose device was lost (stopped, unplugged, its node gone) is
tried once more on another device; that device is given no more work. Every record keeps
the attempts it took (device, node, status, trace folder), the last one's run at its top.

A :class:`Backend` only starts attempts and reports finished ones:
:class:`LocalBackend` runs them in the suite's worker processes
(:func:`~omg_agent.bench.suite_run.worker_pool`); :class:`~omg_agent.fleet.ray_backend.
RayBackend` runs each as a Ray task holding its device's custom resource, so Ray places it
on the node that owns the device.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from omg_agent.fleet.attempt import Attempt, FleetJob, run_attempt, unpack_trace
from omg_agent.fleet.devices import FleetDevice, census

MAX_ATTEMPTS = 2  # the first, and once more elsewhere after a lost device
OnRun = Callable[[int, int, dict[str, Any]], None]


class Backend(Protocol):
    """Where attempts run."""

    name: str

    def devices(self) -> list[FleetDevice]:
        """The devices, with their census."""
        ...

    def submit(self, job: FleetJob, device: FleetDevice, number: int) -> Any:
        """Start attempt ``number`` of ``job`` on ``device``; a handle for :meth:`wait`."""
        ...

    def wait(self, handles: Sequence[Any]) -> list[tuple[Any, Attempt | None]]:
        """Block until at least one of ``handles`` finished; those, with their attempts
        (None: the worker running it died, taking the device's node or process with it)."""
        ...


@dataclass
class FleetRun:
    """What :func:`run_fleet` did: one record per job (jobs' order), the devices, the time."""

    records: list[dict[str, Any]] = field(default_factory=list)
    devices: list[FleetDevice] = field(default_factory=list)
    wall_s: float = 0.0
    backend: str = ""


def record_of(job: FleetJob, attempts: list[Attempt]) -> dict[str, Any]:
    """The job's record: the last attempt's run, where it ran, and every attempt."""
    last = attempts[-1]
    out: dict[str, Any] = {"task_id": job.key}
    if job.suite is not None:
        out.update(variant=job.suite.variant.name, repeat=job.suite.repeat)
    out.update(last.run)
    out.update(device=last.device, node=last.node,
               attempts=[a.summary() for a in attempts])
    if last.lost:
        out.update(success=False, status="device lost",
                   error=out.get("error") or f"device {last.device} was lost")
    return out


def _no_device(job: FleetJob) -> dict[str, Any]:
    """The record of a job that no device (left) fits: what it needed, nothing run."""
    what = "a vphone slot" if job.needs_vphone else "a phone"
    needs = " and ".join(f"{k} {v!r}" for k, v in (("profile", job.profile), ("app", job.app))
                         if v)
    record: dict[str, Any] = {"task_id": job.key}
    if job.suite is not None:
        from omg_agent.core.secrets import mask_task
        from omg_agent.sim.expert.runner import TaskRun

        task = job.suite.task
        record.update(variant=job.suite.variant.name, repeat=job.suite.repeat,
                      **TaskRun(mask_task(task.goal), False, "error", 0, 0, 0, 0,
                                task_id=task.id, tags=tuple(task.tags),
                                impossible=task.impossible, seed=job.suite.seed).as_dict())
    record.update(success=False, status="error", trace_dir=None, report=None, device="",
                  node="", attempts=[], error=f"no device (left) fits: it needs {what}"
                  + (f" with {needs}" if needs else ""))
    return record


def run_fleet(jobs: Sequence[FleetJob], backend: Backend, out: Path,
              on_run: OnRun | None = None) -> FleetRun:
    """Run every job on the backend's devices; traces end up under ``out``."""
    started = time.perf_counter()
    devices = backend.devices()
    free = list(devices)
    queue: deque[tuple[FleetJob, list[Attempt]]] = deque((j, []) for j in jobs)
    running: dict[Any, tuple[FleetJob, list[Attempt], FleetDevice]] = {}
    done: dict[int, dict[str, Any]] = {}

    def finish(job: FleetJob, record: dict[str, Any]) -> None:
        done[job.index] = record
        if on_run is not None:
            on_run(len(done), len(jobs), record)

    while queue or running:
        for job, attempts in list(queue):
            tried = {a.device for a in attempts}
            device = next((d for d in free if job.fits(d) and d.name not in tried), None)
            if device is not None:
                free.remove(device)
                queue.remove((job, attempts))
                running[backend.submit(job, device, len(attempts) + 1)] = (
                    job, attempts, device)
        if not running:  # nothing runs and nothing fits: no device will ever free up
            for job, _ in queue:
                finish(job, _no_device(job))
            break
        for handle, attempt in backend.wait(list(running)):
            job, attempts, device = running.pop(handle)
            if attempt is None:
                attempt = Attempt(len(attempts) + 1, device.name, device.node, True,
                                  {"success": False, "status": "device lost",
                                   "error": f"the worker on {device.name} died"})
            if attempt.packed is not None:
                unpack_trace(attempt.packed, out)
            attempts = [*attempts, attempt]
            if attempt.lost:
                devices_left = [d for d in free if job.fits(d)]
                if len(attempts) < MAX_ATTEMPTS and (devices_left or running):
                    queue.appendleft((job, attempts))
                    continue
            else:
                free.append(device)
            finish(job, record_of(job, attempts))
    return FleetRun([done[j.index] for j in jobs], devices,
                    round(time.perf_counter() - started, 3), backend.name)


def _local_attempt(job: FleetJob, device: FleetDevice, number: int, root: Path) -> Attempt:
    return run_attempt(job, device, number, root)


class LocalBackend:
    """Attempts in the suite's worker processes, one per device, on this machine."""

    name = "local"

    def __init__(self, devices: Sequence[FleetDevice], out: Path) -> None:
        from omg_agent.bench.suite_run import worker_pool

        self.out = out
        self._pool = worker_pool(max(1, len(devices)))
        # the census runs in the workers, as on Ray (where each device's node answers it)
        self._devices = [f.result() for f in [self._pool.submit(census, d) for d in devices]]

    def devices(self) -> list[FleetDevice]:
        return list(self._devices)

    def submit(self, job: FleetJob, device: FleetDevice, number: int) -> Future[Attempt]:
        return self._pool.submit(_local_attempt, job, device, number, self.out)

    def wait(self, handles: Sequence[Any]) -> list[tuple[Any, Attempt | None]]:
        finished, _ = wait(handles, return_when=FIRST_COMPLETED)
        # an exception here is a worker process that died (BrokenProcessPool): attempts
        # catch their own failures
        return [(f, None if f.exception() is not None else f.result()) for f in finished]

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> LocalBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
