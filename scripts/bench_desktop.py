#!/usr/bin/env python3
"""Desktop driver benchmark on Xvfb (not a test): observe latency and click-to-screen-change.

    python scripts/bench_desktop.py [--runs 20] [--size 1920x1080]

Starts its own Xvfb (``-displayfd``) at ``--size`` and the Tk test app
(:mod:`omg_agent.drivers.desktop.testapp`) at the top-left corner, then measures, after one
warm-up each:

* ``observe after a click`` — what the agent pays per look in a run: screenshot (mss) +
  frontmost app + screen hash + OCR (the element list on a screen without an
  accessibility tree) of what the click changed (the status line; :mod:`omg_agent.
  drivers.desktop.screenread`);
* ``observe of a new screen`` — the same with nothing read before: OCR of the whole drawn
  area (the window);
* ``screenshot`` alone, and ``OCR of the full frame`` — the OCR cost when the whole screen
  is drawn (a desktop with a busy wallpaper);
* ``click → screen change`` — XTest click on the app's "Add item" button until the
  app's region of the screen differs from before the click (polled with mss on that
  region, ~1 ms a poll).

Prints a table of median / p95 / n. Run on a quiet machine; CPU-shared numbers wander.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import mss  # noqa: E402

from omg_agent.drivers.desktop import open_desktop  # noqa: E402
from omg_agent.perception.ocr import OcrEngine  # noqa: E402


def start_xvfb(size: str) -> tuple[subprocess.Popen[bytes], str]:
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0",
                             f"{size}x24", "-nolisten", "tcp", "-noreset"],
                            pass_fds=(write_fd,), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        number = pipe.readline().strip()
    if not number:
        proc.kill()
        raise SystemExit("Xvfb did not start (apt-get install xvfb)")
    return proc, f":{number}"


def start_app(display: str, state: Path) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-m", "omg_agent.drivers.desktop.testapp",
                             "--state", str(state)], env={**os.environ, "DISPLAY": display,
                                                         "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 30
    while not state.exists():
        if time.monotonic() > deadline or proc.poll() is not None:
            raise SystemExit("the Tk test app did not start")
        time.sleep(0.02)
    return proc


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    fn()  # warm-up
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def row(name: str, ms: list[float]) -> str:
    ordered = sorted(ms)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"| {name:<34} | {statistics.median(ms):9.1f} | {p95:9.1f} | {len(ms):3d} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--size", default="1920x1080")
    args = parser.parse_args()
    xvfb, display = start_xvfb(args.size)
    tmp = Path(tempfile.mkdtemp(prefix="bench-desktop-"))
    app = start_app(display, tmp / "state.json")
    engine = OcrEngine()
    driver = open_desktop(f"desktop={display}", ocr=engine)
    grab = mss.MSS(display=display)
    try:
        obs = driver.observe()
        add = next(e for e in obs.elements if e.text.replace(" ", "") == "Additem")
        backend = driver.backend
        region = {"left": 0, "top": 0, "width": 640, "height": 480}

        clicks: list[float] = []

        def click_until_change() -> None:
            before = grab.grab(region).rgb
            t0 = time.perf_counter()
            backend.click(*add.center)
            while grab.grab(region).rgb == before:
                if time.perf_counter() - t0 > 5:
                    raise SystemExit("the screen did not change after a click")
            clicks.append((time.perf_counter() - t0) * 1000)
            time.sleep(0.05)  # let the app go idle before the next click

        observe_ms = []  # a click between looks: the status line (and list) change
        for _ in range(args.runs):
            backend.click(*add.center)
            time.sleep(0.05)
            observe_ms.append(driver.observe().timings["total"] * 1000)
        fresh_ms = []  # a screen never seen: the whole drawn area is read
        for _ in range(max(3, args.runs // 4)):
            driver._reader = None
            backend.click(*add.center)
            time.sleep(0.05)
            fresh_ms.append(driver.observe().timings["total"] * 1000)
        shot = timed(backend.screenshot, args.runs)
        full = []
        for _ in range(max(3, args.runs // 4)):
            image = backend.screenshot()
            t0 = time.perf_counter()
            engine.read(image)  # the whole frame, no crop, fresh pixels key
            full.append((time.perf_counter() - t0) * 1000)
            backend.click(*add.center)
            time.sleep(0.05)
        for _ in range(args.runs + 1):
            click_until_change()
        clicks = clicks[1:]
        state = json.loads((tmp / "state.json").read_text())
        print(f"desktop driver on Xvfb {args.size}, Tk test app, {os.cpu_count()} CPUs "
              f"(app saw {state['clicks']['Add item']} clicks)")
        print("| measure                            | median ms |    p95 ms |   n |")
        print("|------------------------------------|-----------|-----------|-----|")
        print(row("observe after a click", observe_ms))
        print(row("observe of a new screen", fresh_ms))
        print(row("screenshot only (mss)", shot))
        print(row("OCR of the full frame", full))
        print(row("click -> screen change", clicks))
    finally:
        grab.close()
        driver.close()
        app.terminate()
        app.wait(10)
        xvfb.terminate()
        xvfb.wait(10)


if __name__ == "__main__":
    main()
