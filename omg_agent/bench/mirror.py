"""``omg-agent bench mirror``: what watching and driving the phone through the mirror costs.

A vphone (in this process, served over adb) and ``omg-agent mirror`` on it in a process of
its own, as a user starts it; the viewers are :class:`~omg_agent.hitl.client.MirrorClient`
sockets in this process, each read by its own thread that stamps every message on arrival.
For each path — H.264 (the device's ``screenrecord`` cut into access units, what a page with
WebCodecs gets) and JPEG frames (the fallback) — with 1 and with 5 viewers:

* **frame latency** — the screen changes (the bench switches the vphone between two apps)
  → the first frame after it received by a viewer (received, not decoded: a browser's
  WebCodecs decode of one access unit adds a few ms); median and p95 over every viewer and
  change;
* **fps while changing** — frames per second each viewer receives while a character is
  typed into a note every ``CHANGE_S`` (faster than the mirror polls, so this is the
  mirror's ceiling; see :func:`changing_screen`);
* **bytes/s** — what a viewer receives per second on a static screen and on a changing one;
* **server CPU** — the mirror process's CPU time (``/proc``) per second of changing screen,
  in % of one core (the vphone's encoder runs in this process: it is the phone's cost);
* **click → tap** — a click POSTed as the page does (on the Settings Wi-Fi row) until the
  phone's Wi-Fi switch flips (read from the vphone every millisecond); **click → frame** —
  until the frame showing it reaches the viewer.

One run, no timing asserts: numbers for the README. The machine's load moves them.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from omg_agent.bench.durability import as_at_a_terminal
from omg_agent.bench.observe import LatencyPhone, Stat
from omg_agent.core.geometry import pixel_to_norm
from omg_agent.drivers.adb import AdbDriver
from omg_agent.errors import MirrorError
from omg_agent.hitl.client import MirrorClient

SETTINGS, NOTES = "com.android.settings", "com.omg.notes"
APPS = (SETTINGS, "com.omg.messages")  # two screens without a blinking caret
CHANGE_S = 0.02  # the screen changes this often while "changing" (above 30 fps)
PATHS = ("h264", "jpeg")
TITLE_MAX = 30
QUIET_S = 1.5  # static once no frame came for this long (> 2 frame intervals at 2 fps)
QUIET_MAX_S = 10.0
FIRST_FRAME_S = 30.0
TAP_POLL_S = 0.001  # the phone's state is read this often to stamp a tap
# The mirror process: glibc returns freed screenshot buffers to the system, so its RSS shows
# what is alive (tests/integration/test_mirror_soak.py measures it the same way).
ALLOCATOR = {"MALLOC_MMAP_THRESHOLD_": str(2**20)}


@contextmanager
def mirror_process(serial: str, workdir: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``omg-agent mirror`` on ``serial`` in its own process; yields it and its link."""
    proc = subprocess.Popen([sys.executable, "-m", "omg_agent.cli", "mirror", "--device",
                             serial, "--driver", "adb", "--audit",
                             str(workdir / "audit.jsonl")],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, text=True, cwd=workdir,
                            env={**os.environ, **ALLOCATOR}, preexec_fn=as_at_a_terminal)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"open (http://\S+)", line)
        if found is None:
            raise MirrorError(f"omg-agent mirror printed no link: {line.strip()!r}")
        yield proc, found.group(1)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()


@dataclass
class Row:
    path: str  # "h264" or "jpeg"
    viewers: int
    latency_ms: Stat
    fps: float  # per viewer, while changing
    static_bps: float  # bytes per second per viewer
    changing_bps: float
    click_tap_ms: Stat
    click_frame_ms: Stat
    frame_kb: float  # mean frame size while changing
    cpu_pct: float  # the mirror process while changing, % of one core


class Viewer:
    """One socket, read by a thread: ``(arrival, bytes, is_frame)`` per message."""

    def __init__(self, client: MirrorClient, stack: ExitStack, video: bool = False) -> None:
        self.ws = stack.enter_context(client.socket(video=video))
        self.inbox: queue.Queue[tuple[float, int, bool]] = queue.Queue()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while True:
            try:
                message = self.ws.recv()
            except Exception:  # closed at the end
                return
            size = len(message) if isinstance(message, bytes) else len(message.encode())
            self.inbox.put((time.perf_counter(), size, isinstance(message, bytes)))

    def drain(self) -> list[tuple[float, int, bool]]:
        out = []
        while True:
            try:
                out.append(self.inbox.get_nowait())
            except queue.Empty:
                return out

    def next_frame(self, timeout: float = FIRST_FRAME_S) -> float:
        deadline = time.perf_counter() + timeout
        while True:
            t, _, frame = self.inbox.get(timeout=max(0.01, deadline - time.perf_counter()))
            if frame:
                return t


def _flip(phone: Any) -> None:
    """Switch the phone to the other of the two apps (the screen changes)."""
    phone.start_activity(APPS[1] if phone.foreground == APPS[0] else APPS[0])


def _quiet(viewers: list[Viewer]) -> None:
    """Wait until no viewer has received anything for ``QUIET_S`` (an app's opening
    animation is over), then forget what came."""
    pause = threading.Event()
    deadline = time.perf_counter() + QUIET_MAX_S
    while True:
        pause.wait(QUIET_S)
        if not any([v.drain() for v in viewers]) or time.perf_counter() > deadline:
            return


def _latency(phone: Any, viewers: list[Viewer], changes: int) -> Stat:
    samples = []
    for _ in range(changes):
        _quiet(viewers)
        t0 = time.perf_counter()
        _flip(phone)
        samples += [(v.next_frame() - t0) * 1000 for v in viewers]
    return Stat.of(samples)


@contextmanager
def changing_screen(phone: Any, every_s: float = CHANGE_S) -> Iterator[None]:
    """The screen changes every ``every_s`` and never shows the same picture twice in a row:
    a new note in Notes gets a character typed into its title each time (cleared at
    ``TITLE_MAX``), the way a person types — unlike two screens shown in turn, which a
    poller can sample on the same one twice."""
    phone.start_activity(NOTES)
    phone.tap_view(resource_id=f"{NOTES}:id/fab_new")  # the editor, its title focused
    stop = threading.Event()

    def type_on() -> None:
        typed = 0
        while not stop.is_set():
            if typed == TITLE_MAX:
                phone.clear_text()
                typed = 0
            phone.input_text("abcdefghij"[typed % 10])
            typed += 1
            stop.wait(every_s)

    typist = threading.Thread(target=type_on, name="bench-typist", daemon=True)
    typist.start()
    try:
        yield
    finally:
        stop.set()
        typist.join(5)
        phone.start_activity(SETTINGS)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds process ``pid`` has used (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rates(phone: Any, viewers: list[Viewer], seconds: float,
           pid: int) -> tuple[float, float, float, float, float]:
    """(fps, static bytes/s, changing bytes/s, mean frame kB) per viewer, and the mirror
    process's CPU while changing (% of one core)."""
    _quiet(viewers)
    pause = threading.Event()
    pause.wait(seconds)
    static = [sum(n for _, n, _ in v.drain()) / seconds for v in viewers]
    with changing_screen(phone):
        _quiet(viewers)  # the editor opening is not counted
        cpu0, t0 = cpu_seconds(pid), time.perf_counter()
        pause.wait(seconds)
        got = [v.drain() for v in viewers]
        cpu = (cpu_seconds(pid) - cpu0) / (time.perf_counter() - t0) * 100
    frames = [[n for _, n, f in g if f] for g in got]
    fps = sum(len(f) for f in frames) / len(viewers) / seconds
    changing = sum(sum(n for _, n, _ in g) for g in got) / len(viewers) / seconds
    sizes = [n for f in frames for n in f]
    return (fps, sum(static) / len(static), changing,
            sum(sizes) / len(sizes) / 1024 if sizes else 0.0, cpu)


def _wifi_point(serial: str) -> tuple[int, int]:
    with AdbDriver(serial) as driver:
        obs = driver.observe()
    element = next((e for e in obs.elements if e.text == "Wi-Fi"), None)
    if element is None:
        raise MirrorError("the Settings screen shows no Wi-Fi row to tap")
    x, y = pixel_to_norm(element.bounds.center, obs.size)
    return round(x), round(y)


def _tapped_at(phone: Any, was: bool, out: list[float]) -> None:
    """Stamp the moment the phone's Wi-Fi switch leaves ``was`` (the tap ran on it)."""
    app = phone.apps[SETTINGS]
    pause = threading.Event()
    deadline = time.perf_counter() + FIRST_FRAME_S
    while app.wifi == was and time.perf_counter() < deadline:
        pause.wait(TAP_POLL_S)
    out.append(time.perf_counter())


def _clicks(phone: Any, serial: str, client: MirrorClient, viewer: Viewer,
            clicks: int) -> tuple[Stat, Stat]:
    phone.start_activity(SETTINGS)
    point = _wifi_point(serial)
    tap, frame = [], []
    for i in range(clicks + 1):  # the first click warms the driver's input path up: dropped
        _quiet([viewer])
        stamp: list[float] = []
        watcher = threading.Thread(target=_tapped_at, args=(phone, phone.apps[SETTINGS].wifi,
                                                           stamp))
        watcher.start()
        t0 = time.perf_counter()
        client.tap(*point)
        shown = viewer.next_frame()
        watcher.join()
        if i > 0:
            tap.append((stamp[0] - t0) * 1000)
            frame.append((shown - t0) * 1000)
    return Stat.of(tap), Stat.of(frame)


def bench_viewers(count: int, *, changes: int, seconds: float, clicks: int,
                  latency: bool, seed: int = 0, path: str = "jpeg") -> Row:
    import tempfile

    with LatencyPhone(latency=latency, seed=seed) as lp, \
            tempfile.TemporaryDirectory(prefix="omg-bench-mirror-") as tmp, \
            mirror_process(lp.serial, Path(tmp)) as (proc, link), ExitStack() as stack:
        phone = lp.phone
        _flip(phone)
        first = MirrorClient(link)
        clients = [first] + [MirrorClient(first.invite()) for _ in range(count - 1)]
        viewers = [Viewer(c, stack, video=path == "h264") for c in clients]
        for v in viewers:
            v.next_frame()
        lat = _latency(phone, viewers, changes)
        fps, static, changing, kb, cpu = _rates(phone, viewers, seconds, proc.pid)
        tap, frame = _clicks(phone, lp.serial, first, viewers[0], clicks)
        return Row(path, count, lat, fps, static, changing, tap, frame, kb, cpu)


def run_bench(viewers: tuple[int, ...] = (1, 5), *, changes: int = 20, seconds: float = 5.0,
              clicks: int = 10, latency: bool = True, seed: int = 0,
              paths: tuple[str, ...] = PATHS) -> list[Row]:
    """Every path with every viewer count, side by side in one run."""
    return [bench_viewers(n, changes=changes, seconds=seconds, clicks=clicks,
                          latency=latency, seed=seed, path=p) for p in paths for n in viewers]


def table(rows: list[Row]) -> str:
    lines = ["| path | viewers | frame latency median / p95 | fps while changing | "
             "bytes/s static | bytes/s changing | frame size | server CPU | "
             "click → tap median / p95 | click → frame median / p95 |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        name = "H.264" if r.path == "h264" else "JPEG"
        lines.append(
            f"| {name} | {r.viewers} | {r.latency_ms.median:.0f} / {r.latency_ms.p95:.0f} ms"
            f" | {r.fps:.1f} | {r.static_bps:.0f} | {r.changing_bps / 1024:.0f} kB/s | "
            f"{r.frame_kb:.1f} kB | {r.cpu_pct:.0f} % | "
            f"{r.click_tap_ms.median:.0f} / {r.click_tap_ms.p95:.0f} ms"
            f" | {r.click_frame_ms.median:.0f} / {r.click_frame_ms.p95:.0f} ms |")
    return "\n".join(lines)


def as_dicts(rows: list[Row]) -> list[dict[str, Any]]:
    return [asdict(r) for r in rows]
