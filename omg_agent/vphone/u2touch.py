"""Turn uiautomator2's raw touch events into whole vphone gestures.

``d.touch.down/move/up`` arrive as separate ``injectInputEvent`` calls, but the VirtualPhone only
takes complete gestures (tap, long_press, swipe, drag). :class:`TouchTracker` remembers the
finger between ACTION_DOWN and ACTION_UP and, on ACTION_UP, plays the gesture the events
describe: no movement beyond the touch slop is a tap (or a long press when held), movement is
a swipe (or a drag when the finger rested before moving). The gesture's time already passed
between the events, so it is replayed without holding again (``hold=False``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ACTION_DOWN, ACTION_UP, ACTION_MOVE = 0, 1, 2
TOUCH_SLOP_PX = 24
LONG_PRESS_MS = 500


@dataclass
class _Finger:
    x: int
    y: int
    t0: float
    last: tuple[int, int]
    moved_at: float | None = None


class TouchTracker:
    """One finger's state; thread safe. ``clock`` is injectable so tests need not sleep."""

    def __init__(self, phone: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self._phone = phone
        self._clock = clock
        self._finger: _Finger | None = None
        self._lock = threading.Lock()

    def feed(self, action: int, x: int, y: int) -> bool:
        """Apply one event; False for an event that makes no sense (up without down)."""
        now = self._clock()
        with self._lock:
            if action == ACTION_DOWN:
                self._finger = _Finger(x, y, now, (x, y))
                return True
            finger = self._finger
            if finger is None or action not in (ACTION_MOVE, ACTION_UP):
                return False
            finger.last = (x, y)
            far = max(abs(x - finger.x), abs(y - finger.y)) > TOUCH_SLOP_PX
            if far and finger.moved_at is None:
                finger.moved_at = now
            if action == ACTION_MOVE:
                return True
            self._finger = None
        self._play(finger, now)
        return True

    def _play(self, finger: _Finger, now: float) -> None:
        held_ms = int((now - finger.t0) * 1000)
        if finger.moved_at is None:
            if held_ms >= LONG_PRESS_MS:
                self._phone.long_press(finger.x, finger.y, held_ms, hold=False)
            else:
                self._phone.tap(finger.x, finger.y)
            return
        ex, ey = finger.last
        if (finger.moved_at - finger.t0) * 1000 >= LONG_PRESS_MS:
            self._phone.drag(finger.x, finger.y, ex, ey, max(1, held_ms), hold=False)
        else:
            self._phone.swipe(finger.x, finger.y, ex, ey, max(1, held_ms), hold=False)
