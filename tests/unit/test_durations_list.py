"""tests/durations.txt (the suite's longest tests, handed out first) names tests that exist."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def recorded_durations() -> list[tuple[str, float]]:
    """The list as tests/conftest.py reads it (its own reader, loaded from its file)."""
    spec = importlib.util.spec_from_file_location("suite_conftest", ROOT / "tests/conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.recorded_durations()


def test_every_listed_test_exists_and_the_list_is_longest_first() -> None:
    listed = recorded_durations()
    assert listed, "tests/durations.txt lists no test"
    for prefix, _ in listed:
        path, _, name = prefix.partition("::")
        source = (ROOT / path).read_text(encoding="utf-8")
        assert not name or re.search(rf"^def {re.escape(name)}", source, re.M), prefix
    seconds = [s for _, s in listed]
    assert seconds == sorted(seconds, reverse=True)
