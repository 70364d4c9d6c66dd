"""Contention trials (issue 25): two agents on one phone, and a run started while the adb
server restarts — real CLI processes on a vphone, the outcome read from the phone.

- :func:`concurrent_trial` — ``omg-agent run "Like the first N posts in Feed"`` holds the
  phone (its first model reply held by :class:`HeldReply` until the second command has been
  refused, or has said it waits); then a second command on the same phone: another ``run``
  (``run+run``), ``flow run like_first_posts.yaml`` (``run+flow``), both refused with exit
  7, or ``run --wait-device`` (``run+wait``), which runs once the first is done and finds
  nothing left to do.
- :func:`restart_trial` — the adb server is killed just before ``run`` starts and started
  again ``delay_s`` seconds later (0: before the run starts, as ``adb kill-server; adb
  start-server; omg-agent run …`` does); the run must connect its TCP device again.

Every trial runs on its own adb server (a private port) and lease folder. The figures
(:func:`contention_table`): *completed* — the phone shows the task done, each post toggled
once, and every command exited with the code its situation calls for; *phantom successes*
— a command exited 0 while the phone does not show exactly the task done; *false failures*
— the phone shows the task done but a command that should have ended 0 exited otherwise;
*lost side effects* — likes that landed and were undone again (a post toggled an even
number of times: two drivers fighting).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omg_agent.bench.durability import cli_env
from omg_agent.bench.reliability import private_adb_server
from omg_agent.bench.suite.social_tasks import LikeSet
from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
from omg_agent.sim.model_double import ModelDouble
from omg_agent.vphone import adbhost
from omg_agent.vphone.phone import VirtualPhone

EXIT_BUSY = 7
CONCURRENT_KINDS = ("run+run", "run+flow", "run+wait")
FLOW = Path(__file__).resolve().parents[1] / "assets" / "flows" / "like_first_posts.yaml"
HOLD_S = 120.0  # the longest a held reply waits for its release (a harness bound)


class HeldReply:
    """Wraps a model double's policy: the first request waits until :attr:`release` is set
    (:attr:`arrived` tells the test the run got that far: it holds the phone)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.arrived = threading.Event()
        self.release = threading.Event()

    def reply(self, request: dict[str, Any]) -> Any:
        if not self.arrived.is_set():
            self.arrived.set()
            self.release.wait(HOLD_S)
        return self.inner.reply(request)


@dataclass
class ContentionTrial:
    fault: str
    seed: int
    posts: int
    expected: tuple[int, ...]
    exits: tuple[int, ...] = ()
    like_log: list[int] = field(default_factory=list)
    liked: list[int] = field(default_factory=list)
    wall_s: float = 0.0
    error: str = ""  # the harness itself failed (not the agent)

    @property
    def exact(self) -> bool:
        """The phone shows exactly the task done, each post toggled once."""
        want = set(range(1, self.posts + 1))
        return set(self.liked) == want and sorted(self.like_log) == sorted(want)

    @property
    def done_on_phone(self) -> bool:
        return set(self.liked) >= set(range(1, self.posts + 1))

    @property
    def completed(self) -> bool:
        return self.exact and self.exits == self.expected

    @property
    def phantom(self) -> bool:
        return any(code == 0 for code in self.exits) and not self.exact

    @property
    def false_failure(self) -> bool:
        return self.done_on_phone and any(got != want and want == 0
                                          for got, want in zip(self.exits, self.expected,
                                                               strict=False))

    @property
    def lost(self) -> int:
        """Likes that landed and were taken back (toggled an even number of times)."""
        return sum(1 for n in Counter(self.like_log).values() if n % 2 == 0)


def _feed(phone: VirtualPhone) -> tuple[list[int], list[int]]:
    state = phone.state()["apps"]["com.omg.feed"]
    return list(state["like_log"]), sorted(state["liked"])


def _cli(args: Sequence[str], env: dict[str, str], cwd: Path,
         **popen: Any) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "omg_agent.cli", *args], env=env, cwd=cwd,
                            stdin=subprocess.DEVNULL, text=True, **popen)


def _env(base_url: str, adb_port: int, runtime: Path) -> dict[str, str]:
    return {**cli_env(base_url), "ANDROID_ADB_SERVER_PORT": str(adb_port),
            "XDG_RUNTIME_DIR": str(runtime), "COLUMNS": "200"}


def _stage(stack: ExitStack, prefix: str, seed: int,
           task: LikeSet) -> tuple[Path, int, VirtualPhone, str]:
    """A trial's stage: a work folder, a private adb server, a vphone on it set up for
    ``task`` — all closed with ``stack``."""
    work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=prefix)))
    adb_port = stack.enter_context(private_adb_server())
    phone = VirtualPhone(seed=seed)
    stack.callback(phone.close)
    serial = adbhost.connect("127.0.0.1", phone.serve().port, server_port=adb_port)
    task.setup(phone)
    return work, adb_port, phone, serial


def concurrent_trial(kind: str, seed: int = 0, posts: int = 4) -> ContentionTrial:
    """A run holding the phone, and a second command on it (``kind``: run+run, run+flow,
    run+wait)."""
    expected = (0, 0) if kind == "run+wait" else (0, EXIT_BUSY)
    trial = ContentionTrial(kind, seed, posts, expected)
    task = LikeSet(posts=list(range(1, posts + 1)))
    started = time.perf_counter()
    with ExitStack() as stack:
        work, adb_port, phone, serial = _stage(stack, "omg-contend-", seed, task)
        held = HeldReply(ExpertPolicy(task, phone, NoiseProfile(bundling="single"), seed=seed))
        first_double = stack.enter_context(ModelDouble(held))
        second_double = stack.enter_context(ModelDouble(ExpertPolicy(task, phone, seed=seed)))
        common = ["--device", serial, "--driver", "adb", "--json", "--runs-dir",
                  str(work / "runs")]
        env = _env(first_double.base_url, adb_port, work)
        first = _cli(["run", task.goal, *common], env, work, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE)
        second: subprocess.Popen[str] | None = None
        try:
            if not held.arrived.wait(HOLD_S):
                trial.error = "the first run never asked its model"
            second_args = (["flow", "run", str(FLOW), "--var", f"count={posts}", *common]
                           if kind == "run+flow" else ["run", task.goal, *common])
            if kind == "run+wait":
                second_args.append("--wait-device")
            second = _cli(second_args, _env(second_double.base_url, adb_port, work), work,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if kind == "run+wait":
                _await_line(second, "waiting")  # queued behind the first: let it go on
            else:
                second.wait(HOLD_S)
            held.release.set()
            first.communicate(timeout=300)
            second.communicate(timeout=300)
        finally:
            held.release.set()
            for proc in (first, second):
                if proc is not None and proc.poll() is None:
                    proc.kill()
                    proc.wait()
        trial.exits = (first.returncode, second.returncode)
        trial.like_log, trial.liked = _feed(phone)
    trial.wall_s = time.perf_counter() - started
    return trial


def _await_line(proc: subprocess.Popen[str], start: str) -> str:
    """The first line of ``proc``'s stderr that starts with ``start`` ('' at its end); the
    lines before it are dropped."""
    assert proc.stderr is not None
    for line in proc.stderr:
        if line.startswith(start):
            return line
    return ""


def restart_trial(delay_s: float, seed: int = 0, posts: int = 2) -> ContentionTrial:
    """The adb server killed just before ``run`` starts and started again ``delay_s``
    seconds later (by this harness, unless the run has started it first)."""
    trial = ContentionTrial(f"adb restart +{delay_s:.1f} s", seed, posts, (0,))
    task = LikeSet(posts=list(range(1, posts + 1)))
    started = time.perf_counter()
    with ExitStack() as stack:
        work, adb_port, phone, serial = _stage(stack, "omg-restart-", seed, task)
        double = stack.enter_context(ModelDouble(ExpertPolicy(task, phone, seed=seed)))
        adbhost.kill_server(adb_port)
        restart = threading.Timer(delay_s, adbhost.ensure_server, args=(adb_port,))
        if delay_s <= 0:
            adbhost.ensure_server(adb_port)
        else:
            restart.start()
        stack.callback(restart.cancel)
        proc = _cli(["run", task.goal, "--device", serial, "--driver", "adb", "--json",
                     "--runs-dir", str(work / "runs")], _env(double.base_url, adb_port, work),
                    work, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = proc.communicate(timeout=300)
        restart.cancel()  # the run may have started the server itself long before
        if delay_s > 0:
            restart.join()
        trial.exits = (proc.returncode,)
        trial.like_log, trial.liked = _feed(phone)
        if proc.returncode != 0:
            trial.error = (err.strip().splitlines() or [out.strip()])[-1][:300]
        else:
            status = json.loads(out.strip().splitlines()[-1]).get("status", "")
            trial.error = "" if status == "done" else f"status {status}"
    trial.wall_s = time.perf_counter() - started
    return trial


def contention_table(trials: Sequence[ContentionTrial]) -> str:
    """One row per fault: trials, completed, phantom successes, false failures, lost side
    effects (markdown)."""
    lines = ["| fault | trials | completed | phantom successes | false failures | "
             "lost side effects | exits |", "|---|---|---|---|---|---|---|"]
    by_fault: dict[str, list[ContentionTrial]] = {}
    for t in trials:
        by_fault.setdefault(t.fault.split(" +")[0] if t.fault.startswith("adb") else t.fault,
                            []).append(t)
    for fault, group in by_fault.items():
        exits = Counter(" ".join(map(str, t.exits)) for t in group)
        lines.append(f"| {fault} | {len(group)} | {sum(t.completed for t in group)} | "
                     f"{sum(t.phantom for t in group)} | "
                     f"{sum(t.false_failure for t in group)} | "
                     f"{sum(t.lost for t in group)} | "
                     + ", ".join(f"{k} ×{n}" for k, n in sorted(exits.items())) + " |")
    return "\n".join(lines)
