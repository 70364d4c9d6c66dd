"""``run --resume RUN_DIR --answer``: a suite task that asks the user, started without a TTY
(exit 3, state saved), finished by a second process with the answer — same plan, memory,
step count and trace. The expert double answers over HTTP; the phone is a vphone on adb."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from omg_agent.bench.suite import select, suite_tasks
from omg_agent.sim.expert.policy import ExpertPolicy
from omg_agent.sim.model_double import ModelDouble

BLANK = {"OMG_API_KEY": "", "OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "OMG_CONFIG": "",
         "OMG_PLANNER_MODEL": "", "OMG_OPERATOR_MODEL": ""}


def omg(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "omg_agent.cli", *args], env=env, cwd=cwd,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=240, check=False)


def test_an_ask_user_task_resumes_with_the_answer_and_one_step_count(vphone,
                                                                     tmp_path: Path) -> None:
    task = select(suite_tasks(0), "notes.ask_body")[0]
    task.setup(vphone.phone)
    with ModelDouble(ExpertPolicy(task, vphone.phone)) as double:
        env = {**os.environ, **BLANK, "OMG_MODEL": "double", "OMG_BASE_URL": double.base_url}
        common = ["--device", vphone.serial, "--driver", "adb", "--json"]
        first = omg("run", task.goal, *common, "--runs-dir", str(tmp_path / "runs"),
                    env=env, cwd=tmp_path)
        assert first.returncode == 3, first.stderr
        stopped = json.loads(first.stdout.strip().splitlines()[-1])
        run_dir = Path(stopped["run_dir"])
        assert stopped["status"] == "ask_user" and stopped["question"]
        assert (run_dir / "state.json").is_file() and not task.check(vphone.phone)

        second = omg("run", "--resume", str(run_dir), "--answer",
                     task.answer_user(stopped["question"]) or "", *common, env=env,
                     cwd=tmp_path)
    assert second.returncode == 0, second.stderr + second.stdout
    done = json.loads(second.stdout.strip().splitlines()[-1])
    assert done["status"] == "done" and task.check(vphone.phone)
    assert done["steps_used"] > stopped["steps_used"]  # counted on from the first process
    assert done["model_calls"] > stopped["model_calls"]
    steps = [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]
    numbers = [r["step"] for r in steps if r["record"] == "step"]
    assert numbers == sorted(numbers) and len(numbers) == len(set(numbers))
    assert any(r.get("kind") == "resume" for r in steps)


def test_resume_without_a_saved_state_says_what_can_be_resumed(tmp_path: Path) -> None:
    env = {**os.environ, **BLANK, "OMG_MODEL": "m", "OMG_BASE_URL": "http://127.0.0.1:9/v1"}
    out = omg("run", "--resume", str(tmp_path), "--answer", "yes", env=env, cwd=tmp_path)
    assert out.returncode == 1 and "no resumable run" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
