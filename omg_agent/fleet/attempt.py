"""One attempt: a fleet job run once on one device, and what came of it.

A :class:`FleetJob` is either a bench-suite job (``suite``: a fresh vphone on a vphone slot,
the expert double or a model, success read from the phone) or a plain-language ``goal`` for
a phone (success is the agent's verified ``done``). :func:`run_attempt` runs it where it is
called — a local worker process or a Ray worker on the device's node — and says whether the
device was *lost* on the way (stopped, unplugged, gone from its adb server): such an attempt
is retried elsewhere by :mod:`omg_agent.fleet.scheduler`. A goal attempt holds its phone's
lease (:func:`omg_agent.drivers.lease.phone_lease`) while it drives: a phone another agent
drives is *busy* — the attempt does nothing and the fleet does not use that phone. An
attempt whose worker died is rebuilt from its trace on disk (:func:`died_attempt`). The
trace goes to ``root/rel``; :func:`pack_trace` / :func:`unpack_trace` carry it from a remote
node to the driver.
"""

from __future__ import annotations

import dataclasses
import io
import logging
import os
import tarfile
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omg_agent.bench.suite_run import Job
from omg_agent.config import Settings
from omg_agent.fleet.devices import FleetDevice, adb_client, attached

log = logging.getLogger(__name__)

# A fleet retries a lost device's task elsewhere: waiting the default 30 s for it to come
# back would only hold the task up.
FLEET_DEVICE_GRACE_S = 3.0
MAX_TRACE_BYTES = 64 * 1024 * 1024  # a packed trace carried back from a node
BUSY = "device busy"


@dataclass(frozen=True)
class FleetJob:
    """One task to run somewhere: its name in the results, its trace folder (relative to the
    output), what it needs of a device, and the suite job or goal it runs."""

    index: int
    key: str
    rel: str
    suite: Job | None = None
    goal: str | None = None
    settings: Settings | None = None
    profile: str | None = None
    app: str | None = None

    @property
    def needs_vphone(self) -> bool:
        return self.suite is not None

    def fits(self, device: FleetDevice) -> bool:
        if self.needs_vphone != device.is_vphone:
            return False
        return device.matches(self.profile, self.app)


@dataclass(frozen=True)
class Attempt:
    """What one attempt did: the run's record (paths relative to the output), the device
    and Ray node it ran on, whether the device was lost, and the packed trace if any."""

    number: int
    device: str
    node: str
    lost: bool
    run: dict[str, Any]
    packed: bytes | None = None
    died: bool = False  # its worker process died: the device may be fine
    busy: bool = False  # another agent held the phone's lease: nothing was done

    def summary(self) -> dict[str, Any]:
        out = {"attempt": self.number, "device": self.device, "node": self.node,
               "lost": self.lost, "died": self.died, "status": self.run.get("status", ""),
               "success": bool(self.run.get("success")), "error": self.run.get("error", ""),
               "trace_dir": self.run.get("trace_dir")}
        out.update({k: self.run[k] for k in ("model_calls", "turns", "actions", "report")
                    if k in self.run})
        return out


def attempt_rel(job: FleetJob, number: int) -> str:
    return f"{job.rel}/attempt-{number}"


def run_attempt(job: FleetJob, device: FleetDevice, number: int, root: Path,
                node: str = "") -> Attempt:
    """Run ``job`` on ``device``; its trace under ``root``."""
    trace = root / attempt_rel(job, number)
    trace.parent.mkdir(parents=True, exist_ok=True)
    if job.suite is not None:
        run, lost = _suite_attempt(job.suite, device, trace)
    else:
        run, lost = _goal_attempt(job, device, trace)
    for key in ("trace_dir", "report"):
        if run.get(key):
            run[key] = Path(os.path.relpath(run[key], root)).as_posix()
    return Attempt(number, device.name, node, lost, run, busy=run.get("status") == BUSY)


def _suite_attempt(job: Job, device: FleetDevice, trace: Path) -> tuple[dict[str, Any], bool]:
    from omg_agent.bench.suite_run import run_job
    from omg_agent.fleet.vphone_slot import SlotPhone, published

    slots: list[SlotPhone] = []

    def host(phone: Any, serial: str) -> Any:
        return published(phone, serial, device.name, slots)

    settings = (*job.variant.settings, ("device_grace_s", FLEET_DEVICE_GRACE_S))
    variant = dataclasses.replace(job.variant, settings=settings)
    run = run_job(dataclasses.replace(job, variant=variant, trace_dir=trace), host=host)
    lost = bool(slots) and slots[-1].stopped.is_set()
    return run.as_dict(), lost


def _goal_attempt(job: FleetJob, device: FleetDevice, trace: Path
                  ) -> tuple[dict[str, Any], bool]:
    from omg_agent.brain.agent import choke_point, open_agent
    from omg_agent.drivers.adb import AdbDriver
    from omg_agent.errors import DeviceBusy, OmgError
    from omg_agent.sim.expert.runner import with_overrides

    assert job.goal is not None and job.settings is not None
    settings = with_overrides(job.settings, {"device_grace_s": FLEET_DEVICE_GRACE_S})
    serial, _, _ = device.adb_address()
    run: dict[str, Any] = {"goal": job.goal, "task_id": job.key, "success": False,
                           "status": "error", "error": "", "trace_dir": str(trace),
                           "report": None}
    try:
        with ExitStack() as stack:
            _hold_lease(stack, job, device, trace)
            driver = AdbDriver(serial, client=adb_client(device),
                               grace_s=settings.device_grace_s,
                               judge=choke_point(settings, serial))
            stack.callback(driver.close)
            # a goal of a tasks file: its words grant nothing (guards/provenance); the
            # user's --allow and config do, and nobody is there to ask
            result = open_agent(stack, driver, settings, job.goal, run_dir=trace,
                                session=f"fleet-{job.key}", words_grant=False).run(job.goal)
        run.update(success=result.status == "done", status=result.status,
                   model_calls=result.model_calls, steps=result.steps_used,
                   wall_s=round(result.wall_s, 4), answer=result.answer)
    except DeviceBusy as exc:  # nothing was done: the phone is another agent's
        run.update(status=BUSY, error=str(exc), trace_dir=None)
        return run, False
    except Exception as exc:  # one run's crash is its own failure, not the fleet's
        if not isinstance(exc, OmgError):
            log.exception("%s crashed on %s", job.key, device.name)
        run["error"] = f"{type(exc).__name__}: {exc}"
    if (trace / "trace.jsonl").exists():
        from omg_agent.trace.report import render_report

        run["report"] = str(render_report(trace))
    return run, not run["success"] and not attached(device)


def _hold_lease(stack: ExitStack, job: FleetJob, device: FleetDevice, trace: Path) -> None:
    """Hold the phone's lease for the attempt (:class:`DeviceBusy` when another agent drives
    it): the fleet's attempts and every other driver of the phone take turns."""
    from omg_agent.drivers.lease import phone_lease

    serial, host, port = device.adb_address()
    lease = phone_lease(serial, f"omg-agent fleet task {job.key}", client=adb_client(device),
                        server=f"{host}:{port}" if host else "")
    lease.acquire()
    stack.callback(lease.release)
    lease.note(trace)


def died_attempt(job: FleetJob, device: FleetDevice, number: int, root: Path, why: str
                 ) -> Attempt:
    """The attempt of a worker that died before it could report: failed, with what its
    trace on disk shows it did (turns, model calls, actions)."""
    rel = attempt_rel(job, number)
    run: dict[str, Any] = {"task_id": job.key, "success": False, "status": "error",
                           "error": why, "trace_dir": None, "report": None}
    trace = root / rel
    if (trace / "trace.jsonl").is_file():
        from omg_agent.trace.loader import load_trace

        steps = load_trace(trace).steps
        run.update(trace_dir=rel, turns=len(steps),
                   model_calls=sum(1 for s in steps if s.model_reply),
                   actions=sum(len(s.actions) for s in steps))
    return Attempt(number, device.name, device.node, False, run, died=True)


def pack_trace(root: Path, rel: str) -> bytes | None:
    """The folder ``root/rel`` as a gzipped tar (None when there is none)."""
    folder = root / rel
    if not folder.is_dir():
        return None
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(folder, arcname=rel)
    data = buffer.getvalue()
    if len(data) > MAX_TRACE_BYTES:
        log.warning("trace %s is %d bytes packed; not carried back", rel, len(data))
        return None
    return data


def unpack_trace(data: bytes, out: Path) -> None:
    """Unpack a :func:`pack_trace` archive under ``out`` (no path may leave it)."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(out, filter="data")
