"""The layer contract (pyproject.toml's import-linter contracts; docs/architecture.md).

``.ci/run`` runs ``lint-imports`` on the checkout; these tests show the contract holds today
and that it catches a new upward import — on a copy of the package, so the checkout is
never touched. import-linter comes with the ``test`` extra (skipped where it is missing).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("importlinter")

ROOT = Path(__file__).resolve().parents[2]


def _copy(tmp_path: Path) -> Path:
    """The package's Python files and pyproject.toml, copied under ``tmp_path``."""
    shutil.copytree(ROOT / "omg_agent", tmp_path / "omg_agent",
                    ignore=lambda _dir, names: [n for n in names if n == "__pycache__" or (
                        "." in n and not n.endswith(".py"))])
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _lint(where: Path) -> subprocess.CompletedProcess[str]:
    # the copy first, so lint-imports reads it and not the checkout
    kept = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
            if p and Path(p).resolve() != ROOT]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(where), *kept])}
    return subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()",
         "--no-cache"], cwd=where, env=env, capture_output=True, text=True, timeout=120)


def _inject(root: Path, module: str, line: str) -> None:
    path = root / (module.replace(".", "/") + ".py")
    text = path.read_text(encoding="utf-8")
    head, sep, rest = text.partition("from __future__ import annotations\n")
    path.write_text(head + sep + line + "\n" + rest, encoding="utf-8")


def test_the_package_keeps_its_layer_contracts(tmp_path: Path) -> None:
    done = _lint(_copy(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 kept, 0 broken" in done.stdout


@pytest.mark.parametrize(("module", "line", "said"), [
    # the drivers reaching up into the guards: what issue 26 moved the loading words for
    ("omg_agent.drivers.loading", "from omg_agent.guards import cues  # noqa",
     "omg_agent.drivers is not allowed to import omg_agent.guards"),
    # perception reaching up into the brain, even lazily through a function's import
    ("omg_agent.perception.reading", "def _late():\n    from omg_agent.brain import agent",
     "omg_agent.perception is not allowed to import omg_agent.brain"),
    # the trace and the guards are independent siblings
    ("omg_agent.trace.summary", "import omg_agent.guards.answers",
     "omg_agent.trace is not allowed to import omg_agent.guards"),
    # the virtual phone knows nothing of the agent
    ("omg_agent.vphone.power", "from omg_agent.core import geometry",
     "omg_agent.vphone is not allowed to import omg_agent.core"),
])
def test_a_new_upward_import_breaks_the_contract(tmp_path: Path, module: str, line: str,
                                                 said: str) -> None:
    root = _copy(tmp_path)
    _inject(root, module, line)
    done = _lint(root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert said in " ".join(done.stdout.split())
