"""Suite-wide ordering: the longest tests are collected first, longest first.

The README's test command runs the suite on three xdist workers handing out two tests at a
time (``-n 3 --maxschedchunk 2``); with the minutes-long tests at the front, the workers
start on them and the short tests fill in around them, instead of one worker finishing the
suite alone with a long test left at the end. Which tests are long is recorded in
``tests/durations.txt`` (seconds, a test-name prefix); a ``slow`` or ``faults`` test it does
not list still goes to the front. The rest keep their collected order.

Bytecode: where Python is told not to write it (``PYTHONDONTWRITEBYTECODE``, as on CI), every
one of the hundreds of ``omg-agent`` processes the suite starts would compile the package's
modules from source again (~0.4 s of CPU each); the package's bytecode is written once, at
the start (under ``__pycache__``, which git ignores), and those processes read it.
"""

from __future__ import annotations

import compileall
import sys
from pathlib import Path

import pytest

LONG = ("slow", "faults")
MARKED_LONG_S = 12.0  # a long-marked test not in the list: placed as if it took this long
DURATIONS = Path(__file__).with_name("durations.txt")


def pytest_configure(config: pytest.Config) -> None:
    if sys.flags.dont_write_bytecode and not hasattr(config, "workerinput"):  # once, not per
        import omg_agent  # xdist worker: the workers start after this

        compileall.compile_dir(Path(omg_agent.__file__).parent, quiet=2)


def recorded_durations(path: Path = DURATIONS) -> list[tuple[str, float]]:
    """(test-name prefix, seconds) from ``path``: one ``seconds<TAB>prefix`` a line."""
    out: list[tuple[str, float]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            seconds, prefix = line.split("\t", 1)
            out.append((prefix.strip(), float(seconds)))
    return out


def expected_seconds(item: pytest.Item, durations: list[tuple[str, float]]) -> float:
    listed = [s for prefix, s in durations if item.nodeid.startswith(prefix)]
    if listed:
        return max(listed)
    return MARKED_LONG_S if any(item.get_closest_marker(m) for m in LONG) else 0.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    durations = recorded_durations()
    items.sort(key=lambda item: -expected_seconds(item, durations))
