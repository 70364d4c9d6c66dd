"""Five viewers for 30 s on a changing vphone screen (issue 16 asked 60 s; CI runs 30 since the
suite outgrew its 15 minutes): every viewer receives frames
all along, and the server's memory stays under a stated bound.

The server is ``omg-agent mirror`` in its own process (the vphone stays in this one), so its
resident memory (RSS, from /proc, sampled every second) is its own. It runs with glibc's
mmap threshold fixed at 1 MB: freed ~10 MB adb screenshot buffers then go back to the
system, so RSS shows what is alive rather than the allocator's high-water mark (without it
RSS crept ~15 MB a minute while tracemalloc showed no Python-level growth). The bound:

* RSS never above ``RSS_BOUND`` = 256 MB. Measured: ~80 MB between screenshots, peaks of
  ~106 MB while one is in flight; 256 MB is more than twice the peak.
* No growth while watching: the floor (lowest sample) of the last 10 s is within
  ``RSS_GROWTH_BOUND`` = 16 MB of the floor of the second 10 s (measured: 0 MB). A mirror
  that queued frames per viewer or kept old ones would raise the floor with every frame.
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import ExitStack

import pytest

from omg_agent.bench.mirror import (  # the server with glibc's mmap threshold at 1 MB
    changing_screen,
    mirror_process,
)
from omg_agent.hitl.client import MirrorClient
from omg_agent.hitl.security import MAX_VIEWERS

WATCH_S = 30.0  # half the duration (the CI size)
WINDOWS = 3  # every viewer must get frames in each 10 s slice of it
RSS_BOUND = 256 * 2**20
RSS_GROWTH_BOUND = 16 * 2**20
CHANGE_EVERY_S = 0.1  # the stimulus: a character typed into a note this often


def rss(pid: int) -> int:
    with open(f"/proc/{pid}/statm", encoding="ascii") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.slow
def test_five_viewers_for_30_s_all_get_frames_and_memory_stays_bounded(vphone, tmp_path):
    phone = vphone.phone
    with mirror_process(vphone.serial, tmp_path) as (proc, url), ExitStack() as stack:
        first = MirrorClient(url)
        viewers = [first] + [MirrorClient(first.invite()) for _ in range(MAX_VIEWERS - 1)]
        sockets = [stack.enter_context(v.socket()) for v in viewers]
        for ws in sockets:  # each has its first frame
            while not isinstance(ws.recv(timeout=30), bytes):
                pass
        stack.enter_context(changing_screen(phone, every_s=CHANGE_EVERY_S))
        samples: list[tuple[float, int]] = []
        start = time.monotonic()
        arrivals: list[list[float]] = [[] for _ in sockets]

        def watch(i: int) -> None:
            while (now := time.monotonic()) < start + WATCH_S:
                try:
                    message = sockets[i].recv(timeout=start + WATCH_S - now)
                except TimeoutError:
                    return
                if isinstance(message, bytes):
                    arrivals[i].append(time.monotonic() - start)

        readers = [threading.Thread(target=watch, args=(i,)) for i in range(len(sockets))]
        for reader in readers:
            reader.start()
        while alive := [r for r in readers if r.is_alive()]:
            samples.append((time.monotonic() - start, rss(proc.pid)))
            alive[0].join(1.0)  # a sample a second
        for reader in readers:
            reader.join(5)
    slice_s = WATCH_S / WINDOWS
    for got in arrivals:
        assert {int(t // slice_s) for t in got if t < WATCH_S} == set(range(WINDOWS)), got
    second = min(m for t, m in samples if slice_s <= t < 2 * slice_s)
    last = min(m for t, m in samples if t >= WATCH_S - slice_s)
    print(f"\nframes per viewer: {[len(a) for a in arrivals]}; RSS MB "
          f"{[round(m / 2**20) for _, m in samples]}")
    assert max(m for _, m in samples) < RSS_BOUND
    assert last - second < RSS_GROWTH_BOUND
