"""The reliability soak: seeded runs of a long vphone task with random device faults.

Each run: a fresh vphone on a private adb server (its own port, so killing it touches no one
else's), the expert double behind the real openai client, the real ADB driver and the
Orchestrator, and a seeded schedule of faults fired on timers while the agent works — drop,
offline (``offline_s`` seconds), adb server kill, app crash, ANR, screen off (locked; half of
them with a password the simulated user gives when asked). The outcome is read from the
phone (``task.check``), never from the agent; then the run's stores are opened (trace,
memory) and every file and log line is searched for the password.

``scripts/bench_reliability.py`` prints :func:`table`; ``tests/integration/
test_reliability_soak.py`` asserts on :func:`soak` with shorter offline windows.
"""

from __future__ import annotations

import logging
import random
import socket
import sqlite3
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import adbutils

from omg_agent.bench.suite.social_tasks import LikeSet
from omg_agent.brain.agent import open_agent
from omg_agent.drivers.adb import AdbDriver
from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
from omg_agent.sim.expert.runner import sim_settings
from omg_agent.sim.model_double import ModelDouble
from omg_agent.vphone import adbhost
from omg_agent.vphone.faults import Injection, inject_later
from omg_agent.vphone.phone import VirtualPhone
from omg_agent.vphone.profile import PROFILES, DeviceProfile

log = logging.getLogger(__name__)

KINDS = ("drop", "offline", "adb_kill", "crash", "anr", "screen_off")
OFFLINE_S = (3.0, 8.0)  # the range; tests scale it down (see the test)
# A small phone (360×800 px at 160 dpi: the same layout in dp as any phone, a quarter of
# compact's pixels) keeps a 100-run soak's frames cheap; the faults do not care.
SOAK_PROFILE = replace(PROFILES["compact"], name="soak", width=360, height=800, density=160,
                       status_bar_height=24, nav_bar_height=32, serialno="VPHONESOAK",
                       model="vPhone Soak")


@dataclass(frozen=True)
class SoakConfig:
    runs: int = 100
    seed: int = 0
    posts: int = 10  # the task: like the first N posts (>= 10 steps with the expert)
    faults_per_run: tuple[int, int] = (1, 2)
    window_s: tuple[float, float] = (0.3, 3.0)  # when faults fire, after the agent starts
    offline_s: tuple[float, float] = OFFLINE_S
    grace_s: float = 30.0
    max_steps: int = 60
    settle_window: float = 0.1
    change_grace: float = 0.15  # the driver's wait for a slow app to start changing
    profile: str | DeviceProfile = SOAK_PROFILE  # the vphone's device profile


@dataclass
class SoakRun:
    index: int
    seed: int
    scheduled: list[str]
    fired: list[str] = field(default_factory=list)
    success: bool = False
    status: str = ""
    reason: str = ""  # why a run that did not complete stopped, as the agent said it
    summary: str = ""  # the agent's whole stop message (done so far, why, what next)
    phantom: bool = False  # the phone shows an effect the task did not ask for
    stores_ok: bool = True
    leaked: bool = False
    steps: int = 0
    system_moves: int = 0
    pin_asks: int = 0  # times the simulated user was asked for the lock's password
    wall_s: float = 0.0
    harness_error: str = ""  # the soak itself failed (not the agent): never expected

    @property
    def stated(self) -> bool:
        """Ended with a reason a user can read (done, or a stop message)."""
        return self.success or bool(self.reason.strip())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def private_adb_server() -> Iterator[int]:
    """An adb server of our own on a free port (killed at the end)."""
    port = free_port()
    adbhost.ensure_server(port)
    try:
        yield port
    finally:
        adbhost.kill_server(port)


def schedule(cfg: SoakConfig, rng: random.Random) -> list[tuple[str, float, float]]:
    """(kind, at seconds, duration) for one run, drawn from ``rng``."""
    plan = []
    for _ in range(rng.randint(*cfg.faults_per_run)):
        kind = rng.choice(KINDS)
        seconds = rng.uniform(*cfg.offline_s) if kind == "offline" else 0.0
        plan.append((kind, rng.uniform(*cfg.window_s), seconds))
    return plan


class _LogTap(logging.Handler):
    """Every log line of the run, to search for the password afterwards."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@contextmanager
def tapped_logs() -> Iterator[_LogTap]:
    """Every log line of the agent (DEBUG up) while the soak runs; the phone's own stay
    quiet (they are the device's side, and slow)."""
    tap = _LogTap()
    root, device_side = logging.getLogger("omg_agent"), logging.getLogger("omg_agent.vphone")
    levels = root.level, device_side.level
    root.addHandler(tap)
    root.setLevel(logging.DEBUG)
    device_side.setLevel(logging.WARNING)
    try:
        yield tap
    finally:
        root.removeHandler(tap)
        root.setLevel(levels[0])
        device_side.setLevel(levels[1])


def soak_run(cfg: SoakConfig, index: int, adb_port: int, work: Path,
             tap: _LogTap | None = None) -> SoakRun:
    """Run ``index`` of the soak on the adb server at ``adb_port``; ``tap`` holds the log
    lines searched for the run's password."""
    seed = cfg.seed * 100_003 + index
    rng = random.Random(seed)
    plan = schedule(cfg, rng)
    pin = f"pw{rng.getrandbits(40):010x}" if rng.random() < 0.5 else ""
    run = SoakRun(index, seed, [k for k, _, _ in plan])
    task = LikeSet(id="feed.like_first", posts=list(range(1, cfg.posts + 1)),
                   marker=1000 + rng.randrange(1000))
    run_dir = work / f"run-{index:03d}"
    phone = VirtualPhone(cfg.profile, seed=seed % 7)
    injections: list[Injection] = []
    try:
        with ExitStack() as stack:
            stack.callback(phone.close)
            server = phone.serve()
            serial = adbhost.connect("127.0.0.1", server.port, server_port=adb_port)
            stack.callback(adbhost.disconnect, serial, adb_port)
            task.setup(phone)
            double = stack.enter_context(ModelDouble(ExpertPolicy(
                task, phone, NoiseProfile.named("none"), seed=seed)))
            settings = sim_settings(double.base_url, work, cfg.max_steps)
            driver = AdbDriver(serial, client=adbutils.AdbClient(port=adb_port),
                               grace_s=cfg.grace_s, settle_window=cfg.settle_window,
                               change_grace=cfg.change_grace)
            stack.callback(driver.close)
            agent = open_agent(stack, driver, settings, task.goal, run_dir=run_dir,
                               memory_path=run_dir / "memory.sqlite", session=f"soak-{index}",
                               ask_user=lambda q: pin if pin and "PIN" in q else None)
            injections = [inject_later(phone, kind, seconds=secs, at=at, adb_port=adb_port,
                                       pin=pin) for kind, at, secs in plan]
            started = time.perf_counter()
            result = agent.run(task.goal)
            run.wall_s = time.perf_counter() - started
            for inj in injections:
                inj.cancel()
            run.fired = [i.kind for i in injections if i.done and
                         not i.done.startswith("failed")]
            run.success = task.check(phone)
            run.status, run.steps = result.status, result.steps_used
            run.reason = "" if run.success else result.stopped_because
            run.summary = "" if run.success else result.summary()
            run.system_moves = len(agent.system.moves)
            run.pin_asks = agent.system.pin_asks
            liked = set(phone.state()["apps"]["com.omg.feed"]["liked"])
            run.phantom = bool(liked - set(task.posts)) or (
                result.status == "done" and not run.success)
    finally:
        for inj in injections:
            inj.cancel()
    run.stores_ok = stores_readable(run_dir)
    run.leaked = bool(pin) and leaked(pin, run_dir, tap.lines if tap is not None else ())
    return run


def stores_readable(run_dir: Path) -> bool:
    """The run's trace loads and its memory database passes sqlite's integrity check."""
    from omg_agent.trace.loader import load_trace

    try:
        load_trace(run_dir)
        db = run_dir / "memory.sqlite"
        if db.exists():
            with sqlite3.connect(db) as conn:
                ok = conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            conn.close()
            return ok
    except Exception as exc:  # any failure to read is what this measures
        log.warning("%s: store unreadable: %s", run_dir, exc)
        return False
    return True


def leaked(secret: str, run_dir: Path, lines: Sequence[str]) -> bool:
    """Whether ``secret`` appears in any file of the run or any log line."""
    needle = secret.encode()
    for path in run_dir.rglob("*"):
        if path.is_file() and needle in path.read_bytes():
            return True
    return any(secret in line for line in lines)


def soak(cfg: SoakConfig, *, workers: int = 1,
         on_run: Callable[[SoakRun], None] | None = None) -> list[SoakRun]:
    """``cfg.runs`` seeded runs, ``workers`` at a time (each worker with its own adb server,
    so one run's server kill is no other run's fault); in index order. A run mostly waits
    (the screen settling, the adb server, the double), so a few workers share 2 cores well.
    The seeds and fault schedules do not depend on ``workers``."""
    runs: dict[int, SoakRun] = {}
    lock = threading.Lock()

    def worker(indices: Sequence[int], work: Path, tap: _LogTap) -> None:
        with private_adb_server() as port:
            for i in indices:
                try:
                    run = soak_run(cfg, i, port, work, tap)
                except Exception as exc:  # the harness, not the agent: record and go on
                    log.exception("soak run %d", i)
                    run = SoakRun(i, -1, [], harness_error=f"{type(exc).__name__}: {exc}")
                with lock:
                    runs[i] = run
                    if on_run is not None:
                        on_run(run)

    workers = max(1, min(workers, cfg.runs))
    with tempfile.TemporaryDirectory() as tmp, tapped_logs() as tap:
        threads = [threading.Thread(target=worker, name=f"soak-{w}", daemon=True,
                                    args=(range(w, cfg.runs, workers), Path(tmp), tap))
                   for w in range(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    return [runs[i] for i in range(cfg.runs)]


def table(runs: Sequence[SoakRun], cfg: SoakConfig) -> str:
    """The README's reliability table (markdown)."""
    fired = Counter(k for r in runs for k in r.fired)
    completed = sum(r.success for r in runs)
    resumed = sum(r.success and bool(r.fired) for r in runs)
    stopped = [r for r in runs if not r.success]
    by_kind = ", ".join(f"{k} {fired[k]}" for k in KINDS)
    rows = [
        ("runs", f"{len(runs)} (like the first {cfg.posts} posts in Feed; seed {cfg.seed})"),
        ("faults injected", f"{sum(fired.values())}: {by_kind}"),
        ("completed (read from the phone)", f"{completed}"),
        ("resumed after a fault and completed", f"{resumed}"),
        ("stopped with a stated reason", f"{sum(r.stated for r in stopped)} of {len(stopped)}"),
        ("phantom steps (state not exactly the task's)", f"{sum(r.phantom for r in runs)}"),
        ("data lost (stores unreadable)", f"{sum(not r.stores_ok for r in runs)}"),
        ("secrets leaked (password in files or logs)",
         f"{sum(r.leaked for r in runs)} ({sum(r.pin_asks for r in runs)} lock passwords "
         "asked of the user and typed)"),
        ("system screens handled by rule", f"{sum(r.system_moves for r in runs)}"),
        ("harness errors", f"{sum(bool(r.harness_error) for r in runs)}"),
        ("offline window", f"{cfg.offline_s[0]:g}–{cfg.offline_s[1]:g} s"),
    ]
    lines = ["| measure | value |", "|---|---|", *(f"| {a} | {b} |" for a, b in rows)]
    return "\n".join(lines)
