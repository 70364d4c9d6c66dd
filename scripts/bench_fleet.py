#!/usr/bin/env python3
"""Fleet throughput: tasks per minute with 1, 2 and 4 devices, local pool vs Ray, one run.

Runs the suite's 8 fastest tasks (expert double, noise none) on N vphone slots through the
fleet dispatcher, first with the local pool (the suite's worker processes), then on a local
Ray cluster of two nodes started for the purpose (the slots split between them; ``ray stop``
after). Prints one side-by-side table. Needs Ray (``pip install 'omg-agent[ray]'``).

    python scripts/bench_fleet.py [--sizes 1,2,4] [--repeat 3] [--tasks ID,ID,…]

Not a test: wall times depend on the machine and its load. Cluster start-up is not counted;
each run's workers answer the device census before the clock starts, in both backends.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from statistics import median

from omg_agent.bench.suite import load_tasks
from omg_agent.bench.suite_run import SuitePlan
from omg_agent.fleet.devices import FleetDevice
from omg_agent.fleet.jobs import suite_on_fleet
from omg_agent.fleet.local_backend import LocalBackend

FAST = ("feed.comment,notes.delete_missing,messages.no_conversation,"
        "settings.missing_option.zh,feed.like_post.zh,settings.missing_option,"
        "settings.bluetooth.zh,notes.delete")
RAY = [sys.executable, "-c", "from ray.scripts.scripts import main; main()"]


def _ray(*args: str) -> None:
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    subprocess.run([*RAY, *args], check=True, capture_output=True, env=env,
                   stdin=subprocess.DEVNULL)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _slots(n: int) -> list[str]:
    return [f"vphone-{i}" for i in range(1, n + 1)]


def run_local(plan: SuitePlan, n: int, out: Path) -> tuple[float, int]:
    with LocalBackend([FleetDevice(s) for s in _slots(n)], out) as backend:
        run, _ = suite_on_fleet(plan, out, backend)
    return run.wall_s, sum(1 for r in run.records if r["success"])


@contextmanager
def ray_cluster(n: int, scratch: Path) -> Iterator[str]:
    """A local two-node Ray cluster offering ``n`` vphone slots (split between the nodes);
    its address; ``ray stop`` after."""
    slots = _slots(n)
    head, second = slots[: (n + 1) // 2], slots[(n + 1) // 2:]
    port = _free_port()
    small = ["--num-cpus", "1", "--object-store-memory", "80000000"]
    try:
        _ray("start", "--head", "--port", str(port), *small, "--temp-dir", str(scratch),
             "--include-dashboard", "false", "--disable-usage-stats", "--resources",
             json.dumps({f"omg-device:{s}": 1 for s in head}))
        if second:
            _ray("start", "--address", f"127.0.0.1:{port}", *small, "--resources",
                 json.dumps({f"omg-device:{s}": 1 for s in second}))
        yield f"127.0.0.1:{port}"
    finally:
        subprocess.run([*RAY, "stop", "--force"], capture_output=True)


def run_ray(plan: SuitePlan, address: str, out: Path) -> tuple[float, int]:
    from omg_agent.fleet.ray_backend import RayBackend

    with RayBackend(address) as backend:
        run, _ = suite_on_fleet(plan, out, backend)
    return run.wall_s, sum(1 for r in run.records if r["success"])


def measure(plan: SuitePlan, n: int, repeat: int, scratch: Path
            ) -> tuple[list[tuple[float, int]], list[tuple[float, int]]]:
    """``repeat`` runs of each backend on ``n`` devices, alternating which goes first (the
    machine's load drifts; the median is reported)."""
    local: list[tuple[float, int]] = []
    ray: list[tuple[float, int]] = []
    with ray_cluster(n, scratch / f"r{n}") as address:
        for r in range(repeat):
            order = ("ray", "local") if r % 2 == 0 else ("local", "ray")
            for which in order:
                out = scratch / f"{which}-{n}-{r}"
                if which == "ray":
                    ray.append(run_ray(plan, address, out))
                else:
                    local.append(run_local(plan, n, out))
    return local, ray


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,2,4")
    parser.add_argument("--tasks", default=FAST)
    parser.add_argument("--repeat", type=int, default=3)
    ns = parser.parse_args()
    plan = SuitePlan(load_tasks(0, ns.tasks), noise="none")
    scratch = Path(tempfile.mkdtemp(prefix="omgbf", dir="/tmp"))
    tasks = len(plan.tasks)
    rows = []
    try:
        for n in (int(s) for s in ns.sizes.split(",")):
            local, ray = measure(plan, n, ns.repeat, scratch)
            rows.append((n, local, ray))
            print(f"{n} devices: local {[w for w, _ in local]} s, ray {[w for w, _ in ray]} s",
                  file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("| devices | local pool: tasks/min | Ray, 2 nodes: tasks/min | "
          "median wall, local / Ray (s) | succeeded, local / Ray |\n|---:|---:|---:|---:|---:|")
    for n, local, ray in rows:
        lw, rw = median(w for w, _ in local), median(w for w, _ in ray)
        print(f"| {n} | {tasks / lw * 60:.1f} | {tasks / rw * 60:.1f} | {lw:.1f} / {rw:.1f} | "
              f"{sum(ok for _, ok in local)}/{tasks * len(local)} / "
              f"{sum(ok for _, ok in ray)}/{tasks * len(ray)} |")
    print(f"\nCommand: python scripts/bench_fleet.py --sizes {ns.sizes} --repeat {ns.repeat}"
          + ("" if ns.tasks == FAST else f" --tasks {ns.tasks}"))


if __name__ == "__main__":
    main()
