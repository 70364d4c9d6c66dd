"""Waiting for the screen to settle after a boundary: the one rule both drivers use.

Settled means every look at the screen gave the same token for ``window`` seconds (at least
two looks). A window, not just two looks in a row: two quick captures can fall between the
steps of a slow spinner, and an animation of 150–350 ms changes every frame until it ends.
A *signal* is one way to look (:class:`Signal`), cheapest first:

* the ADB driver's **digest**: ``screencap | md5sum`` on the phone — the frame never crosses
  the cable, 33 bytes do; exact, so anything that moves (a clock tick, a caret) counts;
* **frames**: a screenshot hashed cell by cell (:class:`~omg_agent.perception.screenhash.
  ScreenHash`) with the last observation's masks (status bar, the focused field's caret,
  the app's carousels), exact cell for cell: frames moments apart differ only where
  something moves.

When a signal cannot settle within ``switch_after`` seconds (something it cannot mask keeps
moving) or is not available (:class:`Unavailable`), the next signal takes over. With
``previous`` tokens (the screen before the action) the screen first gets up to
``change_grace`` seconds to start changing, so an app slow to react is not taken as settled
on the old screen. The result says *when* the final screen was first seen
(:attr:`Settled.changed_by`): a hierarchy dump that ended later than that, by a margin, shows
the final screen (:mod:`.nextlook`). The executor decides *when* to settle
(:mod:`omg_agent.drivers.executor`).

A device that can say itself when its UI is still — no transition running, no app busy
launching, every input applied — need not be watched for a window: :func:`settle_reported`
asks it (the virtual phone answers ``vphone-idle``; a phone that cannot is
:class:`Unavailable` there and is watched as above).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PIL import Image

from omg_agent.core.observation import Observation
from omg_agent.perception.screenhash import ScreenHash

log = logging.getLogger(__name__)

POLL_S = 0.02  # pause between looks (a real phone's screencap takes longer)
SWITCH_AFTER_S = 1.0  # a signal that saw only change this long hands over to the next


class Unavailable(Exception):
    """This signal cannot be read on this device (the next one takes over)."""


@dataclass(frozen=True)
class Signal:
    """One way to look: ``look`` gives a token of the screen now; ``moved`` says whether two
    tokens differ at all; ``same_screen`` whether a token still shows ``previous`` (the
    screen before the action, in this signal's tokens; empty: unknown)."""

    name: str
    look: Callable[[], str]
    moved: Callable[[str, str], bool]
    same_screen: Callable[[str, str], bool]
    previous: str = ""


@dataclass(frozen=True)
class Settled:
    """How settling ended. Times are ``time.monotonic()``: ``changed_by`` is when the look
    that first showed the final screen returned (the screen changed before that)."""

    ok: bool
    signal: str = ""
    token: str = ""
    changed_by: float = 0.0
    looks: int = 0


def exact_signal(name: str, look: Callable[[], str], previous: str = "") -> Signal:
    """A signal whose tokens are equal or not (a digest)."""
    return Signal(name, look, lambda a, b: a != b, lambda a, b: a == b, previous)


def frame_signal(shoot: Callable[[], Image.Image], hasher: ScreenHash,
                 last: Observation | None = None, previous: str = "") -> Signal:
    """Screenshots hashed with the last observation's masks; moved = any cell changed."""
    package, elements = (last.package, last.elements) if last else ("", ())
    return Signal("frames", lambda: hasher.compute(shoot(), package=package, elements=elements),
                  lambda a, b: hasher.distance(a, b) > 0, hasher.same, previous)


def settle(signals: Sequence[Signal], *, timeout: float, window: float,
           change_grace: float = 0.3, switch_after: float = SWITCH_AFTER_S,
           on_change: Callable[[], object] | None = None, serial: str = "") -> Settled:
    """Look until the screen stops changing; ``Settled(ok=False)`` when ``timeout`` passes.
    ``on_change`` is called whenever a look shows a screen not seen just before."""
    start = time.monotonic()
    deadline, grace_end = start + timeout, start + min(change_grace, timeout)
    looks, index = 0, 0
    signal_since = start
    stable, stable_since, changed_by = "", 0.0, 0.0
    while True:
        signal = signals[index]
        taken = time.monotonic()
        try:
            current = signal.look()
        except Unavailable as exc:
            if index + 1 >= len(signals):
                raise
            log.info("%s: settle signal %s unavailable (%s)", serial, signal.name, exc)
            index, stable, signal_since = index + 1, "", time.monotonic()
            continue
        returned = time.monotonic()
        looks += 1
        if signal.previous and taken < grace_end and signal.same_screen(current,
                                                                         signal.previous):
            stable = ""  # still the old screen: not settled, just not started
        elif not stable or signal.moved(current, stable):
            stable, stable_since, changed_by = current, taken, returned
            if on_change is not None:
                on_change()
        elif taken - stable_since >= window:
            return Settled(True, signal.name, current, changed_by, looks)
        now = time.monotonic()
        if now >= deadline:
            log.info("%s: screen still changing after %.1f s", serial, timeout)
            return Settled(False, signal.name, current, changed_by, looks)
        if index + 1 < len(signals) and now - max(signal_since, grace_end) >= switch_after:
            log.debug("%s: %s kept changing; settling on %s", serial, signal.name,
                      signals[index + 1].name)
            index, stable, signal_since = index + 1, "", now
        time.sleep(POLL_S)


def settle_reported(ask: Callable[[], tuple[bool, str]], *, timeout: float,
                    name: str = "digest", serial: str = "") -> Settled:
    """Settle on the device's own word: ``ask()`` gives (still, the token of the screen
    now) in signal ``name``'s terms, or raises :class:`Unavailable`; asked again while the
    device says it is busy, ``Settled(ok=False)`` once ``timeout`` passes."""
    start = time.monotonic()
    looks = 0
    while True:
        still, token = ask()
        returned = time.monotonic()
        looks += 1
        if still:
            return Settled(True, name, token, returned, looks)
        if returned - start >= timeout:
            log.info("%s: the device still busy after %.1f s", serial, timeout)
            return Settled(False, name, token, returned, looks)
        time.sleep(POLL_S)


def wait_settled(shoot: Callable[[], Image.Image], hasher: ScreenHash, *, timeout: float,
                 window: float, last: Observation | None = None, previous: str = "",
                 change_grace: float = 0.3, serial: str = "") -> bool:
    """Wait until the frames ``shoot`` takes stop changing; False if ``timeout`` passes.

    A ``timeout`` of 0 does not wait at all (nothing is captured): False at once."""
    if timeout <= 0:
        return False
    return settle([frame_signal(shoot, hasher, last, previous)], timeout=timeout,
                  window=window, change_grace=change_grace, serial=serial).ok
