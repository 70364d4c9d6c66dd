#!/usr/bin/env python3
"""Benchmark the vphone through adbutils and the real adb server (not a test).

Prints median and p95 (ms) per operation for the vphone with its latency profile off (what
our own measurements stand on) and, side by side, with the real-device latency profile on
(what a USB phone would cost). Usage: .venv/bin/python scripts/bench_vphone.py [--runs 50]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

import adbutils

from omg_agent.vphone import adbhost
from omg_agent.vphone.phone import VirtualPhone


def measure(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    fn()  # warm-up (first frame render, adb stream setup)
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    p95 = samples[min(len(samples) - 1, round(0.95 * (len(samples) - 1)))]
    return statistics.median(samples), p95


def read_stream(d: adbutils.AdbDevice, cmd: str) -> bytes:
    """Run ``cmd`` through adbutils' stream API and read its output in large chunks.

    Two adbutils costs are avoided here because they are the client's, not the device's:
    ``shell()`` reads 4 KiB at a time into a growing ``bytes`` (quadratic for a 10 MB frame)
    and ``AdbConnection.close()`` sleeps 10 ms after every request.
    """
    conn = d.shell(cmd, stream=True)
    sock = conn.conn
    chunks = []
    try:
        while chunk := sock.recv(1 << 20):
            chunks.append(chunk)
    finally:
        sock.close()
    return b"".join(chunks)


def operations(d: adbutils.AdbDevice) -> dict[str, Callable[[], object]]:
    taps = "; ".join("input tap 5 5" for _ in range(10))
    return {
        "screencap -p (PNG)": lambda: read_stream(d, "screencap -p"),
        "screencap (raw RGBA)": lambda: read_stream(d, "screencap"),
        "screencap (raw) via adbutils .shell()": lambda: d.shell(["screencap"], encoding=None),
        "uiautomator dump /dev/tty": lambda: read_stream(d, "uiautomator dump /dev/tty"),
        "dump via adbutils dump_hierarchy()": d.dump_hierarchy,
        "one input tap": lambda: read_stream(d, "input tap 5 5"),
        "one input tap via adbutils .shell()": lambda: d.shell(["input", "tap", "5", "5"]),
        "10 inputs, one shell call": lambda: read_stream(d, taps),
        "10 inputs, 10 shell calls": lambda: [read_stream(d, "input tap 5 5")
                                              for _ in range(10)],
    }


def run(latency: bool, runs: int) -> dict[str, tuple[float, float]]:
    phone = VirtualPhone(latency=latency)
    server = phone.serve()
    serial = adbhost.connect("127.0.0.1", server.port)
    try:
        d = adbutils.AdbClient().device(serial)
        return {name: measure(fn, runs) for name, fn in operations(d).items()}
    finally:
        adbhost.disconnect(serial)
        phone.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=50, help="runs per operation, profile off")
    parser.add_argument("--runs-latency", type=int, default=10,
                        help="runs per operation with the latency profile on")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    ns = parser.parse_args()
    off = run(False, ns.runs)
    on = run(True, ns.runs_latency)
    header = ("| operation (1080x2400) | profile off: median | p95 | "
              "profile on: median | p95 |")
    print(header)
    print("|---|---:|---:|---:|---:|")
    for name in off:
        print(f"| {name} | {off[name][0]:.1f} ms | {off[name][1]:.1f} ms | "
              f"{on[name][0]:.0f} ms | {on[name][1]:.0f} ms |")
    print(f"\nruns: {ns.runs} (profile off), {ns.runs_latency} (profile on)")
    if ns.json:
        with open(ns.json, "w") as f:
            json.dump({"off": off, "on": on, "runs": ns.runs}, f, indent=2)


if __name__ == "__main__":
    main()
