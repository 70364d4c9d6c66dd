"""Fixtures of the guards' tests: a VirtualPhone factory on a fake clock (helpers that
build and read screens are in ``gate_screens``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from gate_screens import SHOP, Clock

from omg_agent.vphone.phone import VirtualPhone


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def make_phone(clock: Clock) -> Callable[..., VirtualPhone]:
    def make(*hazards: str, locale: str = "en-US", seed: int = 3) -> VirtualPhone:
        phone = VirtualPhone(seed=seed, clock=clock)
        phone.apps[SHOP].promo_mode = "never"  # type: ignore[attr-defined]
        if locale != "en-US":
            phone.set_locale(locale)
        if hazards:
            phone.set_hazards(*hazards)
        return phone
    return make
