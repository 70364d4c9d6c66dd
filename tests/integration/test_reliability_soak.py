"""Seeded runs of a 10-step vphone task with random device faults (issue 12, Done means):
>= 95% complete (read from the phone), the rest end with a stated reason, no phantom step,
no unreadable store, no leaked password. CI runs 32 (the issue's 100 is
``scripts/bench_reliability.py``; the suite outgrew its 15 minutes).

The task: "Like the first 10 posts in Feed" (the expert double; 10 likes per run, read from
the phone — a turn may like several posts, so budget steps can be fewer). Each
run draws 1–2 faults from a seeded schedule — drop, offline, adb server kill, app crash,
ANR, screen off (locked; half of them with a password the simulated user gives) — fired on
timers 0.3–3 s into the run. Offline spells are 0.3–0.8 s here instead of the issue's 3–8 s
(a tenth, to keep the runs within minutes); ``scripts/bench_reliability.py`` runs the real
3–8 s. Every run has its own vphone; four runs go at a time, each worker on its own adb
server, so killing one touches no other run and no other test.
"""

from __future__ import annotations

from collections import Counter

import pytest

from omg_agent.bench.reliability import KINDS, SoakConfig, soak

RUNS = 32


@pytest.mark.faults
def test_seeded_runs_with_random_faults_complete_or_stop_with_a_reason() -> None:
    cfg = SoakConfig(runs=RUNS, seed=0, offline_s=(0.3, 0.8))
    runs = soak(cfg, workers=4)
    assert [r.harness_error for r in runs if r.harness_error] == []
    fired = Counter(kind for r in runs for kind in r.fired)
    assert set(fired) == set(KINDS), fired  # every kind of fault really happened
    assert sum(fired.values()) >= RUNS
    completed = [r for r in runs if r.success]
    assert len(completed) >= 0.95 * RUNS, [(r.index, r.fired, r.reason) for r in runs
                                           if not r.success]
    assert all(r.steps >= 1 for r in completed)  # the agent did it: no shortcut, no cache
    assert [r.index for r in runs if not r.stated] == []  # the rest say why they stopped
    assert [r.index for r in runs if r.phantom] == []  # the phone shows only the task's likes
    assert [r.index for r in runs if not r.stores_ok] == []
    assert [r.index for r in runs if r.leaked] == []
    assert sum(r.pin_asks for r in runs) >= 1  # a password was typed: the leak check bit
