"""Waiting for the screen to settle after a boundary: the one rule both drivers use.

Settled means every frame hashed the same, cell for cell, for ``window`` seconds (at least
two frames). A window, not just two frames in a row: two quick captures can fall between
the steps of a slow spinner. Exact equality, not the hash's "same screen" slack: frames
moments apart differ only where something moves. The masks are the last observation's
(status bar, the focused field's caret). With ``previous`` (the hash before an action), the
screen first gets up to ``change_grace`` seconds to start changing, so an app slow to react
is not taken as settled on the old screen. The driver brings its own screenshot (a raw
screencap, the u2 server's JPEG); the executor decides *when* to settle
(:mod:`omg_agent.drivers.executor`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from PIL import Image

from omg_agent.core.observation import Observation
from omg_agent.perception.screenhash import ScreenHash

log = logging.getLogger(__name__)

POLL_S = 0.02  # pause between captures (a real phone's screencap takes longer)


def wait_settled(shoot: Callable[[], Image.Image], hasher: ScreenHash, *, timeout: float,
                 window: float, last: Observation | None = None, previous: str = "",
                 change_grace: float = 0.3, serial: str = "") -> bool:
    """Wait until the frames ``shoot`` takes stop changing; False if ``timeout`` passes.

    A ``timeout`` of 0 does not wait at all (nothing is captured): False at once."""
    if timeout <= 0:
        return False
    start = time.monotonic()
    deadline, grace_end = start + timeout, start + min(change_grace, timeout)
    package, elements = (last.package, last.elements) if last else ("", ())
    stable_hash, stable_since = "", 0.0
    while True:
        taken = time.monotonic()
        current = hasher.compute(shoot(), package=package, elements=elements)
        if previous and taken < grace_end and hasher.same(current, previous):
            stable_hash = ""  # still the old screen: not settled, just not started
        elif not stable_hash or hasher.distance(current, stable_hash) > 0:
            stable_hash, stable_since = current, taken
        elif taken - stable_since >= window:
            return True
        if time.monotonic() >= deadline:
            log.info("%s: screen still changing after %.1f s", serial, timeout)
            return False
        time.sleep(POLL_S)
