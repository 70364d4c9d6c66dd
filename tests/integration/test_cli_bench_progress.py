"""Benchmarks show their progress on stderr only when asked (a terminal, or OMG_PROGRESS=1)
and print a ``Command:`` line that makes the same table again."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import omg_agent
from omg_agent.cli.bench_runs import suite_command

SOURCE = str(Path(omg_agent.__file__).resolve().parents[1])


def omg(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "COLUMNS": "200",
            "PYTHONPATH": SOURCE, **env}
    if "OMG_PROGRESS" not in env:
        full.pop("OMG_PROGRESS", None)
    return subprocess.run([sys.executable, "-m", "omg_agent.cli", *args], capture_output=True,
                          text=True, timeout=300, env=full, cwd=tmp_path,
                          stdin=subprocess.DEVNULL)


def table_rows(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("| ")]


def test_bench_calls_progress_on_demand_and_a_command_that_reproduces_it(tmp_path) -> None:
    first = omg(["bench", "calls", "--tasks", "1", "--modes", "flat,adaptive", "--noise",
                 "none", "--vision", "auto"], tmp_path, OMG_PROGRESS="1")
    assert first.returncode == 0, first.stderr
    # the bar: phase, what finished (task · mode), done/total, elapsed, ETA — on stderr only
    assert "calls" in first.stderr and "2/2" in first.stderr and "ETA" in first.stderr
    assert "settings.wifi" not in first.stderr  # only the first task ran
    assert "shop.price_to_notes · adaptive" in first.stderr
    assert "ETA" not in first.stdout and "\x1b[" not in first.stdout
    command = next(line for line in first.stdout.splitlines() if line.startswith("Command: "))
    words = shlex.split(command.removeprefix("Command: "))
    assert words[:3] == ["omg-agent", "bench", "calls"] and "--tasks" in words
    assert words[words.index("--vision") + 1] == "auto"
    again = omg(words[1:], tmp_path)  # piped, nothing forced: no bar at all
    assert again.returncode == 0, again.stderr
    assert again.stderr == ""
    rows = table_rows(first.stdout)
    # header, the task in each mode, each mode's total
    assert len(rows) == 5 and table_rows(again.stdout) == rows
    assert f"Command: {shlex.join(words)}" in again.stdout


def test_suite_command_names_out_only_when_given() -> None:
    dated = suite_command("sim", "moderate", "settings.wifi", 2, 1, ["one:bundling=single"],
                           3, 40, None)
    assert dated == ("omg-agent bench suite --model sim --noise moderate --seed 3 --repeat 2 "
                     "--parallel 1 --max-steps 40 --tasks settings.wifi "
                     "--config one:bundling=single")
    given = suite_command(None, "none", None, 1, 2, [], 0, 40, Path("runs/x y"))
    assert given.endswith("--out 'runs/x y'") and "--model" not in given
