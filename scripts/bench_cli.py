#!/usr/bin/env python3
"""Wall time of one-shot ``omg-agent`` commands against the plain adb equivalent (not a test).

Starts a vphone in this process, then runs each command as a user does — a new process
each time — ``--runs`` times (median reported, after one warm-up), with the plain ``adb``
command that does the same thing beside it. A command's ``reset`` (e.g. back to the home
screen) runs before every sample and is not timed. Prints a markdown table.

Usage: PYTHONPATH=. .venv/bin/python scripts/bench_cli.py [--runs 10] [--driver auto]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

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


def timed(commands: list[list[str]], runs: int, reset: list[str] | None) -> float:
    """Median wall seconds of running ``commands`` one after another (after a warm-up)."""
    samples = []
    for i in range(runs + 1):
        if reset is not None:
            subprocess.run(["adb", *reset], capture_output=True, check=True)
        t0 = time.perf_counter()
        for cmd in commands:
            proc = subprocess.run(cmd, capture_output=True)
            if proc.returncode != 0:
                raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): "
                                 f"{proc.stderr.decode(errors='replace')[-400:]}")
        if i:  # the first run warms caches (adb server, files) and is dropped
            samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--driver", default="auto", choices=("adb", "u2", "auto"))
    args = parser.parse_args()
    adb = shutil.which("adb")
    if adb is None:
        raise SystemExit("adb is not on PATH")
    omg = [sys.executable, "-m", "omg_agent.cli"]
    phone = VirtualPhone("default", seed=0)
    server = phone.serve(port=0)
    serial = adbhost.connect("127.0.0.1", server.port)
    os.environ.setdefault("COLUMNS", "120")
    try:
        rows = []
        for case in cases(serial, args.driver):
            ours = timed([omg + case.omg], args.runs, case.reset)
            plain = timed([[adb, *c] for c in case.adb], args.runs, case.reset)
            rows.append((case, ours, plain))
    finally:
        adbhost.disconnect(serial)
        phone.close()
    print(f"median of {args.runs} runs, seconds; vphone {serial}, --driver {args.driver}\n")
    print("| command | omg-agent | plain adb | overhead | adb equivalent |")
    print("|---|---:|---:|---:|---|")
    floor = timed([[sys.executable, "-c", "pass"]], args.runs, None)
    print(f"| (python start, for scale) | {floor:.2f} | | | `python -c pass` |")
    for case, ours, plain in rows:
        equivalent = " && ".join("adb " + " ".join(c) for c in case.adb)
        print(f"| `{' '.join(['omg-agent', *case.omg[:2]])}` | {ours:.2f} | {plain:.3f} | "
              f"{ours - plain:+.2f} | `{equivalent.replace(serial, 'SERIAL')}` |")
    print(f"\nCommand: PYTHONPATH=. {sys.executable} scripts/bench_cli.py --runs {args.runs} "
          f"--driver {args.driver}")


if __name__ == "__main__":
    main()
