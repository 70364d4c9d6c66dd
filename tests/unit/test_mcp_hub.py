"""The MCP server's hub of phones (issue 28): one call at a time per phone, and run folders
only from the server's own runs directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from omg_agent.config import Settings
from omg_agent.errors import ConfigError
from omg_agent.mcp.server import Hub


def hub(tmp_path: Path) -> Hub:
    return Hub(Settings(runs_dir=tmp_path / "runs"), device="emulator-5554")


def test_a_second_call_on_a_busy_phone_is_refused_and_the_phone_is_free_after(
        tmp_path: Path) -> None:
    h = hub(tmp_path)
    with h.using(None) as phone:
        with pytest.raises(ConfigError, match="busy with another call"), h.using(None):
            pass
        assert phone.serial == "emulator-5554"
    with h.using("emulator-5554") as again:
        assert again is phone


def test_a_run_dir_must_be_a_run_of_the_servers_runs_folder(tmp_path: Path) -> None:
    h = hub(tmp_path)
    run = tmp_path / "runs" / "20261126-1200-buy"
    run.mkdir(parents=True)
    (run / "state.json").write_text("{}")
    assert h.run_dir(run.name) == run.resolve()
    assert h.run_dir(str(run)) == run.resolve()
    for outside in (str(tmp_path), "../../etc", "20261126-1200-buy/../..", "nope"):
        with pytest.raises(ConfigError, match="not a run of"):
            h.run_dir(outside)
