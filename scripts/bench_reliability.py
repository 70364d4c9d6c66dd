#!/usr/bin/env python3
"""The reliability benchmark (issue 12): seeded runs of "Like the first 10 posts in Feed" on
vphones with random device faults, printed as the README's table (not a test).

Faults per run: 1–2 drawn from drop, offline (3–8 s by default, the issue's range), adb
server kill, app crash, ANR, screen off (locked; half with a password the simulated user
gives). Success is read from the phone. Usage:

    .venv/bin/python scripts/bench_reliability.py [--runs 100] [--seed 0] [--workers 4]
        [--offline 3 8] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from dataclasses import asdict

from omg_agent.bench.reliability import OFFLINE_S, SoakConfig, SoakRun, soak, table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=4,
                        help="runs at a time, each worker on its own adb server")
    parser.add_argument("--offline", type=float, nargs=2, default=OFFLINE_S,
                        metavar=("MIN_S", "MAX_S"), help="offline spell length range")
    parser.add_argument("--json", help="also write every run as JSON to this file")
    parser.add_argument("--quiet", action="store_true", help="no line per run")
    args = parser.parse_args()
    if args.runs < 1 or args.workers < 1 or not 0 <= args.offline[0] <= args.offline[1]:
        parser.error("--runs and --workers take 1 or more; --offline MIN MAX with "
                     "0 <= MIN <= MAX")
    logging.basicConfig(level=logging.ERROR)
    for handler in logging.getLogger().handlers:
        handler.setLevel(logging.ERROR)  # the soak taps DEBUG lines for its leak check

    def show(run: SoakRun) -> None:
        if args.quiet:
            return
        outcome = "done" if run.success else f"stopped: {run.reason}"
        print(f"run {run.index:3d}: faults {','.join(run.fired) or '-':24} "
              f"{run.steps:3d} steps {run.wall_s:5.1f} s  {outcome}"
              + (f"  HARNESS: {run.harness_error}" if run.harness_error else ""),
              file=sys.stderr, flush=True)

    cfg = SoakConfig(runs=args.runs, seed=args.seed, offline_s=tuple(args.offline))
    started = time.perf_counter()
    runs = soak(cfg, workers=args.workers, on_run=show)
    print(table(runs, cfg))
    print(f"\n{args.runs} runs in {time.perf_counter() - started:.0f} s "
          f"({args.workers} at a time). Command: python scripts/bench_reliability.py "
          f"--runs {args.runs} --seed {args.seed}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump([asdict(r) for r in runs], out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
