"""The fleet on Ray: each device is a custom resource of the node whose adb server sees it.

A node offers its devices when it joins the cluster::

    ray start --address HEAD:6379 --resources "$(omg-agent fleet resources --vphones 2)"

The driver (``omg-agent fleet run --ray ADDRESS`` or ``bench suite --ray ADDRESS``) reads the
devices from the live nodes' resources, asks each for its census on its own node, and runs
every attempt as a Ray task that holds one unit of its device's resource (and no CPU: a
device, not a core, is what a task occupies), so Ray places it on the node that owns the
device. The task writes its trace on that node and sends it back packed with the result.
Ray's own task retries are off: a task whose device dropped is retried by the dispatcher on
another device, not by Ray on the same one. Ray is an optional extra (``omg-agent[ray]``).
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omg_agent.errors import ConfigError
from omg_agent.extras import load
from omg_agent.fleet.attempt import Attempt, FleetJob, attempt_rel, pack_trace, run_attempt
from omg_agent.fleet.devices import FleetDevice, census, from_resources

log = logging.getLogger(__name__)

def import_ray() -> Any:
    return load("ray", "ray", "a fleet across hosts (--ray)")


def _remote_attempt(job: FleetJob, device: FleetDevice, number: int) -> Attempt:
    """Runs on the device's node: the attempt in a scratch folder, its trace packed."""
    import dataclasses

    import ray

    node = ray.get_runtime_context().get_node_id()
    with tempfile.TemporaryDirectory(prefix="omg-fleet-") as scratch:
        root = Path(scratch)
        attempt = run_attempt(job, device, number, root, node=node)
        return dataclasses.replace(attempt, packed=pack_trace(root, attempt_rel(job, number)))


def _remote_census(device: FleetDevice) -> FleetDevice:
    return census(device)


class RayBackend:
    """Attempts as Ray tasks on the cluster at ``address`` ('auto': the one this machine
    belongs to)."""

    name = "ray"

    def __init__(self, address: str) -> None:
        self.ray = import_ray()
        try:
            self.ray.init(address=address, logging_level=logging.WARNING,
                          log_to_driver=False, ignore_reinit_error=True)
        except (ConnectionError, RuntimeError) as exc:
            raise ConfigError(f"--ray {address}: no Ray cluster answers there ({exc}); start "
                              "one with `ray start --head`, or give its ADDRESS "
                              "(host:port)") from None
        self._attempt = self.ray.remote(num_cpus=0, max_retries=0)(_remote_attempt)
        self._census = self.ray.remote(num_cpus=0, max_retries=0)(_remote_census)
        self._devices = self._find_devices()
        self._submitted: dict[Any, tuple[FleetJob, FleetDevice, int]] = {}

    def _find_devices(self) -> list[FleetDevice]:
        found = [d for node in self.ray.nodes() if node.get("Alive")
                 for d in from_resources(node.get("Resources", {}), node["NodeID"])]
        if not found:
            raise ConfigError("the Ray cluster has no devices: start each node with "
                              "--resources \"$(omg-agent fleet resources)\"")
        refs = [self._census.options(resources={d.resource: 1}).remote(d) for d in found]
        return list(self.ray.get(refs))

    def devices(self) -> list[FleetDevice]:
        return list(self._devices)

    def submit(self, job: FleetJob, device: FleetDevice, number: int) -> Any:
        ref = self._attempt.options(resources={device.resource: 1}).remote(job, device, number)
        self._submitted[ref] = (job, device, number)
        return ref

    def wait(self, handles: Sequence[Any]) -> list[tuple[Any, Attempt | None]]:
        ready, _ = self.ray.wait(list(handles), num_returns=1)
        out: list[tuple[Any, Attempt | None]] = []
        for ref in ready:
            submitted = self._submitted.pop(ref, None)
            try:
                out.append((ref, self.ray.get(ref)))
            except self.ray.exceptions.RayError as exc:  # the worker or its node died
                log.warning("an attempt's Ray task failed: %s", exc)
                out.append((ref, None if submitted is None else self._died(*submitted)))
        return out

    def _died(self, job: FleetJob, device: FleetDevice, number: int) -> Attempt:
        """The attempt whose Ray worker died (issue 38): failed, its worker's fault — the
        device stays in the pool while the node that owns it is alive (a dead node takes
        its devices with it: lost). Its trace stayed on that node."""
        alive = any(node.get("NodeID") == device.node and node.get("Alive")
                    for node in self.ray.nodes())
        why = (f"its Ray worker on node {device.node[:12]} died" if alive else
               f"the Ray node {device.node[:12]} that owns {device.name} died")
        run = {"task_id": job.key, "success": False, "status": "error", "error": why,
               "trace_dir": None, "report": None}
        return Attempt(number, device.name, device.node, not alive, run, died=True)

    def close(self) -> None:
        self.ray.shutdown()

    def __enter__(self) -> RayBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
