"""A fleet checks its tasks before it starts (issue 37): a task no device of the pool could
run stops it in one line naming the task — before any device is asked anything when the
kind is wrong (a suite task and no vphone slot) — and its results get an index.html."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from omg_agent.cli import build_app
from omg_agent.errors import ConfigError
from omg_agent.fleet.attempt import FleetJob
from omg_agent.fleet.devices import FleetDevice
from omg_agent.fleet.index import render_index, write_index
from omg_agent.fleet.jobs import file_jobs
from omg_agent.fleet.preflight import check_jobs
from omg_agent.fleet.taskfile import parse_tasks


def _suite_jobs(tmp_path: Path) -> list[FleetJob]:
    spec = parse_tasks({"model": "sim", "tasks": [{"suite": "feed.comment"}]}, "tasks")
    return file_jobs(spec, tmp_path)


def test_a_suite_task_needs_a_vphone_slot(tmp_path: Path) -> None:
    jobs = _suite_jobs(tmp_path)
    with pytest.raises(ConfigError, match=r"^tasks: feed.comment: a suite task runs on a "
                                          r"vphone slot and the pool has none: add --vphones"):
        check_jobs(jobs, [FleetDevice("emulator-5554")], census=False)
    check_jobs(jobs, [FleetDevice("vphone-1")], census=False)


def test_a_goal_needs_a_phone_with_what_it_names() -> None:
    job = FleetJob(0, "wifi", "runs/wifi", goal="Turn off Wi-Fi", app="com.example.shop")
    with pytest.raises(ConfigError, match="tasks: wifi: a goal runs on a phone and the pool "
                                          "has none: add --device SERIAL"):
        check_jobs([job], [FleetDevice("vphone-1")])
    phone = FleetDevice("emulator-5554", profile="Pixel 7", apps=("com.android.settings",))
    check_jobs([job], [phone], census=False)  # not asked yet: its apps are unknown
    with pytest.raises(ConfigError) as refused:
        check_jobs([job], [phone])
    assert str(refused.value) == ("tasks: wifi: needs a phone with app 'com.example.shop'; "
                                  "the pool's phones: emulator-5554 (Pixel 7)")


def test_fleet_run_refuses_before_touching_a_device(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text("model: sim\ntasks:\n  - suite: feed.comment\n", encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(build_app(), ["fleet", "run", str(tasks), "--device",
                                              "127.0.0.1:1", "--out", str(out)])
    assert result.exit_code == 1
    assert "tasks: feed.comment: a suite task runs on a vphone slot" in result.output
    assert not out.exists() or not any(out.iterdir())


def test_the_index_links_every_attempts_report_and_escapes_text(tmp_path: Path) -> None:
    records = [
        {"task_id": "<b>wifi</b>", "success": True, "status": "done", "error": "",
         "attempts": [{"attempt": 1, "device": "vphone-1", "status": "failed",
                       "report": "runs/wifi/attempt-1/report.html"},
                      {"attempt": 2, "device": "vphone 2", "status": "done",
                       "report": "runs/wifi/attempt-2/report.html"}]},
        {"task_id": "shop", "success": False, "status": "error", "attempts": [],
         "error": "never started: no device (left) fits"}]
    page = render_index(records, {"done": 1, "failed": 0, "never_started": 1})
    assert "&lt;b&gt;wifi&lt;/b&gt;" in page and "<b>wifi" not in page
    assert page.count('href="runs/wifi/attempt-') == 2
    assert "attempt 2 on vphone 2: done" in page
    assert "never started" in page and "1 done, 0 failed, 1 never started of 2 tasks" in page
    path = write_index(tmp_path, records, {"done": 1, "failed": 0, "never_started": 1})
    assert path == tmp_path / "index.html" and path.read_text(encoding="utf-8") == page
