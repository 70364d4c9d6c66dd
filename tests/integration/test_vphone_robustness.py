"""The vphone survives clients that vanish and clients that hammer it (issue: vphone).

Bounds stated here: after 30 s of 4 clients alternating raw screencap and hierarchy dumps,
the process has at most 8 more threads than before and its RSS grew by at most 300 MB
(each raw frame is ~10 MB; the frame cache holds one).
"""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

import adbutils

SOAK_SECONDS = 30.0


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def wait_until(cond, deadline_s: float = 10.0) -> bool:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def test_client_killed_mid_screencap_leaves_vphone_serving(vphone):
    proc = subprocess.Popen(["adb", "-s", vphone.serial, "exec-out", "screencap"],
                            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    assert proc.stdout is not None
    first = proc.stdout.read(4096)
    assert first  # the transfer had started
    proc.kill()
    proc.wait()
    proc.stdout.close()
    assert vphone.device.shell("echo ok") == "ok"
    assert len(vphone.device.shell(["screencap"], encoding=None)) > 10_000_000


def test_four_clients_hammering_for_30s_stay_correct_and_bounded(vphone):
    phone = vphone.phone
    expected = len(phone.screencap_raw())
    baseline_threads = threading.active_count()
    baseline_rss = rss_mb()
    errors: list[str] = []
    counts = [0] * 4
    stop = time.monotonic() + SOAK_SECONDS

    def worker(i: int) -> None:
        device = adbutils.AdbClient().device(vphone.serial)
        while time.monotonic() < stop:
            try:
                raw = device.shell(["screencap"], encoding=None)
                if len(raw) != expected:
                    errors.append(f"client {i}: screencap {len(raw)} bytes")
                xml = device.shell(["uiautomator", "dump", "/dev/tty"])
                if "<hierarchy" not in xml:
                    errors.append(f"client {i}: dump without hierarchy")
                counts[i] += 1
            except adbutils.AdbError as exc:
                errors.append(f"client {i}: {exc}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    peak_threads = baseline_threads
    while any(t.is_alive() for t in threads):
        peak_threads = max(peak_threads, threading.active_count())
        time.sleep(0.5)
    for t in threads:
        t.join()
    assert errors == []
    assert all(c > 0 for c in counts), counts
    assert wait_until(lambda: threading.active_count() <= baseline_threads + 8), (
        threading.active_count(), baseline_threads)
    assert rss_mb() - baseline_rss < 300
    print(f"soak: rounds per client {counts}, peak threads {peak_threads} "
          f"(baseline {baseline_threads}), rss +{rss_mb() - baseline_rss:.0f} MB")
