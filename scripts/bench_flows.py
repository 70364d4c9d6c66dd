"""Flow replay and the replay cache against the step-by-step agent, side by side.

For each task — "Like the first N posts in Feed" and Shop→Notes — on vphones with the
latency profile on (real-device command costs), one run each:

* ``agent``: the agent with the expert double (default planning mode), cache off;
* ``flow``: the flow compiled from that run's trace (``flow from-trace``), replayed with no
  model on a fresh phone;
* ``cache``: ``run`` of the same task again through the replay cache on a fresh phone.

Correctness is read from the phone's app state. Model calls are the double's requests,
device calls the adb round trips the driver made. Not a test: it prints a table (and
``--json`` the rows). Usage: ``python scripts/bench_flows.py [--likes 10] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from omg_agent.brain.agent import open_agent
from omg_agent.config import Settings
from omg_agent.drivers.adb import AdbDriver
from omg_agent.flows.cache import run_cached
from omg_agent.flows.fromtrace import flow_from_trace
from omg_agent.flows.session import replay
from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
from omg_agent.sim.expert.runner import sim_settings, task_human
from omg_agent.sim.expert.tasks import LikePosts, ShopPriceToNotes, Task
from omg_agent.sim.model_double import ModelDouble
from omg_agent.trace.rundir import new_run_dir
from omg_agent.vphone import adbhost
from omg_agent.vphone.phone import VirtualPhone


@contextmanager
def phone(seed: int = 0) -> Iterator[tuple[VirtualPhone, AdbDriver]]:
    vp = VirtualPhone(seed=seed, latency=True)
    server = vp.serve()
    serial = adbhost.connect("127.0.0.1", server.port)
    driver = AdbDriver(serial)
    try:
        yield vp, driver
    finally:
        driver.close()
        adbhost.disconnect(serial)
        vp.close()


def agent(task: Task, runs: Path, *, cache: bool) -> tuple[dict[str, Any], Path]:
    with phone() as (vp, driver), ExitStack() as stack:
        task.setup(vp)
        double = stack.enter_context(ModelDouble(ExpertPolicy(task, vp,
                                                              NoiseProfile.named("none"))))
        settings = sim_settings(double.base_url, runs, 80)
        run_dir = new_run_dir(runs, "bench")
        orchestrator = open_agent(stack, driver, settings, task.goal, run_dir=run_dir,
                                  confirm=task_human(task)[0])
        calls0, t0 = driver.io.calls, time.perf_counter()
        result = run_cached(orchestrator, task.goal, enabled=cache)
        wall = time.perf_counter() - t0
        row = {"model_calls": len(double.requests), "device_calls": driver.io.calls - calls0,
               "wall_s": round(wall, 2), "correct": task.check(vp),
               "status": result.status}
    return row, run_dir


def flow_replay(task: Task, trace: Path, runs: Path) -> dict[str, Any]:
    flow = flow_from_trace(trace)
    with phone() as (vp, driver):
        task.setup(vp)
        calls0, t0 = driver.io.calls, time.perf_counter()
        result = replay(driver, flow, Settings(runs_dir=runs), new_run_dir(runs, "flow"))
        wall = time.perf_counter() - t0
        return {"model_calls": 0, "device_calls": driver.io.calls - calls0,
                "wall_s": round(wall, 2), "correct": task.check(vp), "status": result.status}


def shipped_likes(count: int, runs: Path) -> dict[str, Any]:
    """The shipped like flow with ``--var count=<count>``."""
    from importlib import resources

    from omg_agent.flows.parse import load_flow

    flow = load_flow(Path(str(resources.files("omg_agent.assets") / "flows"
                              / "like_first_posts.yaml")))
    task = LikePosts(count=count)
    with phone() as (vp, driver):
        calls0, t0 = driver.io.calls, time.perf_counter()
        result = replay(driver, flow, Settings(runs_dir=runs), new_run_dir(runs, "shipped"),
                        variables={"count": str(count)})
        wall = time.perf_counter() - t0
        liked = vp.apps["com.omg.feed"].liked
        return {"task": task.goal, "mode": "shipped flow", "model_calls": 0,
                "device_calls": driver.io.calls - calls0, "wall_s": round(wall, 2),
                "correct": liked == set(range(1, count + 1)), "status": result.status}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--likes", type=int, default=6, help="posts the agent likes")
    parser.add_argument("--shipped", type=int, default=30,
                        help="posts the shipped like flow likes (0: skip)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for task in (LikePosts(count=args.likes), ShopPriceToNotes()):
            runs = Path(tmp) / task.goal[:20].replace(" ", "-")
            first, trace = agent(task, runs, cache=True)  # cold cache: the agent runs
            rows.append({"task": task.goal, "mode": "agent", **first})
            rows.append({"task": task.goal, "mode": "flow", **flow_replay(task, trace, runs)})
            second, _ = agent(task, runs, cache=True)
            rows.append({"task": task.goal, "mode": "cache", **second})
        if args.shipped:
            rows.append(shipped_likes(args.shipped, Path(tmp) / "shipped"))
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    print(f"{'task':<62} {'mode':<12} {'model':>5} {'device':>6} {'wall s':>7} correct")
    for r in rows:
        print(f"{r['task']:<62} {r['mode']:<12} {r['model_calls']:>5} {r['device_calls']:>6} "
              f"{r['wall_s']:>7.2f} {r['correct']}")


if __name__ == "__main__":
    main()
