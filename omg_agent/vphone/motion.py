"""Time that passes on the vphone: gestures last their duration, screens animate in.

On a real phone ``input swipe ... 1000`` returns after a second, the content follows the
finger while it moves, and a new screen slides in over a few hundred milliseconds, so the
first frames after a tap are not the final one. :class:`Motion` gives the vphone the same
behaviour when it is enabled (the default for a phone with ``latency=True``; unit tests
keep it off so they stay fast):

- ``hold(ms)`` spends a gesture's duration (in steps, so a swipe scrolls progressively);
- ``observe()``, called on every state change, notices a screen change (another app,
  activity or screen of the back stack) and starts a transition lasting the profile's
  ``transition_ms`` times ``settings global window_animation_scale`` (``0`` switches
  transitions off, as on a phone set up for testing);
- during a transition the app window is offset (``apply``), so pixels and the bounds in the
  view tree move frame by frame; ``frame_key`` makes each new offset a new frame;
- after an app launch the phone is busy for the transition plus ``launch_busy_ms``:
  ``uiautomator dump`` waits for that idle moment (``idle_in``) like the real tool does.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from omg_agent.vphone.ui.view import View

STEP_S = 0.02  # a held gesture applies its movement in steps this long
MAX_SCALE = 10.0  # the developer-options maximum
SLIDE = 0.25  # fraction of the screen width a new window slides in from


def animation_scale(settings: dict[str, dict[str, str]], key: str) -> float:
    """A ``settings global`` animation scale as the framework reads it (bad values: 1)."""
    raw = settings.get("global", {}).get(key, "1.0")
    try:
        value = float(raw)
    except ValueError:
        return 1.0
    return min(max(value, 0.0), MAX_SCALE) if value == value else 1.0


class Motion:
    def __init__(self, phone: Any, enabled: bool,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self._phone = phone
        self.enabled = enabled
        self._sleep = sleep
        self._screen: tuple | None = None
        self._start = 0.0
        self._end = 0.0
        self._busy_end = 0.0
        self._direction = 1

    # -- gestures ------------------------------------------------------------------------
    def steps(self, duration_ms: int) -> int:
        """How many movement steps a gesture of ``duration_ms`` is played in."""
        if not self.enabled or duration_ms <= 0:
            return 1
        return max(1, int(duration_ms / 1000 / STEP_S))

    def hold(self, seconds: float) -> None:
        """Let ``seconds`` of gesture time pass (nothing when motion is off)."""
        if self.enabled and seconds > 0:
            self._sleep(seconds)

    # -- transitions ---------------------------------------------------------------------
    def screen_id(self) -> tuple:
        phone = self._phone
        app = phone.app
        return phone.foreground, app.activity(), len(app.stack), app.screen.name

    def observe(self) -> None:
        """Start a transition if the state change just made showed another screen."""
        now_screen = self.screen_id()
        before, self._screen = self._screen, now_screen
        if before is None or before == now_screen or not self.enabled:
            return
        launcher = self._phone.launcher.package
        opening = (now_screen[0] != before[0] and now_screen[0] != launcher) or (
            now_screen[0] == before[0] and now_screen[2] >= before[2])
        scale = animation_scale(self._phone.settings, "window_animation_scale")
        seconds = self._phone.profile.transition_ms / 1000 * scale
        if seconds <= 0:
            return
        now = self._phone.clock()
        self._start, self._end = now, now + seconds
        self._direction = 1 if opening else -1
        if opening and now_screen[0] != before[0]:  # an app launch: the app is busy
            self._busy_end = self._end + self._phone.profile.launch_busy_ms / 1000 * scale

    def progress(self) -> float | None:
        """How far the running transition is (0..1, eased), or None if none runs."""
        now = self._phone.clock()
        if now >= self._end or self._end <= self._start:
            return None
        t = max(0.0, (now - self._start) / (self._end - self._start))
        return 1 - (1 - t) ** 3  # decelerate, as Android's window animations do

    def offset(self) -> int:
        """How far (px, signed) the app window is from its place in this transition step."""
        p = self.progress()
        if p is None:
            return 0
        return round((1 - p) * SLIDE * self._phone.profile.width) * self._direction

    def frame_key(self) -> int:
        """Part of the frame cache key: a new offset is a new frame, the same one is not."""
        return self.offset()

    def apply(self, root: View) -> None:
        """Offset the app window for the current transition step (no-op when none runs)."""
        dx = self.offset()
        if dx:
            for view in root.walk():
                left, top, right, bottom = view.bounds
                view.bounds = (left + dx, top, right + dx, bottom)

    def idle_in(self) -> float:
        """Seconds until the UI is idle (no transition, app done launching)."""
        return max(0.0, max(self._end, self._busy_end) - self._phone.clock())
