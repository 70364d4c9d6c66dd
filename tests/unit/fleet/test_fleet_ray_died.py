"""A Ray worker that dies fails its own attempt only (issue 38 item 2, found by
``scripts/bench_reliability.py --fleet-ray``): recorded ``died`` and its device kept in the
pool while the node that owns it is alive; a dead node takes its devices with it (lost).
Before, every Ray task failure was "device lost" and its device left the pool.

The Ray calls the backend makes (``wait``, ``get``, ``nodes``) are answered by a stand-in
for the ``ray`` module, given to the backend as its ``ray``; no cluster is started (the
two-node cluster runs in the benchmark, never in CI)."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from omg_agent.fleet.attempt import FleetJob
from omg_agent.fleet.devices import FleetDevice
from omg_agent.fleet.ray_backend import RayBackend


class WorkerCrashed(Exception):
    """Ray's error for a task whose worker process died."""


class Cluster:
    """Two nodes; the first task submitted on ``kill_on`` crashes its worker; ``dead``
    nodes are reported not alive."""

    def __init__(self, kill_on: str, dead: Sequence[str] = ()) -> None:
        self.kill_on, self.dead = kill_on, set(dead)
        self.exceptions = SimpleNamespace(RayError=Exception)
        self.crashed = False

    def nodes(self) -> list[dict[str, Any]]:
        return [{"NodeID": n, "Alive": n not in self.dead} for n in ("node-a", "node-b")]

    def wait(self, refs: list[Any], num_returns: int) -> tuple[list[Any], list[Any]]:
        return refs[:1], refs[1:]

    def get(self, ref: Any) -> Any:
        job, device, number = ref
        if device.node == self.kill_on and not self.crashed:
            self.crashed = True
            raise WorkerCrashed("The worker died unexpectedly while executing this task")
        from omg_agent.fleet.attempt import Attempt
        return Attempt(number, device.name, device.node, False,
                       {"success": True, "status": "done", "trace_dir": None})


class Remote:
    def options(self, resources: dict[str, int]) -> Remote:
        return self

    def remote(self, job: FleetJob, device: FleetDevice, number: int) -> Any:
        return (job, device, number)


def _backend(cluster: Cluster) -> RayBackend:
    backend = RayBackend.__new__(RayBackend)  # the cluster is the stand-in, not ray.init
    backend.ray, backend._attempt, backend._submitted = cluster, Remote(), {}
    backend._devices = [FleetDevice("vphone-a1", node="node-a"),
                        FleetDevice("vphone-b1", node="node-b")]
    return backend


def _crashed(cluster: Cluster) -> Any:
    """What the backend reports for the first attempt, submitted on node-a's device."""
    backend = _backend(cluster)
    job = FleetJob(0, "like", "runs/like", goal="Like post 1")
    ref = backend.submit(job, backend.devices()[0], 1)
    [(handle, attempt)] = backend.wait([ref])
    assert handle is ref
    return attempt


def test_a_dead_ray_worker_fails_its_attempt_and_keeps_its_device() -> None:
    attempt = _crashed(Cluster(kill_on="node-a"))
    assert attempt is not None  # was: None, which the dispatcher records as "device lost"
    assert (attempt.device, attempt.died, attempt.lost) == ("vphone-a1", True, False)
    assert attempt.run["success"] is False and "Ray worker" in attempt.run["error"]


def test_a_dead_ray_node_takes_its_devices_with_it() -> None:
    attempt = _crashed(Cluster(kill_on="node-a", dead=["node-a"]))
    assert attempt is not None and (attempt.died, attempt.lost) == (True, True)
    assert "node" in attempt.run["error"] and "died" in attempt.run["error"]
