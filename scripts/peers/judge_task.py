#!/usr/bin/env python3
"""Run a peer agent on one suite task and judge it from the phone, as ``bench suite`` does.

``bench suite --seed S`` draws each task from ``suite_tasks(S)``, puts it on a fresh vphone
seeded ``task_seed(S, id, 0)``, runs ``task.setup(phone)`` (notes, posts' authors, a locale,
a promo popup...) and judges ``task.check(phone)`` — the apps' true state — and, for an
impossible task, also that the agent reported the goal infeasible. A vphone from
``omg-agent vphone start --seed S`` has neither that seed nor the setup, so this script holds
the phone itself: it builds the same task and phone, serves it on ``--port`` (adb-connected),
runs the peer's command (its output to ``--log``), then applies the task's check.

The peer's own verdict only matters for impossible tasks: ``--failed-if`` is a regex on its
output that means "reported the goal not possible", or a peer's name for its known one:
``mobilerun`` ("Goal failed:", the default) or ``midscene`` ("MIDSCENE error: Task failed:", what
``midscene_run.mjs`` prints when the model ends with ``<complete success="false">``).

Usage (with the project's venv, from the worktree root, PYTHONPATH=$PWD):
  python scripts/peers/judge_task.py show feed.like_post --seed 2
  python scripts/peers/judge_task.py run feed.like_post --seed 2 --port 5801 \\
      --log out.txt -- mobilerun run "TASK" -c cfg.yaml -d 127.0.0.1:5801 --no-stream
Prints one JSON line (task, ok, why, peer exit, wall time); exit 0 when ok, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from omg_agent.bench.suite import select, suite_tasks
from omg_agent.bench.suite_run import task_seed
from omg_agent.sim.expert.tasks import Task
from omg_agent.vphone import adbhost
from omg_agent.vphone.phone import VirtualPhone

MOBILERUN_FAILED = r"Goal failed:"
FAILED_BY_PEER = {"mobilerun": MOBILERUN_FAILED, "midscene": r"MIDSCENE error: Task failed:"}
PEER_TIMEOUT_S = 3 * 3600


def load_task(task_id: str, seed: int) -> Task:
    """The suite task ``task_id`` as ``bench suite --seed seed`` draws it."""
    try:
        (task,) = select(suite_tasks(seed=seed), task_id)
    except ValueError as exc:
        raise SystemExit(f"judge_task: {exc}") from None
    if task.id != task_id:
        raise SystemExit(f"judge_task: {task_id!r} is not one task id")
    return task


def verdict(task: Task, phone: VirtualPhone, peer_output: str, failed_if: str
            ) -> tuple[bool, str]:
    """``bench suite``'s rule: the check on the phone, and for an impossible task the peer
    reporting it infeasible (nothing done is not enough)."""
    held = task.check(phone)
    if not task.impossible:
        return held, f"phone check {'holds' if held else 'fails'} ({task.criteria})"
    # An impossible task's check is "nothing was harmed"; its criteria describe the goal.
    said = re.search(FAILED_BY_PEER.get(failed_if, failed_if), peer_output) is not None
    return held and said, (f"impossible task: the phone is {'unharmed' if held else 'CHANGED'}"
                           f" and the peer {'reported' if said else 'did not report'} "
                           "the goal infeasible")


def run(args: argparse.Namespace) -> int:
    task = load_task(args.task, args.seed)
    seed = task_seed(args.seed, task.id, 0)
    phone = VirtualPhone(seed=seed)
    record: dict[str, Any] = {"task": task.id, "goal": task.goal, "phone_seed": seed}
    try:
        task.setup(phone)
        phone.serve(port=args.port)
        serial = adbhost.connect("127.0.0.1", args.port)
        started = time.monotonic()
        try:
            with open(args.log, "w", encoding="utf-8") as log:
                proc = subprocess.run(args.command, stdin=subprocess.DEVNULL, stdout=log,
                                      stderr=subprocess.STDOUT, timeout=PEER_TIMEOUT_S)
        finally:
            record["wall_s"] = round(time.monotonic() - started, 1)
            adbhost.disconnect(serial)
        output = Path(args.log).read_text(encoding="utf-8", errors="replace")
        ok, why = verdict(task, phone, output, args.failed_if)
        record.update(ok=ok, why=why, peer_exit=proc.returncode,
                      state={k: v for k, v in phone.state().items() if k != "apps"})
    finally:
        phone.close()
    print(json.dumps(record, ensure_ascii=False, default=str))
    return 0 if record.get("ok") else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    show = sub.add_parser("show", help="print the task's goal, tags and phone seed")
    show.add_argument("task")
    show.add_argument("--seed", type=int, default=0, help="suite seed (bench suite --seed)")
    go = sub.add_parser("run", help="serve the task's phone, run the peer, judge")
    go.add_argument("task")
    go.add_argument("--seed", type=int, default=0, help="suite seed (bench suite --seed)")
    go.add_argument("--port", type=int, required=True, help="the vphone's adbd port")
    go.add_argument("--log", required=True, help="file for the peer's output")
    go.add_argument("--failed-if", default=MOBILERUN_FAILED,
                    help="regex on the peer's output meaning 'reported infeasible', or "
                         f"a peer's name: {', '.join(FAILED_BY_PEER)}")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    args.command = argv[cut + 1:]
    if args.cmd == "show":
        task = load_task(args.task, args.seed)
        print(json.dumps({"task": task.id, "goal": task.goal, "tags": list(task.tags),
                          "impossible": task.impossible,
                          "phone_seed": task_seed(args.seed, task.id, 0)},
                         ensure_ascii=False))
        return 0
    if not args.command:
        parser.error("run needs the peer's command after --")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
