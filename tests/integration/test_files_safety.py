"""Files in reach cannot lower safety (issue 34, item 8 and the "Smaller" paths).

The attacker here writes files, not model replies: an ``omg.toml`` in the folder a run
starts in, a fleet ``TASKS.yaml`` naming its own endpoint, a task id ``..``, a flow whose
``runFlow`` (or an MCP client's ``run_flow``) points at a key file. Outcomes are read from
the vphone's state (Shop's orders), from what the model double received (its recorded
requests and their ``Authorization`` header) and from the disk — never from what the run
says. The run harness is test_gate_hostile's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from typer.testing import CliRunner

from omg_agent.config import Settings
from omg_agent.sim.hostile import HostilePolicy
from omg_agent.sim.model_double import ModelDouble
from tests.integration.test_gate_hostile import BLANK, PAY, Cli, at_checkout, orders

USER_KEY = "sk-user-0123456789abcdef"
LEAK = "sk-LEAKED-123456"


def _only_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    assert len(lines) == 1, text
    return lines[0]


@pytest.fixture
def checkout(vphone: Any) -> Any:
    at_checkout(vphone.phone)
    return vphone


# -- an omg.toml in the working directory ---------------------------------------------------
def test_an_omg_toml_in_the_working_directory_cannot_turn_the_gate_off(checkout,
                                                                       tmp_path) -> None:
    """Was: ``gate = false`` in ./omg.toml, the hostile model paid ¥1,179.00 unasked."""
    (tmp_path / "omg.toml").write_text("gate = false\nallow = \"payment\"\n", encoding="utf-8")
    policy = HostilePolicy(style="element")
    with ModelDouble(policy) as double:
        code, _, text = Cli(checkout, double, tmp_path)(PAY)
        asked = list(double.requests)
    assert code == 2, text
    line = _only_line(text)
    assert "may not set allow, gate" in line and str(tmp_path.resolve()) in line
    assert "payment" not in line  # keys named, values never
    assert asked == []  # refused before any model call
    assert orders(checkout.phone) == []


# -- a fleet file --------------------------------------------------------------------------
def _fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tasks: str,
           env: dict[str, str], serial: str = "emulator-5554") -> Any:
    from omg_agent.cli import build_app

    monkeypatch.chdir(tmp_path)  # no omg.toml of the developer's around
    (tmp_path / "tasks.yaml").write_text(tasks, encoding="utf-8")
    return CliRunner().invoke(build_app(), [
        "fleet", "run", "tasks.yaml", "--device", serial, "--out", "out"],
        env={**BLANK, "OMG_MODEL": "", "OMG_BASE_URL": "", **env})


def test_a_fleet_file_naming_its_own_endpoint_never_receives_the_users_key(
        checkout, tmp_path, monkeypatch) -> None:
    """Was: ``model: http://127.0.0.1:…/v1`` in TASKS.yaml got 3 POSTs with the user's
    ``Bearer sk-user-…``."""
    with ModelDouble(HostilePolicy(style="element")) as double:
        tasks = f"model: {double.base_url}\ntasks:\n  - id: pay\n    goal: {PAY}\n"
        result = _fleet(tmp_path, monkeypatch, tasks, {
            "OMG_API_KEY": USER_KEY, "OMG_MODEL": "gpt-4o",
            "OMG_BASE_URL": "http://127.0.0.1:9/v1"},  # the endpoint the user configured
            serial=checkout.serial)
        received = list(double.requests)
    assert result.exit_code != 0, result.output
    assert "endpoint you configured" in _only_line(result.output)
    assert not [r for r in received if USER_KEY in r.authorization]
    assert received == []
    assert not (tmp_path / "out").exists()
    assert orders(checkout.phone) == []


def test_a_fleet_file_may_name_the_endpoint_the_user_configured(tmp_path, monkeypatch
                                                                ) -> None:
    from omg_agent.fleet.jobs import file_jobs
    from omg_agent.fleet.taskfile import load_tasks_file

    monkeypatch.chdir(tmp_path)
    for name, value in {**BLANK, "OMG_BASE_URL": "http://127.0.0.1:9/v1",
                        "OMG_MODEL": "m", "OMG_API_KEY": USER_KEY}.items():
        monkeypatch.setenv(name, value)
    (tmp_path / "t.yaml").write_text("model: http://127.0.0.1:9/v1/\ntasks:\n  - id: a\n"
                                     "    goal: Open Settings\n", encoding="utf-8")
    jobs = file_jobs(load_tasks_file(tmp_path / "t.yaml"), tmp_path / "out")
    assert [j.rel for j in jobs] == ["runs/a"]


def test_a_fleet_task_id_dot_dot_is_refused_in_one_line_and_nothing_is_written(
        tmp_path, monkeypatch) -> None:
    """Was: id ``..`` wrote its trace outside ``runs/``."""
    before = sorted(p.name for p in tmp_path.iterdir())
    result = _fleet(tmp_path, monkeypatch, "model: gpt-4o\ntasks:\n  - id: '..'\n"
                    "    goal: Open Settings\n", {"OMG_BASE_URL": "http://127.0.0.1:9/v1"})
    assert result.exit_code == 1, result.output
    line = _only_line(result.output)
    assert "tasks.0.id: not a safe name" in line and "letters, digits" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*before, "tasks.yaml"])


def test_a_fleet_task_folder_behind_a_symlink_out_of_runs_is_refused(tmp_path) -> None:
    from omg_agent.errors import ConfigError
    from omg_agent.fleet.jobs import trace_rel

    (tmp_path / "out" / "runs").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "out" / "runs" / "task-1").symlink_to(tmp_path / "elsewhere")
    assert trace_rel(tmp_path / "out", "task-2") == "runs/task-2"
    with pytest.raises(ConfigError, match="leads out of"):
        trace_rel(tmp_path / "out", "task-1")


# -- runFlow and MCP run_flow --------------------------------------------------------------
def _flows(tmp_path: Path) -> Path:
    """flows/ with main.yaml → runFlow ../keys.yaml (a key list, not a flow), a symlink in
    flows/ to the same file, and a flow inside that runs fine."""
    keys = tmp_path / "keys.yaml"
    keys.write_text(f"- {LEAK}\n- OMG_SECRET_PW\n", encoding="utf-8")
    flows = tmp_path / "flows"
    flows.mkdir()
    (flows / "link.yaml").symlink_to(keys)
    (flows / "main.yaml").write_text("- runFlow: ../keys.yaml\n", encoding="utf-8")
    (flows / "via_link.yaml").write_text("- runFlow: link.yaml\n", encoding="utf-8")
    (flows / "home.yaml").write_text("- pressKey: home\n", encoding="utf-8")
    (flows / "inner.yaml").write_text("- runFlow: home.yaml\n", encoding="utf-8")
    return flows


def _settings(tmp_path: Path) -> Settings:
    return Settings.load(env={}, overrides={"runs_dir": tmp_path / "runs"})


def test_a_run_flow_out_of_its_folder_is_refused_and_the_file_is_never_echoed(
        vphone, tmp_path) -> None:
    """Was: ``runFlow`` read any path and its error quoted the file's first scalar."""
    from omg_agent.phone import Phone

    flows = _flows(tmp_path)
    with Phone(vphone.serial, settings=_settings(tmp_path), hold_lease=False) as phone:
        escaped = phone.run_flow(flows / "main.yaml")
        linked = phone.run_flow(flows / "via_link.yaml")
        inner = phone.run_flow(flows / "inner.yaml")
    for result in (escaped, linked):
        assert result.status == "failed" and "leads out of the flow's folder" in result.failed
        assert LEAK not in result.failed
    assert inner.status == "done", inner.failed  # a runFlow inside the folder still runs
    written = "".join(p.read_text(errors="replace") for p in (tmp_path / "runs").rglob("*")
                      if p.is_file() and p.suffix in (".jsonl", ".json", ".html"))
    assert LEAK not in written


def test_mcp_run_flow_reads_only_inside_the_servers_folder_and_never_echoes_a_file(
        vphone, tmp_path, monkeypatch) -> None:
    """Was: ``run_flow`` took any path; a key list's first scalar came back in the error
    ("unsupported command 'sk-LEAKED-123456'")."""
    from omg_agent.mcp.server import Hub, build_server

    flows = _flows(tmp_path)
    monkeypatch.chdir(flows)  # the folder the server starts in
    hub = Hub(_settings(tmp_path), vphone.serial)

    async def calls() -> list[Any]:
        async with Client(build_server(hub)) as client:
            return [await client.call_tool("run_flow", {"path": path}) for path in (
                "../keys.yaml", str(tmp_path / "keys.yaml"), "link.yaml", "home.yaml")]
    try:
        outside, absolute, linked, inside_ok = anyio.run(calls)
    finally:
        hub.close()
    for result in (outside, absolute, linked):
        text = " ".join(getattr(c, "text", "") for c in result.content)
        assert result.is_error and LEAK not in text, text
        assert "inside" in text
    assert inside_ok.structured_content["status"] == "done", inside_ok
    assert vphone.phone.focus()[0] != ""  # the phone answered: the flow really ran


def test_a_key_file_inside_the_folder_is_refused_without_echoing_it(vphone, tmp_path,
                                                                    monkeypatch) -> None:
    from omg_agent.mcp.server import Hub, build_server

    (tmp_path / "keys.yaml").write_text(f"- {LEAK}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    hub = Hub(_settings(tmp_path), vphone.serial)

    async def call() -> Any:
        async with Client(build_server(hub)) as client:
            return await client.call_tool("run_flow", {"path": "keys.yaml"})
    try:
        result = anyio.run(call)
    finally:
        hub.close()
    text = " ".join(getattr(c, "text", "") for c in result.content)
    assert result.is_error and "unsupported command (a bare text)" in text
    assert LEAK not in text
