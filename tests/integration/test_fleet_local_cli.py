"""``omg-agent fleet run`` without Ray: the local pool runs a TASKS.yaml's suite tasks on
vphone slots and writes fleet.json; a bad task file is one line and exit 1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

OMG = [sys.executable, "-m", "omg_agent.cli"]


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("OMG_", "OPENAI_"))}


def _fleet(tmp_path: Path, text: str, *args: str) -> subprocess.CompletedProcess[str]:
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(text, encoding="utf-8")
    return subprocess.run([*OMG, "fleet", "run", str(tasks), *args], capture_output=True,
                          text=True, timeout=240, env=_env(), cwd=tmp_path,
                          stdin=subprocess.DEVNULL)


def test_the_local_pool_runs_suite_tasks_on_vphone_slots_and_gathers_results(
        tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = _fleet(tmp_path, "model: sim\ntasks:\n  - suite: feed.comment\n"
                  "  - suite: settings.missing_option.zh\n  - suite: notes.delete_missing\n",
                  "--vphones", "2", "--json", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    records = json.loads(proc.stdout)
    assert [r["task_id"] for r in records] == ["feed.comment", "settings.missing_option.zh",
                                               "notes.delete_missing"]
    assert all(r["success"] and r["device"] in ("vphone-1", "vphone-2") for r in records)
    assert {r["device"] for r in records} == {"vphone-1", "vphone-2"}
    for r in records:
        assert (out / r["trace_dir"] / "trace.jsonl").is_file()
    saved = json.loads((out / "fleet.json").read_text(encoding="utf-8"))
    assert saved["backend"] == "local" and len(saved["records"]) == 3
    index = (out / "index.html").read_text(encoding="utf-8")  # every run's report linked
    for r in records:
        assert r["report"] and (out / r["report"]).is_file()
        assert f'href="{r["report"]}"' in index


def test_a_bad_task_file_is_one_line_naming_what_is_accepted(tmp_path: Path) -> None:
    proc = _fleet(tmp_path, "tasks:\n  - suite: feed.comment\n    colour: red\n",
                  "--vphones", "1")
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "tasks.0.colour" in lines[0] and "accepted:" in lines[0]


def test_a_goal_on_the_double_is_refused_before_anything_runs(tmp_path: Path) -> None:
    proc = _fleet(tmp_path, "model: sim\ntasks:\n  - id: w\n    goal: Turn off Wi-Fi\n",
                  "--vphones", "1")
    assert proc.returncode == 1
    assert "tasks: w: a goal needs a model" in proc.stderr
    assert "omg-agent sim serve" in proc.stderr


# the planner confirms from the launcher it was shown, naming an element there: a step that
# reads a value (data_output) — honest done takes a screen the run did not change as proof
# only of what was read there, never of a change
CONFIRMED = json.dumps({"status": "done", "response": "the screen was looked at",
                        "evidence": [{"kind": "element", "text": "Settings"}]})
LOOK = [json.dumps({"goal": "look", "steps": [
            {"description": "Look at the screen", "success_criteria": "anything",
             "data_output": "screen"}]}),
        json.dumps({"thought": "read it", "last_action_result": "none", "execute_now": {
                        "intent": "save what the screen shows", "actions": [
                            {"type": "mem_save", "key": "screen", "value": "Settings"}]}}),
        json.dumps({"thought": "done", "last_action_result": "success", "goal_complete": True,
                    "answer": "looked"}),
        CONFIRMED]


def test_a_goal_goes_to_the_phone_with_the_profile_and_app_it_needs(
        vphone, tmp_path: Path) -> None:
    """The phone is named on its adb server by host and port (as a remote one would be)."""
    from omg_agent.sim.model_double import ModelDouble
    from omg_agent.vphone.faults import default_adb_port

    device = f"{vphone.serial}@127.0.0.1:{default_adb_port()}"
    model = vphone.device.prop.model
    out = tmp_path / "out"
    text = ("tasks:\n"
            f"  - id: look\n    goal: look at the screen\n    profile: {model}\n"
            "    app: com.android.settings\n"
            "  - id: shopless\n    goal: look at the screen\n    app: com.example.none\n")
    with ModelDouble(LOOK) as double:
        env = {**_env(), "OMG_MODEL": "double", "OMG_BASE_URL": double.base_url,
               "OMG_PLANNING": "adaptive"}
        tasks = tmp_path / "tasks.yaml"

        def fleet(text: str) -> subprocess.CompletedProcess[str]:
            tasks.write_text(text, encoding="utf-8")
            return subprocess.run([*OMG, "fleet", "run", str(tasks), "--device", device,
                                   "--json", "--out", str(out)], capture_output=True,
                                  text=True, timeout=240, env=env, cwd=tmp_path,
                                  stdin=subprocess.DEVNULL)

        # a task no device fits stops the fleet before anything runs, naming it (issue 37)
        refused = fleet(text)
        assert refused.returncode == 1 and not refused.stdout
        assert refused.stderr.strip().splitlines() == [
            f"error: tasks: shopless: needs a phone with app 'com.example.none'; the pool's "
            f"phones: {device} ({model})"]
        assert not (out / "runs").exists() and double.requests == []
        proc = fleet(text.split("  - id: shopless")[0])
    assert proc.returncode == 0, proc.stderr
    (look,) = json.loads(proc.stdout)
    assert (look["success"], look["status"], look["device"]) == (True, "done", device)
    assert (out / look["trace_dir"] / "trace.jsonl").is_file()


def test_fleet_resources_names_a_remote_adb_servers_phones_and_the_vphone_slots(
        vphone) -> None:
    from omg_agent.vphone.faults import default_adb_port

    port = default_adb_port()
    proc = subprocess.run([*OMG, "fleet", "resources", "--adb-host", "127.0.0.1", "--adb-port",
                           str(port),
                           "--vphones", "2"], capture_output=True, text=True, timeout=60,
                          env=_env(), stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    offered = json.loads(proc.stdout)
    assert offered[f"omg-device:{vphone.serial}@127.0.0.1:{port}"] == 1
    assert offered["omg-device:vphone-1"] == offered["omg-device:vphone-2"] == 1
