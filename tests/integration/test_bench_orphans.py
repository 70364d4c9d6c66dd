"""``omg-agent bench suite`` killed through its pid (what ``kill``, a supervisor or the OOM
killer does): its worker processes and multiprocessing's resource tracker go with it, and a
reader of its output (stdout and stderr, one pipe) gets EOF (issue 25). The suite runs in a
session of its own, so every process it started — and nothing else — is in its process
group."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from omg_agent.vphone import adbhost

# a bound, not a speed: an orphan lives on for good, while a SIGKILLed worker tearing down its
# address space on a loaded machine, or its `adb connect` child finishing, takes seconds
DEADLINE_S = 30.0


def _group(pgid: int) -> list[int]:
    """The live (not zombie) processes of process group ``pgid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # state, ppid, pgrp, …
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry))
    return found


def _described(pids: list[int]) -> list[str]:
    out = []
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()[:40]
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:80]
        except OSError:
            continue
        out.append(f"{stat} {cmd.decode(errors='replace')}")
    return out


def _children(pid: int) -> list[int]:
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
        return [int(c) for t in tasks
                for c in Path(f"/proc/{pid}/task/{t}/children").read_text().split()]
    except OSError:
        return []


def _until(condition, deadline_s: float, what: str) -> None:
    ends = time.monotonic() + deadline_s
    while not condition():
        if time.monotonic() > ends:
            raise AssertionError(f"not within {deadline_s:g} s: {what}")
        time.sleep(0.05)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_killed_suite_leaves_no_process_and_its_reader_gets_eof(tmp_path: Path,
                                                                  sig: int) -> None:
    adbhost.adb_path()  # the adb server (a daemon in its own session) is up before the suite
    subprocess.run([adbhost.adb_path(), "start-server"], check=True, capture_output=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMG_", "OPENAI_"))}
    proc = subprocess.Popen(
        [sys.executable, "-m", "omg_agent.cli", "bench", "suite", "--model", "sim",
         "--tasks", "feed,settings", "--parallel", "2",
         "--out", str(tmp_path / "suite")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        cwd=tmp_path, env=env, start_new_session=True)
    assert proc.stdout is not None
    eof = threading.Event()
    lines: list[bytes] = []

    def read_to_eof() -> None:
        for line in proc.stdout:
            lines.append(line)
        eof.set()

    reader = threading.Thread(target=read_to_eof, daemon=True)
    reader.start()
    try:
        # a run has finished (the header, then a line per run on stderr, which shares the
        # pipe): the workers are past their start-up, at work
        _until(lambda: any(line.startswith(b"[1/") for line in lines)
               and len(_children(proc.pid)) >= 3, 240,
               "the suite's workers finished a run")
        os.kill(proc.pid, sig)
        proc.wait(timeout=DEADLINE_S)
        _until(lambda: not _group(proc.pid), DEADLINE_S,
               f"the suite's group emptied (left: {_described(_group(proc.pid))})")
        _until(eof.is_set, DEADLINE_S, "its stdout reader got EOF")
    finally:
        proc.stdout.close()
        for pid in _group(proc.pid):  # whatever a failed run left behind
            os.kill(pid, signal.SIGKILL)
