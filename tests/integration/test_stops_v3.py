"""Every stop is reported (issue 38 items 3, 4, 5): a real ``omg-agent run`` process on a
vphone behind the real adb server, the expert double (or a tiny proxy in front of it) over
real HTTP; what was done is read from the phone.

- SIGTERM and SIGHUP, sent from inside the model double while the run waits for its N-th
  reply (after it has liked posts: no sleep, the signal lands at a known point), end the run
  like Ctrl-C: exit 130, JSON on stdout, ``result.json`` ``interrupted``, the stop report
  counting the likes; resuming goes on to done, and resuming the finished run again prints
  its result with exit 0 and touches nothing.
- A 200 reply whose body is cut or empty is retried; when every reply is cut the run ends
  ``failed`` with one line, its JSON on stdout — never a traceback.
- A task whose bytes do not decode in the locale (a strict C locale, UTF-8 typed) is refused
  in one line before any run folder is written.
- A memory store on a disk that refuses it (a full tmpfs, a read-only mount) is a one-line
  refusal with exit 10 before any state exists, not a device error.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from omg_agent.bench.diskfull import can_mount, fill, likes_counted, small_disk
from omg_agent.bench.durability import KillingPolicy, as_at_a_terminal, cli_env, omg
from omg_agent.bench.stops import CuttingProxy

FEED = "com.omg.feed"
CAN_MOUNT = can_mount()


def _likes(phone: Any) -> list[int]:
    return list(phone.apps[FEED].like_log)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_sigterm_and_sighup_end_a_run_interrupted_reported_and_resumable(
        vphone, tmp_path: Path, sig: signal.Signals) -> None:
    from omg_agent.bench.suite.social_tasks import LikeSet
    from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
    from omg_agent.sim.model_double import ModelDouble

    vphone.phone.clear_app(FEED)
    vphone.phone.go_home()
    task = LikeSet(posts=[1, 2])
    task.setup(vphone.phone)
    policy = KillingPolicy(ExpertPolicy(task, vphone.phone, NoiseProfile(bundling="single")),
                           at=3, sig=sig)
    with ModelDouble(policy) as double:
        env = cli_env(double.base_url)
        proc = subprocess.Popen(
            [sys.executable, "-m", "omg_agent.cli", "run", task.goal, "--device",
             vphone.serial, "--driver", "adb", "--json", "--no-cache", "--runs-dir",
             str(tmp_path / "runs")], env=env, cwd=tmp_path, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=as_at_a_terminal)
        policy.proc = proc
        out, err = proc.communicate(timeout=120)
        liked = _likes(vphone.phone)
        assert proc.returncode == 130, (proc.returncode, err[-800:])
        stopped = json.loads(out.strip().splitlines()[-1])  # the JSON reached stdout
        run_dir = Path(stopped["run_dir"])
        assert stopped["status"] == "interrupted" and "Traceback" not in err
        assert liked and likes_counted(stopped["done"]) == len(liked)  # acted, and counted
        result = json.loads((run_dir / "result.json").read_text())
        assert result["status"] == "interrupted"
        assert sig.name in result["summary"]["stop_report"]  # the stop report names it
        assert f"--resume {run_dir}" in err
        if sig == signal.SIGHUP:  # the same path as SIGTERM from here on
            return
        elsewhere = tmp_path / "elsewhere"  # resumed from another folder: the run's own
        elsewhere.mkdir()                   # runs folder holds everything it keeps
        second = omg("run", "--resume", str(run_dir), "--json", env=env, cwd=elsewhere)
        assert second.returncode == 0, second.stderr[-800:]
        assert task.check(vphone.phone)
        assert not (elsewhere / "runs").exists()  # no memory bank opened in ./runs
        assert (run_dir.parent / "memory.sqlite").exists()
        # a supervisor that lost the exit code asks again: the result, nothing done again
        before = _likes(vphone.phone)
        third = omg("run", "--resume", str(run_dir), "--json", env=env, cwd=tmp_path)
    assert third.returncode == 0, third.stderr
    again = json.loads(third.stdout.strip().splitlines()[-1])
    assert again["status"] == "done" and again["already_ended"] is True
    assert "task again" not in third.stderr and _likes(vphone.phone) == before


def _fast_retries(env: dict[str, str]) -> dict[str, str]:
    return {**env, "OMG_MAX_RETRIES": "2", "OMG_RETRY_BACKOFF_S": "0.05",
            "OMG_RETRY_BACKOFF_MAX_S": "0.1"}


def test_cut_and_empty_200_replies_are_retried_and_the_run_finishes(
        vphone, tmp_path: Path) -> None:
    from omg_agent.bench.suite.social_tasks import LikeSet
    from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
    from omg_agent.sim.model_double import ModelDouble

    vphone.phone.clear_app(FEED)
    vphone.phone.go_home()
    task = LikeSet(posts=[1])
    task.setup(vphone.phone)
    policy = ExpertPolicy(task, vphone.phone, NoiseProfile(bundling="single"))
    with ModelDouble(policy) as d, CuttingProxy(d.base_url, {2, 3}, "mixed") as url:
        out = omg("run", task.goal, "--device", vphone.serial, "--driver", "adb", "--json",
                  "--no-cache", "--runs-dir", str(tmp_path / "runs"),
                  env=_fast_retries(cli_env(url)), cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-800:]
    assert json.loads(out.stdout)["status"] == "done" and task.check(vphone.phone)
    assert len(_likes(vphone.phone)) == 1  # no retry repeated an action


def test_a_model_whose_replies_are_all_cut_fails_in_one_line_with_json(
        vphone, tmp_path: Path) -> None:
    with CuttingProxy("http://127.0.0.1:9", set(), "all-cut") as url:
        out = omg("run", "open Settings", "--device", vphone.serial, "--driver", "adb",
                  "--json", "--no-cache", "--runs-dir", str(tmp_path / "runs"),
                  env=_fast_retries(cli_env(url)), cwd=tmp_path)
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr[-800:]
    said = json.loads(out.stdout)  # JSON on stdout, as for any other ending
    assert said["status"] == "failed" and "body" in said["stopped_because"]
    result = json.loads((Path(said["run_dir"]) / "result.json").read_text())
    assert result["status"] == "failed"  # a documented status, not "error"


def _strict_c_locale(env: dict[str, str]) -> dict[str, str]:
    """A strict C locale: Python's UTF-8 mode and locale coercion off, so bytes that are not
    ASCII reach the program as lone surrogates (as on a GBK terminal sent UTF-8)."""
    return {**env, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}


def test_a_task_that_does_not_decode_in_the_locale_is_refused_before_anything_is_written(
        tmp_path: Path) -> None:
    env = _strict_c_locale({**cli_env("http://127.0.0.1:9/v1"), "OMG_MODEL": "m"})
    out = omg("run", "打开设置，关闭蓝牙", "--json", "--runs-dir", str(tmp_path / "runs"),
              env=env, cwd=tmp_path)
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr[-800:]
    said = out.stderr.strip().splitlines()
    assert len(said) == 1 and "not text in this terminal's encoding" in said[0], said
    assert not (tmp_path / "runs").exists()  # nothing written
    run_dir = tmp_path / "waiting"
    run_dir.mkdir()
    answer = omg("run", "--resume", str(run_dir), "--answer", "是", env=env, cwd=tmp_path)
    assert answer.returncode == 2 and "the answer holds bytes" in answer.stderr, answer.stderr


def test_a_currency_the_terminal_cannot_encode_is_spelled_and_json_keeps_it(
        tmp_path: Path) -> None:
    env = _strict_c_locale({**os.environ, "PYTHONPATH": cli_env("x")["PYTHONPATH"]})
    code = ("from omg_agent.cli.console import console, safe_streams, print_json\n"
            "safe_streams(); console.print('price: \\u00a512')\n"
            "print_json({'answer': '\\u00a512'})")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         check=False, cwd=tmp_path)
    lines = out.stdout.decode("ascii").splitlines()
    assert lines[0] == "price: CNY12", out
    assert json.loads(lines[1])["answer"] == "¥12"


@pytest.mark.skipif(not CAN_MOUNT, reason="mounting a tmpfs is not permitted here; the "
                    "memory store's disk errors are then covered by unit tests only")
@pytest.mark.parametrize("fault", ["ENOSPC", "EROFS"])
def test_a_memory_store_the_disk_refuses_is_a_one_line_refusal_not_a_device_error(
        vphone, tmp_path: Path, fault: str) -> None:
    store = tmp_path / "store"
    with small_disk(store, 64):
        if fault == "ENOSPC":
            fill(store)  # the disk is full before the run
        else:
            subprocess.run(["mount", "-o", "remount,ro", str(store)], check=True)
        env = {**cli_env("http://127.0.0.1:9/v1"), "OMG_MODEL": "m",
               "OMG_MEMORY_DB": str(store / "memory.sqlite")}
        out = omg("run", "open Settings", "--device", vphone.serial, "--driver", "adb",
                  "--json", "--no-cache", "--runs-dir", str(tmp_path / "runs"), env=env,
                  cwd=tmp_path)
    said = out.stderr.strip().splitlines()
    assert out.returncode == 10, out.stderr[-800:]  # nothing to resume: not exit 8
    assert len(said) == 1 and "DEVICE_ERROR" not in out.stderr and "Traceback" not in said[0]
    assert "memory.sqlite" in said[0] and "nothing was done" in said[0], said
