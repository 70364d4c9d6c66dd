"""Suite-wide ordering: the long soak tests (``slow``, ``faults``) are collected first.

The README's test command runs the suite on two xdist workers handing out two tests at a
time (``-n 2 --maxschedchunk 2``); with the minutes-long soaks at the front, both workers
start on them and the short tests fill in around them, instead of one worker finishing the
suite alone with a soak left at the end.
"""

from __future__ import annotations

import pytest

LONG = ("slow", "faults")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: not any(item.get_closest_marker(m) for m in LONG))
