"""What the app tests share: a clock that moves only when the test moves it, a phone started
on one app, and the texts a screen shows (each app test module had its own copy)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from omg_agent.vphone.phone import VirtualPhone

try:
    from .shell_fake_phone import run
except ImportError:
    from shell_fake_phone import run  # type: ignore[no-redef]


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@contextmanager
def started(package: str | None, clock: Clock | None = None, *,
            seed: int = 1) -> Iterator[VirtualPhone]:
    """A phone on ``clock`` (none: the host's) with ``package`` in front (``None``: the home
    screen)."""
    phone = VirtualPhone(seed=seed, clock=clock) if clock else VirtualPhone(seed=seed)
    try:
        if package:
            phone.start_activity(package)
        yield phone
    finally:
        phone.close()


def texts(phone: VirtualPhone) -> list[str]:
    """Every text and merged text of the screen's elements, as perception reads them."""
    from omg_agent.perception.uitree import parse_elements

    return [t for e in parse_elements(phone.dump_xml()) for t in (e.text, *e.extra_texts)]


def labels(phone: VirtualPhone) -> list[str]:
    """Each element's text, else its description."""
    from omg_agent.perception.uitree import parse_elements

    return [e.text or e.desc for e in parse_elements(phone.dump_xml())]


def ls(phone: VirtualPhone, path: str) -> list[str]:
    """What ``ls path`` in the phone's shell lists."""
    return run(phone.shell, f"ls {path}")[1].split()


def view(phone: VirtualPhone, text: str) -> Any:
    """The view showing ``text`` (it must be there)."""
    found = phone.find_view(text=text)
    assert found is not None, text
    return found
