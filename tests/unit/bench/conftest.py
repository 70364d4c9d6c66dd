"""The phone every suite-check test sets its near misses on (a module with another clock
defines its own ``phone``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from omg_agent.vphone.phone import VirtualPhone

PHONE_SEED = 3  # the phone's seed in these tests


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    p = VirtualPhone(seed=PHONE_SEED)
    try:
        yield p
    finally:
        p.close()
