#!/usr/bin/env python3
"""Benchmark durability (issue 12; not a test): kill -9 at seeded points, then count.

Three tables:

1. the cost of durable writes per record (trace line with/without fsync, ``state.json``
   atomic replace, a memory bank commit) — what a turn boundary's checkpoint costs;
2. store writers (memory bank, trace, ``state.json``) SIGKILLed at ``--store-kills`` seeded
   points: every store must open and hold the last committed value;
3. ``omg-agent run`` on a vphone (expert double) SIGKILLed at ``--resume-kills`` seeded
   points, then ``omg-agent run --resume``: how many finish the task (read from the phone).

Usage: .venv/bin/python scripts/bench_durability.py [--store-kills 200] [--resume-kills 200]
       [--seed 0] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from omg_agent.bench.durability import (
    kill_and_resume,
    kill_store_writers,
    resume_table,
    store_table,
)
from omg_agent.brain.budget import StepBudget
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.resume import save_state
from omg_agent.brain.run_state import RunState
from omg_agent.durable import append_line, fsync_file

RECORD = json.dumps({"record": "step", "step": 1, "observation": {"elements": ["x" * 40] * 30}})


def per_record_ms(fn, runs: int = 200) -> float:
    fn(0)
    t0 = time.perf_counter()
    for i in range(runs):
        fn(i)
    return (time.perf_counter() - t0) / runs * 1000


def turn(folder: Path, state: RunState, memory: MemoryBank, i: int) -> None:
    for _ in range(3):
        append_line(folder / "c.jsonl", RECORD, sync=False)
    fsync_file(folder / "c.jsonl")
    save_state(folder, state, memory, turns=i, usage=(i, 0, 0), device="bench")


def write_costs(folder: Path) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    memory = MemoryBank(folder / "memory.sqlite", "bench")
    state = RunState("bench", StepBudget(100), phase="THINK")
    rows = [
        ("trace line, no fsync", per_record_ms(
            lambda i: append_line(folder / "a.jsonl", RECORD, sync=False))),
        ("trace line, fsync each (a run without checkpoints)", per_record_ms(
            lambda i: append_line(folder / "b.jsonl", RECORD))),
        ("state.json atomic (temp+fsync+rename+fsync dir)", per_record_ms(
            lambda i: save_state(folder, state, memory, turns=i, usage=(i, 0, 0),
                                 device="bench"))),
        ("memory bank commit (WAL, synchronous=FULL)", per_record_ms(
            lambda i: memory.save("k", str(i)))),
        ("a turn's checkpoint: 3 trace lines, one fsync, state.json", per_record_ms(
            lambda i: turn(folder, state, memory, i))),
    ]
    memory.close()
    lines = ["| write | ms per record |", "|---|---|"]
    lines += [f"| {name} | {ms:.3f} |" for name, ms in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store-kills", type=int, default=200)
    parser.add_argument("--resume-kills", type=int, default=200)
    parser.add_argument("--posts", type=int, default=5, help="Posts to like per run.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-durability-"))
    print(write_costs(work / "costs"), "\n", flush=True)
    stores = kill_store_writers(work / "stores", args.store_kills, seed=args.seed)
    print(store_table(stores), "\n", flush=True)
    trials = []
    if args.resume_kills:
        from omg_agent.sim.expert.runner import vphone_on_adb

        with vphone_on_adb() as (phone, serial):
            for k in range(args.resume_kills):
                trial = kill_and_resume(phone, serial, args.seed + k, work, posts=args.posts)
                trials.append(trial)
                print(f"  {k + 1}/{args.resume_kills} killed at {trial.kill_at}: "
                      f"{trial.status}" + (f" ({trial.error})" if trial.error else ""),
                      flush=True)
        print(resume_table(trials))
    if args.json is not None:
        args.json.write_text(json.dumps({"stores": [asdict(k) for k in stores],
                                         "resume": [asdict(t) for t in trials]}, indent=1))


if __name__ == "__main__":
    main()
