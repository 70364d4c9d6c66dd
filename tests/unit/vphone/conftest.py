"""Fixtures the vphone shell tests share: a recording fake phone and a shell on it.

Modules that need a different ``phone`` (the app tests' real VirtualPhone, the u2 server's
own fake) define their own fixture of that name, which takes precedence here.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from omg_agent.vphone.shell import Shell

try:
    from .shell_fake_phone import FakePhone
except ImportError:
    from shell_fake_phone import FakePhone


@pytest.fixture
def phone() -> FakePhone:
    return FakePhone()


@pytest.fixture
def shell(phone: FakePhone) -> Iterator[Shell]:
    sh = Shell(phone)
    yield sh
    sh.close()
