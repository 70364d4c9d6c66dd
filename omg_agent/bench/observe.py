"""``omg-agent bench observe``: what one observation and one input batch cost, side by side.

All device rows run on vphones with the real-device latency profile on, so the numbers show
what a USB phone would cost (profile table in ``omg_agent/vphone/profile.py``):

* (a) the naive per-step pipeline peers use — ``adb shell screencap -p /sdcard/…`` + ``adb
  pull``, ``uiautomator dump`` to a file + ``adb pull``, ``adb shell dumpsys window``, then a
  fixed 1 s sleep, each through the adb binary — vs (b) ``AdbDriver.observe()`` and
  ``U2Driver.observe()``;
* tokens of the raw uiautomator XML vs our compact element list, on every app's first screen;
* OCR on a 1080x2400 frame: full frame vs a cached read vs a region read around one label;
* 10 inputs as 10 shell calls vs batched into one call;
* one whole *step* — observe, one tap that changes the screen, settle — for the peer
  pipeline (Open-AutoGLM's shape: ``screencap -p`` + pull, ``dumpsys window`` for the
  current app, ``input tap``, a fixed 1 s sleep; no tree) vs both drivers, which also read
  the tree, with where each driver's time goes (observe / act / settle / dump).
"""

from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import adbutils

from omg_agent.bench.progress import SILENT, Progress
from omg_agent.core.geometry import Bounds
from omg_agent.perception.elementlist import render
from omg_agent.perception.uitree import parse_elements
from omg_agent.vphone import adbhost
from omg_agent.vphone.phone import VirtualPhone


@dataclass
class Stat:
    median: float
    p95: float
    n: int

    @classmethod
    def of(cls, samples: list[float]) -> Stat:
        s = sorted(samples)
        return cls(statistics.median(s), s[min(len(s) - 1, round(0.95 * (len(s) - 1)))], len(s))


def timed(fn: Callable[[], object], runs: int, warmup: int = 1,
          progress: Progress = SILENT, detail: str = "") -> Stat:
    """``runs`` timed calls after ``warmup`` untimed ones; each call advances ``progress``."""
    for _ in range(warmup):
        fn()
        progress.advance(detail)
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
        progress.advance(detail)
    return Stat.of(samples)


class LatencyPhone:
    """A vphone with the real-device latency profile, connected to the adb server."""

    def __init__(self, latency: bool = True, seed: int = 0, profile: str = "default") -> None:
        self.phone = VirtualPhone(profile, latency=latency, seed=seed)
        self.server = self.phone.serve()
        self.serial = adbhost.connect("127.0.0.1", self.server.port)

    def __enter__(self) -> LatencyPhone:
        return self

    def __exit__(self, *exc: object) -> None:
        adbhost.disconnect(self.serial)
        self.phone.close()


def naive_step(serial: str, workdir: Path, sleep_s: float = 1.0) -> None:
    """One observation the way Open-AutoGLM-style loops take it."""
    adb = adbhost.adb_path()

    def run(*args: str) -> None:
        subprocess.run([adb, "-s", serial, *args], capture_output=True, check=True, timeout=60)

    run("shell", "screencap", "-p", "/sdcard/tmp.png")
    run("pull", "/sdcard/tmp.png", str(workdir / "tmp.png"))
    run("shell", "uiautomator", "dump", "/sdcard/window_dump.xml")
    run("pull", "/sdcard/window_dump.xml", str(workdir / "window_dump.xml"))
    run("shell", "dumpsys", "window")
    time.sleep(sleep_s)


def bench_pipelines(steps: int, progress: Progress = SILENT) -> dict[str, Stat]:
    from omg_agent.drivers.adb import AdbDriver
    from omg_agent.drivers.u2 import U2Driver

    out: dict[str, Stat] = {}
    progress.phase("observe pipelines", 3 * (steps + 1))
    with LatencyPhone() as lp, tempfile.TemporaryDirectory() as tmp:
        lp.phone.start_activity("com.android.settings")
        out["(a) naive: screencap -p + pull, dump + pull, dumpsys, sleep 1 s"] = timed(
            lambda: naive_step(lp.serial, Path(tmp)), steps, progress=progress,
            detail="naive")
        adb_driver = AdbDriver(lp.serial)
        try:
            out["(b) ours, adb driver: raw screencap ‖ streamed dump"] = timed(
                adb_driver.observe, steps, progress=progress, detail="adb driver")
        finally:
            adb_driver.close()
        u2_driver = U2Driver(lp.serial)
        try:
            out["(b) ours, u2 driver: server dump + JPEG screenshot"] = timed(
                u2_driver.observe, steps, progress=progress, detail="u2 driver")
        finally:
            u2_driver.close()
    return out


def bench_tokens() -> list[tuple[str, int, int]]:
    """(screen, raw XML tokens, element-list tokens); tokens ≈ characters / 4. The list is
    the one the model receives (``perception.elementlist``)."""
    phone = VirtualPhone()
    phone.apps["com.omg.shop"].promo_mode = "never"  # type: ignore[attr-defined]
    rows = []
    for package in [phone.launcher.package] + [p for p in phone.packages()
                                                 if p != phone.launcher.package]:
        phone.start_activity(package)
        xml = phone.dump_xml()
        listing = render(parse_elements(xml), (phone.profile.width, phone.profile.height))
        rows.append((package, len(xml) // 4, max(1, len(listing) // 4)))
    return rows


def bench_ocr(runs: int, progress: Progress = SILENT) -> dict[str, Stat]:
    from omg_agent.perception.ocr import OcrEngine

    progress.phase("OCR", 3 * (runs + 1))
    phone = VirtualPhone()
    phone.start_activity("com.android.settings")
    image = phone.screenshot()
    label = next(e for e in parse_elements(phone.dump_xml()) if e.text == "Bluetooth")
    b = label.bounds
    region = Bounds(max(0, b.left - 40), max(0, b.top - 40), b.right + 200, b.bottom + 40)
    engine = OcrEngine()
    out = {"full frame (1080x2400), uncached": timed(
        lambda: engine.read(image, key=f"nocache-{time.perf_counter_ns()}"), runs,
        progress=progress, detail="full frame")}
    engine.read(image, key="frame")
    out["full frame, cached by screen hash"] = timed(lambda: engine.read(image, key="frame"),
                                                     runs, progress=progress, detail="cached")
    out["region around one label, uncached"] = timed(
        lambda: engine.read(image, region, key=f"nocache-{time.perf_counter_ns()}"), runs,
        progress=progress, detail="region")
    return out


def bench_inputs(runs: int, progress: Progress = SILENT) -> dict[str, Stat]:
    """10 taps and 10 key presses, one shell call each vs batched the way the drivers pack a
    bundle (``commands.pack``), on Android 14 and Android 10 profiles. Batched taps still
    start one ``input`` process each; a run of key presses shares one."""
    from omg_agent.core.geometry import Point
    from omg_agent.drivers import commands as cmds
    from omg_agent.drivers.adbio import AdbIO

    out: dict[str, Stat] = {}
    kinds = {"taps": cmds.tap(Point(5, 5)), "key presses": cmds.keyevent(0)}
    progress.phase("inputs", 2 * len(kinds) * 2 * (runs + 1))
    for profile in ("default", "legacy"):
        with LatencyPhone(profile=profile) as lp:
            io = AdbIO(adbutils.AdbClient(), lp.serial)
            release = lp.phone.profile.release
            for kind, one in kinds.items():
                batch = cmds.pack([cmds.Step(i, (one,), kind) for i in range(10)])
                assert len(batch) == 1

                def one_each(io: AdbIO = io, one: str = one) -> None:
                    for _ in range(10):
                        io.run(one)

                out[f"Android {release}: 10 {kind}, one call each"] = timed(
                    one_each, runs, progress=progress, detail=f"Android {release} {kind}")
                out[f"Android {release}: 10 {kind}, batched"] = timed(
                    partial(io.run, batch[0].command), runs, progress=progress,
                    detail=f"Android {release} {kind}, batched")
    return out


def report(steps: int = 30, ocr_runs: int = 10, input_runs: int = 10,
           progress: Progress = SILENT) -> str:
    """Run every part and return the markdown tables (one run, side by side)."""
    lines: list[str] = []
    pipes = bench_pipelines(steps, progress)
    naive = next(iter(pipes.values())).median
    lines += ["Observation per step (latency profile on, 1080x2400):", "",
              "| pipeline | median | p95 | vs naive |", "|---|---:|---:|---:|"]
    for name, st in pipes.items():
        lines.append(f"| {name} | {st.median:.0f} ms | {st.p95:.0f} ms | "
                     f"{st.median / naive:.2f}× |")
    lines += ["", f"steps per pipeline: {steps}", "",
              "Tokens per screen (≈ characters / 4):", "",
              "| screen | raw XML | element list | ratio |", "|---|---:|---:|---:|"]
    for screen, xml_t, list_t in bench_tokens():
        lines.append(f"| {screen} | {xml_t} | {list_t} | 1/{xml_t / list_t:.1f} |")
    lines += ["", "OCR on a 1080x2400 frame (Settings):", "",
              "| read | median | p95 |", "|---|---:|---:|"]
    for name, st in bench_ocr(ocr_runs, progress).items():
        lines.append(f"| {name} | {st.median:.2f} ms | {st.p95:.2f} ms |")
    lines += ["", "Inputs (latency profile on):", "",
              "| inputs | median | p95 |", "|---|---:|---:|"]
    for name, st in bench_inputs(input_runs, progress).items():
        lines.append(f"| {name} | {st.median:.0f} ms | {st.p95:.0f} ms |")
    return "\n".join(lines)


WIFI = "Wi-Fi"  # the step's tap: the Settings Wi-Fi switch flips on every tap


def peer_step(serial: str, workdir: Path, tap: tuple[int, int], sleep_s: float = 1.0) -> None:
    """One step the way Open-AutoGLM-style loops take it: screenshot as a PNG file pulled
    to the host, the current app from ``dumpsys window``, the tap, then a fixed sleep."""
    adb = adbhost.adb_path()

    def run(*args: str) -> None:
        subprocess.run([adb, "-s", serial, *args], capture_output=True, check=True, timeout=60)

    run("shell", "screencap", "-p", "/sdcard/tmp.png")
    run("pull", "/sdcard/tmp.png", str(workdir / "tmp.png"))
    run("shell", "dumpsys", "window")
    run("shell", "input", "tap", str(tap[0]), str(tap[1]))
    time.sleep(sleep_s)


@dataclass
class StepRow:
    """One pipeline's per-step cost; ``phases`` are medians of the step's parts (ms)."""

    step: Stat
    phases: dict[str, float]


def driver_step(driver) -> dict[str, float]:
    """observe + tap the Wi-Fi row by its label + settle, through ``driver``; the parts in
    ms (observe, the time it waited for its dump, the tap's device calls, settle, the whole
    step). The next dump runs during act and settle, so the parts overlap the dump."""
    from omg_agent.core.actions import AnchorTarget, Tap

    t0 = time.perf_counter()
    obs = driver.observe()
    t1 = time.perf_counter()
    result = driver.execute([Tap(target=AnchorTarget(text=WIFI))], obs)
    t2 = time.perf_counter()
    if not all(o.ok for o in result.outcomes):
        raise RuntimeError(f"the step's tap failed: {result.outcomes}")
    return {"observe": (t1 - t0) * 1000, "dump wait": obs.timings.get("dump", 0.0) * 1000,
            "act": result.timings.get("device", 0.0) * 1000,
            "settle": result.timings.get("settle", 0.0) * 1000, "step": (t2 - t0) * 1000}


def _driver_row(driver, steps: int, progress: Progress = SILENT) -> StepRow:
    driver_step(driver)  # warm-up: info, IME probe, first focus read
    progress.advance(f"{driver.name} driver")
    taken = driver.ahead.taken
    parts = []
    for _ in range(steps):
        parts.append(driver_step(driver))
        progress.advance(f"{driver.name} driver")
    phases = {k: statistics.median(p[k] for p in parts) for k in parts[0] if k != "step"}
    phases["dumps taken ahead"] = driver.ahead.taken - taken  # a count, not ms
    return StepRow(Stat.of([p["step"] for p in parts]), phases)


class SpawnedPhone:
    """A latency-profile vphone in its own process, as a phone is: its work does not share
    the host's interpreter with the pipeline being measured."""

    def __init__(self) -> None:
        from omg_agent.vphone import daemon

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.record = daemon.spawn(port, seed=0, profile="default", latency=True)
        self.serial = adbhost.connect("127.0.0.1", port)

    def __enter__(self) -> SpawnedPhone:
        return self

    def __exit__(self, *exc: object) -> None:
        adbhost.disconnect(self.serial)
        os.kill(self.record["pid"], signal.SIGTERM)


def bench_steps(steps: int = 15, in_process: bool = False,
                progress: Progress = SILENT) -> dict[str, StepRow]:
    """Per-step cost, side by side in one run on one latency-profile vphone (in its own
    process unless ``in_process``)."""
    from omg_agent.drivers.adb import AdbDriver
    from omg_agent.drivers.u2 import U2Driver

    out: dict[str, StepRow] = {}
    progress.phase("steps", 3 * (steps + 1))
    phone = LatencyPhone() if in_process else SpawnedPhone()
    with phone, tempfile.TemporaryDirectory() as tmp:
        device = adbutils.AdbClient().device(phone.serial)
        device.shell("am start -n com.android.settings/.Settings")
        xml = device.shell("uiautomator dump /dev/tty")
        switch = next(e for e in parse_elements(xml[:xml.rindex(">") + 1])
                      if e.label == WIFI and e.clickable)
        tap = switch.center
        peer = partial(peer_step, phone.serial, Path(tmp), (tap.x, tap.y))
        out["peer: screencap -p + pull, dumpsys window, tap, sleep 1 s (no tree)"] = StepRow(
            timed(peer, steps, progress=progress, detail="peer"), {})
        with AdbDriver(phone.serial) as adb_driver:
            out["OMG adb driver (reads the tree)"] = _driver_row(adb_driver, steps, progress)
        u2_driver = U2Driver(phone.serial)
        try:
            out["OMG u2 driver (reads the tree)"] = _driver_row(u2_driver, steps, progress)
        finally:
            u2_driver.close()
    return out


def step_report(steps: int = 15, in_process: bool = False,
                progress: Progress = SILENT) -> str:
    """The per-step table: median and p95, ratio to the peer, and the drivers' phases."""
    rows = bench_steps(steps, in_process, progress)
    peer = next(iter(rows.values())).step.median
    where = "in this process" if in_process else "in its own process"
    lines = ["Per step: observe + one tap that changes the screen + settle "
             f"(latency profile on, vphone {where}, {steps} steps each):", "",
             "| pipeline | median | p95 | vs peer | where the time goes (medians) |",
             "|---|---:|---:|---:|---|"]
    for name, row in rows.items():
        phases = ", ".join(f"{k} {v:.0f}" + ("" if k.startswith("dumps") else " ms")
                           for k, v in row.phases.items())
        lines.append(f"| {name} | {row.step.median:.0f} ms | {row.step.p95:.0f} ms | "
                     f"{row.step.median / peer:.2f}× | {phases or '—'} |")
    return "\n".join(lines)
