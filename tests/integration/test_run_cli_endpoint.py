"""``omg-agent run --base-url URL --api-key KEY``: the run reaches that endpoint with that
key, and the key is in no output and no byte of the run folder. Typer's runner, the real
openai client, the model double over HTTP, a vphone over adb."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from look_script import BLANK as LOOK_ENV
from look_script import CONFIRMED, LOOKED, PLAN
from typer.testing import CliRunner

from omg_agent.cli import app
from omg_agent.sim.model_double import ModelDouble

BLANK = {**LOOK_ENV, "OMG_PLANNING": "adaptive"}
KEY = "sk-omg-test-5c1d9e7f3a2b4c6d"


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no omg.toml around
    return tmp_path


def test_base_url_and_api_key_options_reach_the_endpoint_and_no_file(
        vphone: Any, in_tmp: Path) -> None:
    runs = in_tmp / "runs"
    with ModelDouble([PLAN, LOOKED, CONFIRMED]) as double:
        result = CliRunner().invoke(app, [
            "-v", "run", "look at the screen", "--device", vphone.serial, "--driver", "adb",
            "--model", "double", "--base-url", double.base_url, "--api-key", KEY,
            "--runs-dir", str(runs)], env=BLANK)
    assert result.exit_code == 0, result.output
    assert double.requests and all(r.authorization == f"Bearer {KEY}"
                                   for r in double.requests)
    assert KEY not in result.output
    files = [p for p in runs.rglob("*") if p.is_file()]
    assert any(p.name == "trace.jsonl" for p in files)
    leaked = [p for p in files if KEY.encode() in p.read_bytes()]
    assert leaked == []


def test_a_bad_base_url_is_named_as_the_option(in_tmp: Path) -> None:
    result = CliRunner().invoke(app, ["run", "open Notes", "--model", "m", "--base-url",
                                      "localhost:8000", "-s", "nope:1"], env=BLANK)
    assert result.exit_code == 1
    assert ("--base-url: 'localhost:8000' is not an http(s) URL" in result.output
            and "Value error" not in result.output)
