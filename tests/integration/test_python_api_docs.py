"""docs/python-api.md is true: each of its Python examples runs on a vphone, and every name
it documents is exported by ``omg_agent`` (issue 28)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import omg_agent

DOC = Path(__file__).parents[2] / "docs" / "python-api.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
BLANK = ("OMG_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OMG_CONFIG", "OMG_MODEL",
         "OMG_BASE_URL", "OMG_PLANNER_MODEL", "OMG_OPERATOR_MODEL", "OMG_RUNS_DIR")


def documented_names() -> set[str]:
    """The backticked names in the first column of the page's Names table."""
    table = DOC.read_text(encoding="utf-8").split("## Names", 1)[1]
    names: set[str] = set()
    for row in table.splitlines()[2:]:
        if row.startswith("|"):
            names.update(re.findall(r"`(\w+)`", row.split("|")[1]))
    return names


def test_the_page_has_examples_and_a_names_table() -> None:
    assert len(BLOCKS) >= 5 and {"connect", "start_vphone", "Phone"} <= documented_names()


@pytest.mark.parametrize("code", BLOCKS, ids=[f"example{i + 1}" for i in range(len(BLOCKS))])
def test_a_documented_example_runs_on_a_vphone(code: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # runs/ lands here
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))  # the leases too
    for name in BLANK:
        monkeypatch.delenv(name, raising=False)
    exec(compile(code, f"{DOC.name} example", "exec"), {"__name__": "example"})


def test_every_documented_name_is_exported() -> None:
    for name in sorted(documented_names()):
        assert name in omg_agent.__all__, f"{name} is documented but not in __all__"
        assert getattr(omg_agent, name) is not None


def test_importing_omg_agent_loads_none_of_the_api_until_used() -> None:
    import subprocess
    import sys

    code = ("import sys, omg_agent; print(sorted(m for m in sys.modules "
            "if m.startswith(('omg_agent.', 'mcp', 'adbutils', 'openai', 'pydantic'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=DOC.parents[1])
    assert out.stdout.strip() == "[]", out.stdout
