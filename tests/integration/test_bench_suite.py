"""``omg-agent bench suite`` end to end: worker processes with their own vphones on the real
adb server, the expert double (or an OpenAI-compatible endpoint) behind the real openai
client, success read from the phone, one scorecard with a column per variant."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from omg_agent.bench.scorecard import aggregate
from omg_agent.bench.suite import select, suite_tasks
from omg_agent.bench.suite_run import SuitePlan, parse_variants, run_suite
from omg_agent.sim.model_double import ModelDouble, contract_name

OMG = Path(sys.executable).parent / "omg-agent"
VARIANTS = ["--config", "single:bundling=single", "--config", "bundles:bundling=multi"]
OUTCOME = ("success", "status", "steps", "model_calls", "tokens_in", "tokens_out",
           "setup_digest")


def _env() -> dict[str, str]:
    """This environment without any model configuration."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("OMG_", "OPENAI_"))}


def _suite(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path / "suite"
    argv = [str(OMG), "bench", "suite", *args, "--out", str(out)]
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=_env(), stdin=subprocess.DEVNULL)
    print(f"{shlex.join(argv[1:])}: {time.perf_counter() - started:.1f} s")
    return proc, out


def _ids(spec: str) -> list[str]:
    return [t.id for t in select(suite_tasks(0), spec)]


def test_two_variants_run_the_same_phones_into_one_table(tmp_path) -> None:
    tasks = "settings.wifi,notes.create"
    proc, out = _suite(tmp_path, "--model", "sim", "--noise", "none", "--tasks", tasks,
                       "--parallel", "2", *VARIANTS)
    assert proc.returncode == 0, proc.stderr
    assert "| metric | single | bundles |" in proc.stdout.splitlines()
    card = json.loads((out / "scorecard.json").read_text(encoding="utf-8"))
    runs = card["runs"]
    assert [(r["task_id"], r["variant"]) for r in runs] == [
        (t, v) for t in _ids(tasks) for v in ("single", "bundles")]
    for task_id in _ids(tasks):
        pair = [r for r in runs if r["task_id"] == task_id]
        assert pair[0]["seed"] == pair[1]["seed"]  # same seed …
        assert pair[0]["setup_digest"] == pair[1]["setup_digest"]  # … same phone after setup
    assert len({r["seed"] for r in runs}) == 2 and len({r["setup_digest"] for r in runs}) == 2
    assert all(r["success"] and not r["error"] for r in runs)
    for name, agg in card["aggregates"].items():
        assert agg == aggregate([r for r in runs if r["variant"] == name])
    for r in runs:
        assert (out / r["report"]).is_file() and (out / r["trace_dir"] / "trace.jsonl").is_file()
        assert r["turns"] > 0 and r["timings"]["model"] > 0
    html = (out / "scorecard.html").read_text(encoding="utf-8")
    assert all(f'href="{r["report"]}"' in html for r in runs)

    # The same job run here, one process, no pool: the same outcome as in the workers.
    [note] = select(suite_tasks(0), "notes.create")
    again = run_suite(SuitePlan((note,), parse_variants(["bundles:bundling=multi"]),
                                noise="none"), tmp_path / "again", parallel=1)
    worker = next(r for r in runs if r["task_id"] == note.id and r["variant"] == "bundles")
    assert [again.records[0][k] for k in OUTCOME] == [worker[k] for k in OUTCOME]


class InfeasibleModel:
    """A stand-in for a real model that finds every task impossible on this phone."""

    def reply(self, request: dict[str, Any]) -> str:
        match contract_name(request):
            case "TaskPlan":
                return json.dumps({"goal": "the task", "steps": [
                    {"description": "see whether the task can be done",
                     "success_criteria": "the answer is known"}]})
            case "Replan":
                return json.dumps({"status": "done", "response": "it cannot be done"})
        return json.dumps({"thought": "nothing here can do this", "last_action_result": "none",
                           "goal_infeasible": True, "answer": "this phone cannot do it"})


def test_a_real_endpoint_answers_and_only_the_impossible_tasks_pass(tmp_path) -> None:
    tasks = "settings.wifi,shop.not_sold,feed.comment"
    with ModelDouble(InfeasibleModel(), models=("served-model",)) as double:
        proc, out = _suite(tmp_path, "--model", double.base_url, "--tasks", tasks,
                           "--parallel", "2", "--json")
        asked = {r.body.get("model") for r in double.requests if r.path.endswith("/completions")}
    assert proc.returncode == 0, proc.stderr
    card = json.loads(proc.stdout)
    assert card == json.loads((out / "scorecard.json").read_text(encoding="utf-8"))
    assert asked == {"served-model"}  # the model the endpoint lists, found by itself
    by_id = {r["task_id"]: r for r in card["runs"]}
    assert set(by_id) == set(_ids(tasks))
    assert all(r["status"] == "infeasible" for r in by_id.values())
    impossible = {t.id for t in select(suite_tasks(0), tasks) if t.impossible}
    assert impossible and impossible != set(by_id)
    assert {i for i, r in by_id.items() if r["success"]} == impossible


@pytest.mark.parametrize(("args", "says"), [
    ((), ["No model is configured", "OMG_MODEL", "--model sim"]),
    (("--model", "sim", "--config", "x:bundle=single"), ["unknown key 'bundle'"]),
    (("--model", "sim", "--tasks", "no.such.task"), ["no.such.task"]),
])
def test_bad_setups_say_what_to_fix_before_anything_runs(tmp_path, args, says) -> None:
    proc, out = _suite(tmp_path, *args)
    assert proc.returncode == 1
    assert all(s in proc.stderr for s in says), proc.stderr
    assert not out.exists()
