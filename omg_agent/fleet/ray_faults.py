"""Fleet faults on a two-node Ray cluster on this host (issue 38): a script's case for
``scripts/bench_reliability.py --fleet-ray N``, never a CI test (a cluster takes a minute to
start on a small machine).

:func:`two_node_cluster` starts a head node and a second node with ``ray start``, each
offering one vphone slot as its custom resource; the dispatcher runs three suite tasks on
them through :class:`~omg_agent.fleet.ray_backend.RayBackend`, and, as in
:mod:`omg_agent.fleet.faults`, the truth is read from the phones (the suite's checks) and the
attempt folders gathered on the driver, never from the records alone:

* *killed worker* — the Ray worker running the first attempt is SIGKILLed once that attempt
  has acted on its phone (its trace, in the worker's scratch folder, records a step): that
  attempt alone fails, its task is retried on the other node, every task ends done;
* *stopped phones* — both slots' vphones are stopped once their tasks acted: the two
  attempts are recorded with their traces, lost, and the third task never starts.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from omg_agent.fleet.attempt import Attempt, FleetJob, attempt_rel
from omg_agent.fleet.devices import FleetDevice
from omg_agent.fleet.faults import SLOT_TASKS, FleetTrial, _count, await_true

RAY_FAULTS = ("killed worker (Ray, 2 nodes)", "stopped phones (Ray, 2 nodes)")
NODES = {"head": "vphone-a1", "worker": "vphone-b1"}
_RAY = [sys.executable, "-c", "from ray.scripts.scripts import main; main()"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ray(*args: str, env: dict[str, str]) -> None:
    proc = subprocess.run([*_RAY, *args], capture_output=True, text=True, env=env,
                          timeout=300, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise RuntimeError(f"ray {args[0]} failed: {(proc.stdout + proc.stderr)[-800:]}")


@contextlib.contextmanager
def two_node_cluster() -> Iterator[str]:
    """A head and a second Ray node on this host, one vphone slot each; its address. The
    vphones publish their records in a scratch ``XDG_RUNTIME_DIR`` that the nodes' workers
    and this process share (set in this process's environment while inside)."""
    scratch = Path(tempfile.mkdtemp(prefix="omgray", dir="/tmp"))  # short: Ray's sockets
    (scratch / "xdg").mkdir()
    before = os.environ.get("XDG_RUNTIME_DIR")
    os.environ["XDG_RUNTIME_DIR"] = str(scratch / "xdg")
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    port = _free_port()
    small = ["--num-cpus", "1", "--object-store-memory", "80000000"]
    try:
        _ray("start", "--head", "--port", str(port), *small, "--temp-dir", str(scratch / "r"),
             "--include-dashboard", "false", "--disable-usage-stats", "--resources",
             json.dumps({f"omg-device:{NODES['head']}": 1}), env=env)
        _ray("start", "--address", f"127.0.0.1:{port}", *small, "--resources",
             json.dumps({f"omg-device:{NODES['worker']}": 1}), env=env)
        yield f"127.0.0.1:{port}"
    finally:
        subprocess.run([*_RAY, "stop", "--force"], capture_output=True, env=env, timeout=300,
                       stdin=subprocess.DEVNULL, check=False)
        if before is None:
            os.environ.pop("XDG_RUNTIME_DIR", None)
        else:
            os.environ["XDG_RUNTIME_DIR"] = before
        shutil.rmtree(scratch, ignore_errors=True)


class _Watched:
    """The Ray backend, telling the harness which attempt runs on which device."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name = inner, inner.name
        self.on: dict[str, tuple[FleetJob, int]] = {}  # device -> its latest attempt

    def devices(self) -> list[FleetDevice]:
        return self.inner.devices()

    def submit(self, job: FleetJob, device: FleetDevice, number: int) -> Any:
        self.on[device.name] = (job, number)
        return self.inner.submit(job, device, number)

    def wait(self, handles: Sequence[Any]) -> list[tuple[Any, Attempt | None]]:
        return self.inner.wait(handles)


def _scratch(job: FleetJob, number: int) -> list[Path]:
    """The attempt's trace in its worker's scratch folder on this host, if written."""
    return list(Path(tempfile.gettempdir()).glob(
        f"omg-fleet-*/{attempt_rel(job, number)}/trace.jsonl"))


def _acted(job: FleetJob, number: int) -> bool:
    """Whether the attempt has acted on its phone (its trace records a step)."""
    return any(b'"record":"step"' in trace.read_bytes() for trace in _scratch(job, number))


def _acting_slots(backend: _Watched) -> list[dict[str, Any]]:
    """The records of the slots' vphones whose current attempt has acted."""
    from omg_agent.vphone import daemon

    found = []
    for record in daemon.list_records():
        slot = str(record.get("fleet_device") or "")
        if slot in backend.on and _acted(*backend.on[slot]):
            found.append(record)
    return found


def _ray_fleet(fault: str, address: str, out: Path,
               act: Callable[[_Watched], None]) -> FleetTrial:
    import threading

    from omg_agent.bench.suite import load_tasks
    from omg_agent.bench.suite_run import SuitePlan
    from omg_agent.fleet.jobs import suite_jobs
    from omg_agent.fleet.ray_backend import RayBackend
    from omg_agent.fleet.scheduler import run_fleet

    trial = FleetTrial(fault)
    jobs = suite_jobs(SuitePlan(load_tasks(0, SLOT_TASKS)), out)
    with RayBackend(address) as ray_backend:
        backend = _Watched(ray_backend)
        side = threading.Thread(target=act, args=(backend,), daemon=True)
        side.start()
        run = run_fleet(jobs, backend, out)
        side.join(5)
    _count(trial, run, out)
    trial.expected_done = trial.done  # a slot's record is its phone's check (run_job)
    return trial


def killed_ray_worker_trial(address: str, out: Path) -> FleetTrial:
    """SIGKILL the Ray worker of the first attempt that acts: only it may fail."""
    def kill(backend: _Watched) -> None:
        found: list[dict[str, Any]] = []

        def one_acted() -> bool:
            found[:] = _acting_slots(backend)
            return bool(found)

        if await_true(one_acted, 240):
            record = found[0]
            traces = _scratch(*backend.on[str(record["fleet_device"])])
            os.kill(int(record["pid"]), signal.SIGKILL)
            for trace in traces:  # a killed worker leaves its scratch folder behind
                shutil.rmtree(Path(tempfile.gettempdir()) / trace.relative_to(
                    tempfile.gettempdir()).parts[0], ignore_errors=True)

    trial = _ray_fleet(RAY_FAULTS[0], address, out, kill)
    trial.expected_done = trial.tasks  # every task can be done on the other node
    if trial.died != 1:
        trial.error = f"{trial.died} attempts died, not the 1 killed"
    return trial


def stopped_ray_phones_trial(address: str, out: Path) -> FleetTrial:
    """Stop both nodes' vphones once their tasks acted."""
    from omg_agent.errors import OmgError
    from omg_agent.vphone import daemon

    def stop_both(backend: _Watched) -> None:
        stopped: set[str] = set()

        def stop_acting() -> bool:
            for record in _acting_slots(backend):
                if record["fleet_device"] not in stopped:
                    with contextlib.suppress(OmgError):  # it finished meanwhile
                        daemon.control(record, "POST", "/stop")
                        stopped.add(str(record["fleet_device"]))
            return len(stopped) == 2

        await_true(stop_acting, 240)

    trial = _ray_fleet(RAY_FAULTS[1], address, out, stop_both)
    if trial.lost != 2:
        trial.error = f"{trial.lost} attempts lost their phone, not the 2 stopped"
    return trial


def ray_fleet_trials(rounds: int, report: Callable[[FleetTrial], None] | None = None
                     ) -> list[FleetTrial]:
    """``rounds`` trials of each of :data:`RAY_FAULTS` on one two-node cluster."""
    trials: list[FleetTrial] = []
    with two_node_cluster() as address:
        for _ in range(rounds):
            for fault, trial_of in zip(RAY_FAULTS, (killed_ray_worker_trial,
                                                    stopped_ray_phones_trial), strict=True):
                started = time.perf_counter()
                with tempfile.TemporaryDirectory(prefix="omg-fleet-ray-") as scratch:
                    try:
                        trial = trial_of(address, Path(scratch))
                    except Exception as exc:  # noqa: BLE001 (the harness failed: say so)
                        trial = FleetTrial(fault, error=f"{type(exc).__name__}: {exc}")
                trial.wall_s = round(time.perf_counter() - started, 1)
                trials.append(trial)
                if report is not None:
                    report(trial)
    return trials


__all__ = ["NODES", "RAY_FAULTS", "ray_fleet_trials", "two_node_cluster"]
