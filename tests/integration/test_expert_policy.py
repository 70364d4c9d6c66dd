"""The expert policy end to end: every task's check fails on a fresh phone and passes after
a run through the real openai client, the model double, the adb server and the vphone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from omg_agent.bench.calls import table
from omg_agent.sim.expert import NoiseProfile, bench_tasks, task_for_goal
from omg_agent.sim.expert.runner import TaskRun, run_task, vphone_on_adb
from omg_agent.sim.expert.screen import parse_line
from omg_agent.sim.expert.tasks import ShopPriceToNotes

TASKS = bench_tasks()


@pytest.mark.parametrize("task", TASKS, ids=[t.goal[:30] for t in TASKS])
def test_each_task_fails_untouched_and_passes_after_the_expert(task) -> None:
    with vphone_on_adb(seed=3) as (phone, _serial):
        task.setup(phone)
        assert not task.check(phone)
    run = run_task(task, NoiseProfile.named("none", "multi"), seed=3)
    assert run.success and run.status == "done", run
    assert run.model_calls <= 12


def test_a_wrong_remembered_price_does_not_matter_when_saved_from_the_screen() -> None:
    task = ShopPriceToNotes()
    noise = NoiseProfile(wrong_memory_rate=1.0, bundling="single")
    run = run_task(task, noise, seed=7)
    assert run.success, run


def test_goals_are_recognised_from_text() -> None:
    assert task_for_goal("turn OFF wifi").check is not None  # type: ignore[union-attr]
    note = task_for_goal("Create a note titled Trip with body pack the tent")
    assert (note.title, note.body) == ("Trip", "pack the tent")  # type: ignore[union-attr]
    assert task_for_goal("Find the price of Unobtainium in Shop and save it in Notes") is None
    assert task_for_goal("order a pizza") is None


def test_element_lines_parse_back() -> None:
    e = parse_line('[7] button "Add to cart" +"¥99" desc="cart" res=add_btn @512,880 '
                   '{clickable,focused}')
    assert e is not None and (e.id, e.role, e.text, e.desc, e.res) == (
        7, "button", "Add to cart", "cart", "add_btn")
    assert (e.x, e.y) == (512, 880) and "focused" in e.flags


def test_the_table_shows_calls_by_role_and_tokens_per_mode_and_vision() -> None:
    flat = TaskRun("Turn off Wi-Fi", True, "done", 10, 12, 12_000, 100, tokens_cached=8_064)
    seen = TaskRun("Turn off Wi-Fi", True, "done", 4, 6, 6_000, 40, planner_calls=1,
                   tokens_cached=2_048, confirm_calls=1)
    blind = TaskRun("Turn off Wi-Fi", True, "done", 4, 6, 3_000, 40, planner_calls=1,
                    tokens_cached=2_048, confirm_calls=1)
    out = table([{("flat", "always"): flat, ("flat", "never"): flat,
                  ("adaptive", "always"): seen, ("adaptive", "never"): blind}],
                "moderate", 0, counted_with="characters / 4")
    assert ("| Turn off Wi-Fi | adaptive | ✔ | 4 (1+3), 1 conf. | 6.0k / 40 / 2.0k | ✔ | "
            "4 (1+3), 1 conf. | 3.0k / 40 / 2.0k |") in out
    assert "| Turn off Wi-Fi | flat | ✔ | 10 (0+10) | 12.0k / 100 / 8.1k |" in out
    assert "Calls against flat (vision always): adaptive 0.40×." in out
    assert "Input tokens against vision always (adaptive): never 0.50×." in out
    assert "Tokens counted with characters / 4" in out
    assert "--modes flat,adaptive" in out and "--vision always,never" in out


def test_run_model_sim_turns_off_wifi(tmp_path) -> None:
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "omg-agent"), "run", "--model", "sim", "Turn off Wi-Fi",
         "--json", "--runs-dir", str(tmp_path / "runs")],
        capture_output=True, text=True, timeout=60, cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["status"] == "done"
    assert "SIMULATED model" in proc.stderr and "OMG_MODEL" in proc.stderr
