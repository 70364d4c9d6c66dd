"""``bench guards`` refuses a used ``--out`` up front, like ``bench suite``: one line, and
nothing in the folder is touched (each run would otherwise fail on its existing trace)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import omg_agent

SOURCE = str(Path(omg_agent.__file__).resolve().parents[1])


def test_guards_refuses_a_used_out_folder_before_any_run(tmp_path) -> None:
    out = tmp_path / "guards"
    (out / "runs").mkdir(parents=True)
    env = {**os.environ, "PYTHONPATH": SOURCE, "COLUMNS": "200"}
    proc = subprocess.run([sys.executable, "-m", "omg_agent.cli", "bench", "guards", "--out",
                           str(out)], capture_output=True, text=True, timeout=120, env=env,
                          cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert proc.returncode == 1
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines == [f"error: --out {out} already exists and is not empty: give a new folder, "
                     "or drop --out for a dated one under runs/bench-guards/"]
    assert [p.name for p in out.iterdir()] == ["runs"] and not any((out / "runs").iterdir())


def test_guards_refuses_an_unknown_model_in_one_line_naming_the_choices(tmp_path) -> None:
    env = {**os.environ, "PYTHONPATH": SOURCE, "COLUMNS": "200"}
    proc = subprocess.run([sys.executable, "-m", "omg_agent.cli", "bench", "guards",
                           "--models", "hostile,genius", "--out", str(tmp_path / "g")],
                          capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 1
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines == ["error: --models 'hostile,genius': choose from expert, gullible, hostile"]
    assert not (tmp_path / "g").exists()
