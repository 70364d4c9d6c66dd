"""Many tasks on many devices: one dispatcher, two backends (a local pool, or Ray).

The dispatcher hands each job to a free device that fits it (a suite job to a vphone slot,
a goal to a phone with the profile and app it names), at most one job per device at a time,
in the jobs' order. One phone named twice (``127.0.0.1:5555`` and ``localhost:5555``, or
two serials with one ``ro.serialno``) is used once, and the run says so in its notes. An
attempt whose device was lost (stopped, unplugged, its node gone) is tried once more on
another device; that device is given no more work. An attempt whose worker process died
fails alone and is tried once more elsewhere; its device stays in the pool while it is
attached. A phone another agent drives (its lease is held) is not used, and said so.

Every record keeps every attempt that started (device, node, status, trace folder, model
calls, actions), the last one's run at its top; a record without attempts is a task that
never started. :func:`tally` counts tasks done, failed and never started.

A :class:`Backend` only starts attempts and reports finished ones:
:class:`~omg_agent.fleet.local_backend.LocalBackend` runs each in a watched process of its
own; :class:`~omg_agent.fleet.ray_backend.RayBackend` runs each as a Ray task holding its
device's custom resource, so Ray places it on the node that owns the device.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from omg_agent.fleet.attempt import Attempt, FleetJob, unpack_trace
from omg_agent.fleet.devices import FleetDevice, attached, one_per_phone

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
    notes: list[str] = field(default_factory=list)  # devices merged or not used, and why

    def tally(self) -> dict[str, int]:
        return tally(self.records)


def tally(records: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Tasks done, failed (an attempt started) and never started (none did)."""
    done = sum(1 for r in records if r.get("success"))
    never = sum(1 for r in records if not r.get("success") and not r.get("attempts"))
    return {"done": done, "failed": len(records) - done - never, "never_started": never}


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


def _no_device(job: FleetJob, refused: dict[str, str]) -> dict[str, Any]:
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
                  node="", attempts=[], error="never started: no device (left) fits: it "
                  f"needs {what}" + (f" with {needs}" if needs else "")
                  + "".join(f"; {why}" for why in refused.values()))
    return record


Pending = tuple[FleetJob, list[Attempt], dict[str, str]]  # job, attempts, refused devices


class _Dispatch:
    """One fleet run's state: free devices, the queue, running attempts, finished records."""

    def __init__(self, jobs: Sequence[FleetJob], backend: Backend, out: Path,
                 on_run: OnRun | None) -> None:
        self.jobs, self.backend, self.out, self.on_run = jobs, backend, out, on_run
        self.devices, self.notes = one_per_phone(backend.devices())
        self.free = list(self.devices)
        self.queue: deque[Pending] = deque((j, [], {}) for j in jobs)
        self.running: dict[Any, tuple[Pending, FleetDevice]] = {}
        self.done: dict[int, dict[str, Any]] = {}

    def finish(self, job: FleetJob, record: dict[str, Any]) -> None:
        self.done[job.index] = record
        if self.on_run is not None:
            self.on_run(len(self.done), len(self.jobs), record)

    def start_what_fits(self) -> None:
        for pending in list(self.queue):
            job, attempts, refused = pending
            tried = {a.device for a in attempts} | set(refused)
            device = next((d for d in self.free if job.fits(d) and d.name not in tried), None)
            if device is not None:
                self.free.remove(device)
                self.queue.remove(pending)
                handle = self.backend.submit(job, device, len(attempts) + 1)
                self.running[handle] = (pending, device)

    def give_up(self) -> None:
        """Nothing runs and nothing fits: no device will ever free up."""
        for job, attempts, refused in self.queue:
            if attempts:  # it ran: its attempts are its record, not "never started"
                record = record_of(job, attempts)
                record["error"] = (f"{record.get('error') or record.get('status')}; "
                                   "no device was left to try it again")
                self.finish(job, record)
            else:
                self.finish(job, _no_device(job, refused))
        self.queue.clear()

    def finished(self, handle: Any, attempt: Attempt | None) -> None:
        (job, attempts, refused), device = self.running.pop(handle)
        if attempt is None:  # a Ray task whose worker or node died
            attempt = Attempt(len(attempts) + 1, device.name, device.node, True,
                              {"success": False, "status": "device lost",
                               "error": f"the worker on {device.name} died"})
        if attempt.packed is not None:
            unpack_trace(attempt.packed, self.out)
        if attempt.busy:  # another agent drives the phone: not ours to use
            refused[device.name] = str(attempt.run.get("error"))
            self.notes.append(f"{device.name} not used: {attempt.run.get('error')}")
            self.queue.appendleft((job, attempts, refused))
            return
        attempts = [*attempts, attempt]
        gone = attempt.lost or (attempt.died and not attached(device))
        if not gone:
            self.free.append(device)
        tried = {a.device for a in attempts} | set(refused)
        others = [*self.free, *(d for _, d in self.running.values())]
        if (attempt.lost or attempt.died) and len(attempts) < MAX_ATTEMPTS \
                and any(job.fits(d) and d.name not in tried for d in others):
            self.queue.appendleft((job, attempts, refused))
            return
        self.finish(job, record_of(job, attempts))


def run_fleet(jobs: Sequence[FleetJob], backend: Backend, out: Path,
              on_run: OnRun | None = None) -> FleetRun:
    """Run every job on the backend's devices; traces end up under ``out``."""
    started = time.perf_counter()
    state = _Dispatch(jobs, backend, out, on_run)
    while state.queue or state.running:
        state.start_what_fits()
        if not state.running:
            state.give_up()
            break
        for handle, attempt in backend.wait(list(state.running)):
            state.finished(handle, attempt)
    return FleetRun([state.done[j.index] for j in jobs], state.devices,
                    round(time.perf_counter() - started, 3), backend.name, state.notes)

