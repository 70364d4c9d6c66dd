"""Disk trouble is an outcome (issue 25): ``omg-agent run`` with its runs folder on a small
tmpfs, or its run folder deleted mid-run. A real CLI process on a vphone behind the real adb
server, the expert double over HTTP; what was done is read from the phone's like log.

The tmpfs needs root (``mount -t tmpfs``); the tests skip where mounting is not allowed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from omg_agent.bench.diskfull import DISK_EXIT, can_mount, disk_full_trial, likes_counted
from omg_agent.bench.durability import cli_env, omg

needs_mount = pytest.mark.skipif(not can_mount(), reason="mounting a tmpfs is not permitted")


@needs_mount
@pytest.mark.timeout(600)
def test_a_full_disk_stops_interrupted_counting_the_likes_and_resume_finishes(
        vphone, tmp_path: Path) -> None:
    # 1 MiB fills after a few turns' screenshots (the default phone's, ~70 KiB a turn)
    trial = disk_full_trial(vphone.phone, vphone.serial, 1000, tmp_path)
    assert (trial.exit_first, trial.status_first) == (DISK_EXIT, "interrupted"), trial
    assert trial.stderr_lines == 1, trial  # one line: what the disk refused, how to go on
    assert trial.liked_first >= 1, trial  # the disk filled mid-run, after likes had landed
    assert trial.counted_first == trial.liked_first, trial  # each one is in the result
    assert trial.resumed and (trial.exit_last, trial.status_last) == (0, "done"), trial
    assert trial.completed and trial.duplicates == 0, trial
    assert not trial.truncated_report, trial


@needs_mount
@pytest.mark.timeout(600)
def test_a_report_that_does_not_fit_is_not_left_truncated_nor_announced(
        vphone, tmp_path: Path) -> None:
    # 2.6 MB: every like and the trace fit, the report (its screenshots inlined) does not
    trial = disk_full_trial(vphone.phone, vphone.serial, 2600, tmp_path)
    assert (trial.exit_first, trial.status_first) == (0, "done"), trial
    assert trial.completed and not trial.truncated_report, trial
    assert not trial.report_announced, trial  # no path printed for a page not written


class _DeletesRunFolder:
    """The expert double, which deletes the run's folder before answering its ``at``-th
    request (a user cleaning up, a tmp reaper)."""

    def __init__(self, inner: Any, runs: Path, at: int) -> None:
        self.inner, self.runs, self.at, self.seen = inner, runs, at, 0

    def reply(self, request: dict[str, Any]) -> Any:
        self.seen += 1
        if self.seen == self.at:
            for folder in self.runs.iterdir():
                if (folder / "trace.jsonl").exists():
                    shutil.rmtree(folder)
        return self.inner.reply(request)


def test_a_run_folder_deleted_mid_run_stops_cleanly_with_what_was_done(
        vphone, tmp_path: Path) -> None:
    from omg_agent.bench.suite.social_tasks import LikeSet
    from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
    from omg_agent.sim.model_double import ModelDouble

    task = LikeSet(posts=list(range(1, 11)))
    task.setup(vphone.phone)
    runs = tmp_path / "runs"
    runs.mkdir()
    policy = _DeletesRunFolder(ExpertPolicy(task, vphone.phone,
                                            NoiseProfile(bundling="single")), runs, at=4)
    with ModelDouble(policy) as double:
        out = omg("run", task.goal, "--device", vphone.serial, "--driver", "adb", "--json",
                  "--no-cache", "--runs-dir", str(runs), env=cli_env(double.base_url),
                  cwd=tmp_path)
    assert out.returncode == DISK_EXIT, out.stderr[-800:]
    said = out.stderr.strip().splitlines()
    assert len(said) == 1 and "was deleted" in said[0], said
    result = json.loads(out.stdout)  # the result reaches stdout with no folder to hold it
    assert result["status"] == "interrupted"
    liked = len(vphone.phone.apps["com.omg.feed"].like_log)
    assert liked >= 1 and likes_counted(result["done"]) == liked, (liked, result["done"])
    assert "look at the phone" in result["next_hint"]  # never "run the task again" (issue 38)
