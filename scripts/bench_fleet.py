#!/usr/bin/env python3
"""Fleet throughput: tasks per minute with 1, 2 and 4 devices, local pool vs Ray, one run.

Runs the suite's 8 fastest tasks (expert double, noise none) on N vphone slots through the
fleet dispatcher, first with the local pool (the suite's worker processes), then on a local
Ray cluster of two nodes started for the purpose (the slots split between them; ``ray stop``
after). Prints one side-by-side table. Needs Ray (``pip install 'omg-agent[ray]'``).

    python scripts/bench_fleet.py [--sizes 1,2,4] [--tasks ID,ID,…]

Not a test: wall times depend on the machine (cluster start-up is not counted; each size's
first tasks pay for starting their worker processes in both backends).
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
from pathlib import Path

from omg_agent.bench.suite_run import SuitePlan, load_tasks
from omg_agent.fleet.devices import FleetDevice
from omg_agent.fleet.jobs import suite_on_fleet
from omg_agent.fleet.scheduler import LocalBackend

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


def run_ray(plan: SuitePlan, n: int, out: Path, scratch: Path) -> tuple[float, int]:
    from omg_agent.fleet.ray_backend import RayBackend

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
        with RayBackend(f"127.0.0.1:{port}") as backend:
            run, _ = suite_on_fleet(plan, out, backend)
    finally:
        subprocess.run([*RAY, "stop", "--force"], capture_output=True)
    return run.wall_s, sum(1 for r in run.records if r["success"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,2,4")
    parser.add_argument("--tasks", default=FAST)
    ns = parser.parse_args()
    plan = SuitePlan(load_tasks(0, ns.tasks), noise="none")
    scratch = Path(tempfile.mkdtemp(prefix="omgbf", dir="/tmp"))
    rows = []
    try:
        for n in (int(s) for s in ns.sizes.split(",")):
            local = run_local(plan, n, scratch / f"local-{n}")
            ray = run_ray(plan, n, scratch / f"ray-{n}", scratch / f"r{n}")
            rows.append((n, local, ray))
            print(f"{n} devices: local {local[0]:.1f} s, ray {ray[0]:.1f} s", file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    tasks = len(plan.tasks)
    print("| devices | local pool: tasks/min | Ray (2 nodes): tasks/min | "
          "local / Ray wall (s) | succeeded (local, Ray) |\n|---:|---:|---:|---:|---:|")
    for n, (lw, lok), (rw, rok) in rows:
        print(f"| {n} | {tasks / lw * 60:.1f} | {tasks / rw * 60:.1f} | {lw:.1f} / {rw:.1f} | "
              f"{lok}/{tasks}, {rok}/{tasks} |")
    print(f"\nCommand: python scripts/bench_fleet.py --sizes {ns.sizes}"
          + ("" if ns.tasks == FAST else f" --tasks {ns.tasks}"))


if __name__ == "__main__":
    main()
