"""``omg-agent run`` killed with SIGKILL mid-run at 6 seeded points (a model request, or a
number of trace lines), then ``omg-agent run --resume RUN_DIR``: every store stays readable
and at least 95% of the killed runs finish the task — read from the phone, never from the
agent's claim. The run is a real CLI process on a vphone behind the real adb server; the
expert double answers over HTTP (one action per reply, so a run has ~15 steps to land in).
The 200-point figure comes from ``scripts/bench_durability.py``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from omg_agent.bench.durability import (
    KillingPolicy,
    as_at_a_terminal,
    cli_env,
    kill_and_resume,
    omg,
)

POINTS = 6  # the CI size (20 until the suite outgrew its 15 minutes)


@pytest.mark.slow
@pytest.mark.timeout(1800)  # minutes of real runs; slower on a busy machine
def test_runs_killed_at_6_points_resume_to_done(vphone, tmp_path: Path) -> None:
    trials = [kill_and_resume(vphone.phone, vphone.serial, seed, tmp_path, posts=5)
              for seed in range(POINTS)]
    killed = [t for t in trials if t.killed]
    assert len(killed) >= POINTS * 3 // 4, trials  # the kill points land inside the runs
    assert all(t.stores_ok for t in killed), [t for t in killed if not t.stores_ok]
    completed = [t for t in killed if t.completed]
    assert len(completed) >= 0.95 * len(killed), [t for t in killed if not t.completed]
    # the step count goes on from the checkpoint, it does not restart
    assert all(t.steps_total >= t.steps_at_kill for t in completed)


def test_a_finished_run_says_there_is_nothing_to_resume(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "state.json").write_text(json.dumps({"version": 1, "phase": "DONE"}))
    out = omg("run", "--resume", str(run_dir), env={**cli_env("http://127.0.0.1:9/v1"),
                                                    "OMG_MODEL": "m"}, cwd=tmp_path)
    # its result again, with its status's exit code (issue 38: not 1, "start the task again")
    assert out.returncode == 0 and "already ended" in out.stderr, out.stderr
    assert "nothing was done again" in out.stderr and "task again" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_an_answer_to_an_interrupted_run_is_refused_plainly(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    state = {"version": 1, "task": "t", "phase": "THINK", "predefined": False, "goal": "t",
             "todo": [], "budget": {"limit": 10, "used": 3, "counts": {}},
             "dialogue": {"pending": None, "answers": []}, "records": [], "retried": [],
             "jumps": {}, "checkpoint": "", "outcome": "", "held": None, "plan_repeats": 0,
             "post_mortems": [], "memory": {}, "turns": 2, "usage": [2, 0, 0],
             "device": "emulator-5554"}
    (run_dir / "state.json").write_text(json.dumps(state))
    env = {**cli_env("http://127.0.0.1:9/v1"), "OMG_MODEL": "m"}
    out = omg("run", "--resume", str(run_dir), "--answer", "yes", env=env, cwd=tmp_path)
    assert out.returncode == 1 and "resume it without --answer" in out.stderr, out.stderr
    assert os.path.exists(run_dir / "state.json")


def test_ctrl_c_ends_interrupted_with_the_resume_command_and_resume_finishes(
        vphone, tmp_path: Path) -> None:
    from omg_agent.bench.suite.social_tasks import LikeSet
    from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
    from omg_agent.sim.model_double import ModelDouble

    task = LikeSet(posts=[1, 2, 3])
    task.setup(vphone.phone)
    policy = KillingPolicy(ExpertPolicy(task, vphone.phone, NoiseProfile(bundling="single")),
                           at=3, sig=signal.SIGINT)
    with ModelDouble(policy) as double:
        env = cli_env(double.base_url)
        proc = subprocess.Popen(
            [sys.executable, "-m", "omg_agent.cli", "run", task.goal, "--device",
             vphone.serial, "--driver", "adb", "--json", "--runs-dir", str(tmp_path / "runs")],
            env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, preexec_fn=as_at_a_terminal)
        policy.proc = proc
        out, err = proc.communicate(timeout=240)
        assert proc.returncode == 130, (err, out[-600:])  # what the run said, if not stopped
        stopped = json.loads(out.strip().splitlines()[-1])
        run_dir = Path(stopped["run_dir"])
        assert stopped["status"] == "interrupted" and "KeyboardInterrupt" not in out + err
        assert f"omg-agent run --resume {run_dir}" in stopped["next_hint"]
        assert f"--resume {run_dir}" in err  # said on the terminal too
        result = json.loads((run_dir / "result.json").read_text())
        assert result["status"] == "interrupted"
        second = omg("run", "--resume", str(run_dir), "--json", env=env, cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    done = json.loads(second.stdout.strip().splitlines()[-1])
    assert done["status"] == "done" and task.check(vphone.phone)
    assert done["steps_used"] >= stopped["steps_used"] - 1  # the turn in flight is redone


class _FailsAt:
    """The expert double, whose ``at``-th request fails with HTTP 503 (the run retries it
    after a backoff)."""

    def __init__(self, inner: Any, at: int) -> None:
        self.inner, self.at, self.seen = inner, at, 0

    def reply(self, request: dict[str, Any]) -> Any:
        self.seen += 1
        if self.seen == self.at:
            return {"status": 503, "body": {"error": {"message": "busy"}}}
        return self.inner.reply(request)


def test_ctrl_c_during_a_retry_backoff_ends_interrupted_without_the_retry(
        vphone, tmp_path: Path) -> None:
    from omg_agent.bench.suite.social_tasks import LikeSet
    from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
    from omg_agent.sim.model_double import ModelDouble

    task = LikeSet(posts=[1, 2, 3])
    task.setup(vphone.phone)
    policy = _FailsAt(ExpertPolicy(task, vphone.phone, NoiseProfile(bundling="single")), at=3)
    with ModelDouble(policy) as double:
        env = {**cli_env(double.base_url), "OMG_RETRY_BACKOFF_S": "60",
               "OMG_RETRY_BACKOFF_MAX_S": "60"}  # the run waits 30-60 s before its retry
        proc = subprocess.Popen(
            [sys.executable, "-m", "omg_agent.cli", "run", task.goal, "--device",
             vphone.serial, "--driver", "adb", "--json", "--runs-dir", str(tmp_path / "runs")],
            env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, preexec_fn=as_at_a_terminal)
        assert proc.stderr is not None
        said = next((line for line in iter(proc.stderr.readline, "") if "retry 1/" in line),
                    "")
        assert said, "the run never announced its retry"  # it does just before the wait
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (err, out[-600:])
    stopped = json.loads(out.strip().splitlines()[-1])
    assert stopped["status"] == "interrupted" and policy.seen == 3  # the retry never went
    assert f"omg-agent run --resume {stopped['run_dir']}" in stopped["next_hint"]
