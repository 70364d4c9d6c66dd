"""``omg-agent config show`` prints values with their sources and never the API key."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from omg_agent.cli import app


def test_config_show_names_sources_and_hides_the_key(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no omg.toml around
    env = {"OMG_MODEL": "qwen-vl", "OMG_API_KEY": "sk-very-secret", "OMG_CONFIG": "",
           "OMG_BASE_URL": "http://127.0.0.1:9/v1"}
    result = CliRunner().invoke(app, ["config", "show", "--json"], env=env)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["model"] == {"value": "qwen-vl", "source": "OMG_MODEL"}
    assert data["api_key"]["value"] == "***"
    assert "sk-very-secret" not in result.output
