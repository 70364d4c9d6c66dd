"""Disk-full trials (issue 25): ``omg-agent run`` with its runs folder on a small tmpfs.

One trial: "Like the first N posts in Feed" on a vphone behind the real adb server, the
expert double over HTTP (one action per reply), ``--runs-dir`` on a tmpfs of ``size_kb``
KiB. The disk fills part-way (or not at all, on a big enough one); then the tmpfs is grown
(space freed) and a run that stopped ``interrupted`` is resumed. Read from the phone (its
Feed's like log, one entry per toggle), never from the agent:

- **completed** — the phone shows the task done after the run (and its resume, if any);
- **phantom success** — a run said ``done`` (exit 0) while the phone does not show it;
- **false failure** — the phone shows the task done but the run's last exit was neither 0
  nor the disk stop's 8 (a finished task reported as failed or crashed);
- **lost side effects** — likes on the phone after a first run that stopped short and that
  its result does not count (its ``done`` items say how many taps on 'Like' were carried
  out; a run that ended ``done`` counts them as its ticked task);
- **duplicates** — posts toggled more than once over the run and its resume.

Needs root (``mount -t tmpfs``); :func:`can_mount` says whether this machine allows it.
Shared by ``scripts/bench_reliability.py`` and ``tests/integration/test_disk_trouble.py``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omg_agent.bench.durability import cli_env, omg

FEED = "com.omg.feed"
DISK_EXIT = 8
_LIKE_TAPS = re.compile(r"'Like[^']*'(?: ×(\d+))?")


@dataclass
class DiskTrial:
    """One run on a ``size_kb`` KiB runs folder (and its resume, if it stopped)."""

    size_kb: int
    exit_first: int = -1
    status_first: str = ""
    exit_last: int = -1
    status_last: str = ""
    resumed: bool = False
    completed: bool = False
    phantom: bool = False
    false_failure: bool = False
    liked_first: int = 0  # like toggles on the phone after the first run
    counted_first: int = 0  # like taps the first run's result counts
    duplicates: int = 0
    stderr_lines: int = 0  # lines the first run printed on stderr (the error is one line)
    truncated_report: bool = False  # a report.html without its closing tag
    report_announced: bool = False  # the first run named a report (then it must be whole)
    error: str = ""
    done_items: list[str] = field(default_factory=list)

    @property
    def lost(self) -> int:
        """Likes the first run made that its result does not count (a run that ended
        ``done``, and whose phone agrees, counts them all: its ticked step is the task)."""
        if self.status_first == "done" and self.exit_first == 0 and self.completed:
            return 0
        return max(0, self.liked_first - self.counted_first)


def can_mount() -> bool:
    """Whether this process may mount a tmpfs (root, and a kernel that lets it)."""
    with tempfile.TemporaryDirectory() as folder:
        try:
            with small_disk(Path(folder), 64):
                return True
        except (OSError, subprocess.CalledProcessError):
            return False


@contextmanager
def small_disk(folder: Path, size_kb: int) -> Iterator[Path]:
    """``folder`` as a tmpfs of ``size_kb`` KiB while inside; unmounted after."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(folder)],
                   check=True, capture_output=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False, capture_output=True)


def fill(folder: Path, leave: int = 0) -> None:
    """Take every free byte of ``folder``'s disk but ``leave`` (a file ``ballast``)."""
    ballast = folder / "ballast"
    fd = os.open(ballast, os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    if leave:
        os.truncate(ballast, max(0, ballast.stat().st_size - leave))


def grow(folder: Path, size_kb: int) -> None:
    """Free space: make the tmpfs at ``folder`` ``size_kb`` KiB (its files stay)."""
    subprocess.run(["mount", "-o", f"remount,size={size_kb}k", str(folder)], check=True,
                   capture_output=True)


def likes_counted(done: list[str]) -> int:
    """Taps on a 'Like' button the result's ``done`` items count (``tapped 'Like' ×4``)."""
    total = 0
    for item in done:
        for m in _LIKE_TAPS.finditer(item):
            total += int(m.group(1) or 1)
    return total


def disk_full_trial(phone: Any, serial: str, size_kb: int, workdir: Path, *,
                    posts: int = 10, grown_kb: int = 64 * 1024) -> DiskTrial:
    """Run the like task with ``--runs-dir`` on a ``size_kb`` KiB tmpfs; resume a stopped
    run after growing it to ``grown_kb``; read every figure from the phone."""
    from omg_agent.bench.suite.social_tasks import LikeSet
    from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
    from omg_agent.sim.model_double import ModelDouble

    task = LikeSet(posts=list(range(1, posts + 1)))
    phone.clear_app(FEED)
    phone.go_home()
    task.setup(phone)
    trial = DiskTrial(size_kb)
    runs = workdir / f"runs-{size_kb}k"
    policy = ExpertPolicy(task, phone, NoiseProfile(bundling="single"))
    with ModelDouble(policy) as double, small_disk(runs, size_kb):
        env = cli_env(double.base_url)
        first = omg("run", task.goal, "--device", serial, "--driver", "adb", "--json",
                    "--no-cache", "--runs-dir", str(runs), env=env, cwd=workdir)
        trial.exit_first = trial.exit_last = first.returncode
        trial.stderr_lines = len(first.stderr.strip().splitlines())
        trial.liked_first = len(like_log(phone))
        said = last_json(first.stdout)
        trial.status_first = trial.status_last = str(said.get("status", ""))
        trial.done_items = [str(d) for d in said.get("done") or []]
        trial.counted_first = likes_counted(trial.done_items)
        trial.truncated_report = _truncated_reports(runs)
        if said.get("report"):
            trial.report_announced = True
            trial.truncated_report |= not Path(said["report"]).is_file()
        if not said:
            trial.error = first.stderr.strip().splitlines()[-1:][0][:300] if first.stderr \
                else f"exit {first.returncode}, nothing on stdout"
        if said.get("status") == "interrupted" and said.get("run_dir"):
            grow(runs, grown_kb)
            second = omg("run", "--resume", str(said["run_dir"]), "--json", env=env,
                         cwd=workdir)
            trial.resumed = True
            trial.exit_last = second.returncode
            trial.status_last = str(last_json(second.stdout).get("status", ""))
            trial.truncated_report = trial.truncated_report or _truncated_reports(runs)
            if second.returncode:
                trial.error = second.stderr.strip()[-300:]
    on_phone = task.check(phone)
    trial.completed = on_phone
    trial.phantom = trial.exit_last == 0 and trial.status_last == "done" and not on_phone
    trial.false_failure = on_phone and trial.exit_last not in (0, DISK_EXIT)
    trial.duplicates = sum(n - 1 for n in Counter(like_log(phone)).values() if n > 1)
    return trial


def table(trials: list[DiskTrial]) -> str:
    """The disk-full rows as markdown: one per tmpfs size, then the four figures."""
    lines = ["| runs folder | first run | exit | resumed → | stderr lines | likes on phone / "
             "counted | duplicates | report |",
             "|---|---|---|---|---|---|---|---|"]
    for t in trials:
        resumed = f"{t.status_last} (exit {t.exit_last})" if t.resumed else "-"
        counted = "the task" if t.status_first == "done" else str(t.counted_first)
        lines.append(f"| {t.size_kb} KiB | {t.status_first or 'no result'} | {t.exit_first} | "
                     f"{resumed} | {t.stderr_lines} | {t.liked_first} / {counted} | "
                     f"{t.duplicates} | {'TRUNCATED' if t.truncated_report else 'ok'} |")
    n = len(trials)
    lines += ["", f"runs completed {sum(t.completed for t in trials)}/{n} · phantom successes "
                  f"{sum(t.phantom for t in trials)} · false failures "
                  f"{sum(t.false_failure for t in trials)} · lost side effects "
                  f"{sum(t.lost for t in trials)} · duplicate likes "
                  f"{sum(t.duplicates for t in trials)}"]
    return "\n".join(lines)


def like_log(phone: Any) -> list[int]:
    """Feed's like log as the phone keeps it: post numbers, in the order liked."""
    return list(phone.apps[FEED].like_log)


def last_json(stdout: str) -> dict[str, Any]:
    """The last line of ``stdout`` that is a JSON object (a run's ``--json`` result)."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict):
            return data
    return {}


def _truncated_reports(runs: Path) -> bool:
    """Whether any ``report.html`` under ``runs`` lacks its closing ``</html>``."""
    for report in runs.glob("*/report.html"):
        try:
            tail = report.read_bytes()[-64:]
        except OSError:
            return True
        if b"</html>" not in tail:
            return True
    return False


__all__ = ["DiskTrial", "can_mount", "disk_full_trial", "grow", "likes_counted",
           "small_disk", "table"]
