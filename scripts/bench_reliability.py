#!/usr/bin/env python3
"""The reliability benchmark (issue 12): seeded runs of "Like the first 10 posts in Feed" on
vphones with random device faults, printed as the README's table (not a test).

Faults per run: 1–2 drawn from drop, offline (3–8 s by default, the issue's range), adb
server kill, app crash, ANR, screen off (locked; half with a password the simulated user
gives). Success is read from the phone. Usage:

    .venv/bin/python scripts/bench_reliability.py [--runs 100] [--seed 0] [--workers 4]
        [--offline 3 8] [--json out.json]

Issue 25's CLI faults (:mod:`omg_agent.bench.contention`), ``--contention N`` trials of each:
a second driver on a phone a run holds (another run, a flow, a run with --wait-device) and
a run started while the adb server restarts (back after 0–3 s, seeded). ``--runs 0`` skips
the soak:

    .venv/bin/python scripts/bench_reliability.py --runs 0 --contention 5

Issue 38's fleet faults (:mod:`omg_agent.fleet.faults`), ``--fleet N`` trials of each: a
SIGKILLed local-pool worker, both vphones of two slots stopped mid-task, one phone given
under two names, a run started beside a fleet and a fleet started beside a run::

    .venv/bin/python scripts/bench_reliability.py --runs 0 --fleet 3

``--fleet-ray N`` runs the killed worker and the stopped phones on a two-node Ray cluster
that it starts on this host (``ray start``, one vphone slot a node; needs Ray installed;
:mod:`omg_agent.fleet.ray_faults`)::

    .venv/bin/python scripts/bench_reliability.py --runs 0 --fleet-ray 2
Issue 38's stop and endpoint faults (:mod:`omg_agent.bench.stops`), ``--stops N`` trials of
each: SIGTERM, SIGHUP and SIGINT sent after the run acted (then resumed), and HTTP 200
replies with a cut, empty or non-JSON body (retried), or every reply cut (reported failed):

    .venv/bin/python scripts/bench_reliability.py --runs 0 --stops 3

``--disk-full [KIB ...]`` runs the disk-full fault instead (issue 25; needs root for
``mount -t tmpfs``): the same task through the real CLI with ``--runs-dir`` on a tmpfs of
each size, resumed after the tmpfs grows when it stopped; see :func:`disk_full_fault`.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import time
from dataclasses import asdict
from typing import Any

from omg_agent.bench.reliability import OFFLINE_S, SoakConfig, SoakRun, soak, table

# from a disk full before the first screenshot to one where only the report does not fit
DISK_SIZES_KB = (64, 100, 200, 300, 500, 700, 1000, 1500, 2000, 2600, 3000, 3500, 5000)


def disk_full_fault(sizes_kb: list[int], json_out: str | None = None) -> int:
    """The disk-full fault: "Like the first 10 posts in Feed" by ``omg-agent run`` (the
    expert double, one action a reply) with its runs folder on a tmpfs of each size; a run
    that stopped ``interrupted`` is resumed once the tmpfs grows. Prints one row per size
    and the four figures (runs completed, phantom successes, false failures, lost side
    effects), all read from the phone."""
    import tempfile
    from pathlib import Path

    from omg_agent.bench.diskfull import can_mount, disk_full_trial
    from omg_agent.bench.diskfull import table as disk_table
    from omg_agent.vphone import adbhost
    from omg_agent.vphone.phone import VirtualPhone

    if not can_mount():
        print("the disk-full fault needs root (mount -t tmpfs)", file=sys.stderr)
        return 1
    phone = VirtualPhone()
    serial = adbhost.connect("127.0.0.1", phone.serve().port)
    trials = []
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as work:
            for size in sizes_kb:
                trial = disk_full_trial(phone, serial, size, Path(work))
                print(f"{size:5d} KiB: {trial.status_first or 'no result'} (exit "
                      f"{trial.exit_first}) → {trial.status_last} (exit {trial.exit_last}); "
                      f"likes {trial.liked_first}, counted {trial.counted_first}"
                      + (f"  {trial.error}" if trial.error else ""), file=sys.stderr,
                      flush=True)
                trials.append(trial)
    finally:
        adbhost.disconnect(serial)
        phone.close()
    print(disk_table(trials))
    print(f"\n{len(trials)} runs in {time.perf_counter() - started:.0f} s. Command: python "
          f"scripts/bench_reliability.py --disk-full {' '.join(map(str, sizes_kb))}")
    if json_out:
        with open(json_out, "w", encoding="utf-8") as out:
            json.dump([asdict(t) for t in trials], out, indent=1)
    return 0


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
    add_contention_args(parser)
    parser.add_argument("--fleet", type=int, default=0, metavar="N",
                        help="N trials of each fleet fault (0: none)")
    parser.add_argument("--fleet-ray", type=int, default=0, metavar="N",
                        help="N trials of the killed worker and the stopped phones on a "
                             "two-node Ray cluster started on this host (needs Ray)")
    parser.add_argument("--stops", type=int, default=0, metavar="N",
                        help="N trials of each signal and endpoint fault (issue 38; 0: none)")
    parser.add_argument("--disk-full", type=int, nargs="*", metavar="KIB",
                        help="run the disk-full fault instead, on tmpfs runs folders of these "
                             f"sizes (default {' '.join(map(str, DISK_SIZES_KB))}; root only)")
    args = parser.parse_args()
    if args.disk_full is not None:
        return disk_full_fault(args.disk_full or list(DISK_SIZES_KB), args.json)
    if args.runs < 0 or args.workers < 1 or not 0 <= args.offline[0] <= args.offline[1]:
        parser.error("--runs takes 0 or more, --workers 1 or more; --offline MIN MAX with "
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

    run_contention(args)
    run_fleet_faults(args)
    run_fleet_ray(args)
    run_stops(args)
    if args.runs == 0:
        return 0
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


# -- issue 25: concurrent drivers and a restarting adb server at startup ------------------
RESTART_S = (0.0, 3.0)  # the adb server comes back this long after it was killed


def add_contention_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--contention", type=int, default=0, metavar="N",
                        help="N trials of each concurrent-driver fault and N startup "
                             "restarts (0: none)")


def run_contention(args: argparse.Namespace) -> None:
    """Print the concurrent-driver and startup-restart table (``--contention N``)."""
    from omg_agent.bench.contention import (
        CONCURRENT_KINDS,
        ContentionTrial,
        concurrent_trial,
        contention_table,
        restart_trial,
    )

    if args.contention < 1:
        return
    rng = random.Random(args.seed)
    jobs = [(kind, n) for n in range(args.contention) for kind in CONCURRENT_KINDS]
    jobs += [(f"restart {rng.uniform(*RESTART_S):.2f}", n) for n in range(args.contention)]
    trials: list[ContentionTrial] = []
    started = time.perf_counter()
    for kind, n in jobs:
        seed = args.seed * 1000 + n
        trial = (restart_trial(float(kind.split()[1]), seed) if kind.startswith("restart")
                 else concurrent_trial(kind, seed))
        trials.append(trial)
        if not args.quiet:
            print(f"{trial.fault:22} exits {trial.exits} like log {trial.like_log} "
                  f"{'completed' if trial.completed else 'NOT completed'} "
                  f"{trial.wall_s:5.1f} s" + (f"  ({trial.error})" if trial.error else ""),
                  file=sys.stderr, flush=True)
    print(contention_table(trials))
    print(f"\n{len(trials)} trials in {time.perf_counter() - started:.0f} s. Command: python "
          f"scripts/bench_reliability.py --runs 0 --contention {args.contention} "
          f"--seed {args.seed}\n")


# -- issue 38: fleet faults --------------------------------------------------------------
def run_fleet_faults(args: argparse.Namespace) -> None:
    """Print the fleet-fault table (``--fleet N``)."""
    from omg_agent.fleet.faults import FLEET_FAULTS, fleet_table, fleet_trial

    if args.fleet < 1:
        return
    trials = []
    started = time.perf_counter()
    for _ in range(args.fleet):
        for fault in FLEET_FAULTS:
            trials.append(fleet_trial(fault))
            if not args.quiet:
                _fleet_line(trials[-1])
    print(fleet_table(trials))
    print(f"\n{len(trials)} trials in {time.perf_counter() - started:.0f} s. Command: python "
          f"scripts/bench_reliability.py --runs 0 --fleet {args.fleet}\n")


def _fleet_line(trial: object) -> None:
    t: Any = trial
    print(f"{t.fault:30} done {t.done} failed {t.failed} never started {t.never_started} "
          f"died {t.died} lost {t.lost} misreported {t.misreported} side effects "
          f"{t.side_effects} {'completed' if t.completed else 'NOT'} {t.wall_s:5.1f} s"
          + (f"  ({t.error})" if t.error else ""), file=sys.stderr, flush=True)


def run_fleet_ray(args: argparse.Namespace) -> None:
    """Print the fleet-fault table on a two-node Ray cluster (``--fleet-ray N``)."""
    if args.fleet_ray < 1:
        return
    from omg_agent.fleet.faults import fleet_table
    from omg_agent.fleet.ray_faults import ray_fleet_trials

    started = time.perf_counter()
    trials = ray_fleet_trials(args.fleet_ray, None if args.quiet else _fleet_line)
    print(fleet_table(trials))
    print(f"\n{len(trials)} trials in {time.perf_counter() - started:.0f} s (cluster start "
          f"included). Command: python scripts/bench_reliability.py --runs 0 --fleet-ray "
          f"{args.fleet_ray}\n")


# -- issue 38: signals and broken 200 replies ----------------------------------------------
def run_stops(args: argparse.Namespace) -> None:
    """Print the signal and endpoint fault table (``--stops N``)."""
    import tempfile
    from pathlib import Path

    from omg_agent.bench.stops import KINDS, stop_trial, stops_table
    from omg_agent.vphone import adbhost
    from omg_agent.vphone.phone import VirtualPhone

    if args.stops < 1:
        return
    phone = VirtualPhone()
    serial = adbhost.connect("127.0.0.1", phone.serve().port)
    trials = []
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as work:
            for n in range(args.stops):
                for kind in KINDS:
                    seed = args.seed * 1000 + n * len(KINDS) + KINDS.index(kind)
                    trial = stop_trial(kind, seed, phone, serial, Path(work))
                    trials.append(trial)
                    if not args.quiet:
                        print(f"{kind:8} at {trial.at:16} {trial.status_first or 'no JSON'} "
                              f"(exit {trial.exit_first}) → {trial.status_last} (exit "
                              f"{trial.exit_last}); likes {trial.liked_first}/"
                              f"{trial.counted_first} {trial.wall_s:5.1f} s "
                              f"{'; '.join(trial.misreported)}", file=sys.stderr, flush=True)
    finally:
        adbhost.disconnect(serial)
        phone.close()
    print(stops_table(trials))
    print(f"\n{len(trials)} trials in {time.perf_counter() - started:.0f} s. Command: python "
          f"scripts/bench_reliability.py --runs 0 --stops {args.stops} --seed {args.seed}\n")


if __name__ == "__main__":
    sys.exit(main())
