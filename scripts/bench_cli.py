#!/usr/bin/env python3
"""Wall time of one-shot ``omg-agent`` commands against the plain adb equivalent (not a test).

Starts a vphone in this process, then runs each command as a user does — a new process
each time — ``--runs`` times (median reported, after one warm-up), with the plain ``adb``
command that does the same thing beside it. A command's ``reset`` (e.g. back to the home
screen) runs before every sample and is not timed. Prints a markdown table.

Usage: .venv/bin/python scripts/bench_cli.py [--runs 10] [--driver auto] [--baseline SRC]
(``--baseline`` times another source tree's omg-agent too, e.g. an older checkout.)
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from omg_agent.vphone import adbhost
from omg_agent.vphone.phone import VirtualPhone


@dataclass(frozen=True)
class Case:
    name: str
    omg: list[str]  # arguments after ``omg-agent``
    adb: list[list[str]]  # the plain adb commands (run in sequence)
    reset: list[str] | None = None  # adb arguments run, untimed, before each sample


def cases(serial: str, driver: str) -> list[Case]:
    s, d = ["-s", serial], ["--driver", driver]
    home = ["-s", serial, "shell", "input", "keyevent", "3"]
    return [
        Case("--help", ["--help"], [["--help"]]),
        Case("devices", ["devices"], [["devices", "-l"]]),
        Case("observe", ["observe", *s, *d],
             [[*s, "exec-out", "screencap", "-p"],
              [*s, "shell", "uiautomator", "dump", "/data/local/tmp/w.xml"],
              [*s, "shell", "cat", "/data/local/tmp/w.xml"]]),
        Case("tap", ["tap", "--point", "375,160", *s, *d],
             [[*s, "shell", "input", "tap", "405", "385"]], reset=home),
        Case("key", ["key", "back", *s, *d], [[*s, "shell", "input", "keyevent", "4"]]),
        Case("launch", ["launch", "Notes", *s, *d],
             [[*s, "shell", "monkey", "-p", "com.omg.notes", "-c",
               "android.intent.category.LAUNCHER", "1"]], reset=home),
    ]


Variant = tuple[list[list[str]], dict[str, str]]  # commands run in sequence, environment


def timed(variants: list[Variant], runs: int, reset: list[str] | None) -> list[float]:
    """Median wall seconds of each variant, sampled in turn (so a machine busy at one moment
    slows them alike), after one warm-up round that is dropped."""
    samples: list[list[float]] = [[] for _ in variants]
    for i in range(runs + 1):
        for k, (commands, env) in enumerate(variants):
            if reset is not None:
                subprocess.run(["adb", *reset], capture_output=True, check=True)
            t0 = time.perf_counter()
            for cmd in commands:
                proc = subprocess.run(cmd, capture_output=True, env=env, cwd=env["BENCH_CWD"])
                if proc.returncode != 0:
                    raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): "
                                     f"{proc.stderr.decode(errors='replace')[-400:]}")
            if i:
                samples[k].append(time.perf_counter() - t0)
    return [statistics.median(x) for x in samples]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--driver", default="auto", choices=("adb", "u2", "auto"))
    parser.add_argument("--baseline", help="Also time the omg_agent package in this source "
                        "folder (e.g. an older checkout), interleaved with this one.")
    args = parser.parse_args()
    adb = shutil.which("adb")
    if adb is None:
        raise SystemExit("adb is not on PATH")
    omg = [sys.executable, "-m", "omg_agent.cli"]
    # Each tree by PYTHONPATH, run from an empty folder: `python -m` puts the working
    # directory first on sys.path, which would pick the wrong copy.
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "COLUMNS": "120", "PYTHONPATH": root,
           "BENCH_CWD": tempfile.mkdtemp(prefix="bench_cli_")}
    # An installed package has its bytecode compiled; the warm-up round writes it here.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    base_env = {**env, "PYTHONPATH": args.baseline} if args.baseline else None
    phone = VirtualPhone("default", seed=0)
    server = phone.serve(port=0)
    serial = adbhost.connect("127.0.0.1", server.port)
    try:
        rows = []
        for case in cases(serial, args.driver):
            variants: list[Variant] = [([omg + case.omg], env),
                                       ([[adb, *c] for c in case.adb], env)]
            if base_env is not None:
                variants.append(([omg + case.omg], base_env))
            rows.append((case, timed(variants, args.runs, case.reset)))
        floor = timed([([[sys.executable, "-c", "pass"]], env)], args.runs, None)[0]
    finally:
        adbhost.disconnect(serial)
        phone.close()
    extra = " baseline |" if base_env else ""
    print(f"median of {args.runs} runs, seconds; vphone {serial}, --driver {args.driver}\n")
    print(f"| command | omg-agent |{extra} plain adb | overhead | adb equivalent |")
    print("|---|---:|" + "---:|" * bool(base_env) + "---:|---:|---|")
    print(f"| (python start, for scale) | {floor:.2f} |" + " |" * bool(base_env)
          + " | | `python -c pass` |")
    for case, times in rows:
        ours, plain = times[0], times[1]
        base = f" {times[2]:.2f} |" if base_env else ""
        equivalent = " && ".join("adb " + " ".join(c) for c in case.adb)
        print(f"| `{' '.join(['omg-agent', *case.omg[:2]])}` | {ours:.2f} |{base} {plain:.3f} "
              f"| {ours - plain:+.2f} | `{equivalent.replace(serial, 'SERIAL')}` |")
    print(f"\nCommand: {sys.executable} scripts/bench_cli.py --runs {args.runs} "
          f"--driver {args.driver}" + (f" --baseline {args.baseline}" if args.baseline else ""))


if __name__ == "__main__":
    main()
