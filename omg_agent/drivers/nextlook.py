"""The next observation's hierarchy dump, started while the action runs and the screen settles.

An ADB step is mostly ``uiautomator dump`` (1–2 s on a phone: a VM start, then an idle wait
for the accessibility events to stop, then the dump). Nothing needs to wait for it in
turn: the dump starts with the action (:meth:`DumpAhead.start`, called by the executor
before a bundle with a boundary runs), the screen settles meanwhile (:mod:`.settle`, which
reports when the final screen was first seen), and the next ``observe()`` takes the dump
(:meth:`DumpAhead.take`) only when it provably shows the final screen:

* the settle succeeded;
* the dump *ended* at least ``margin`` seconds after the final screen was first seen — a
  dump captures its tree at its end (after its idle wait), and ``margin`` covers writing
  the tree out, so a tree captured before the last change is never taken;
* the observation's own frame still shows the settled screen (same token in the settle
  signal's terms).

Otherwise the observation dumps afresh. The foreground app is read the same way
(:meth:`DumpAhead.read_focus`), and used when that read *started* once the final screen
was already seen. Only one dump runs on the device at a time (two
``uiautomator`` processes fight over the one UiAutomation connection): :meth:`dump`
serialises them. When the settled screen is the pre-action screen, byte for byte (the
digest of every pixel, status bar included) and the observation still shows it, the action
provably changed nothing that is drawn: :meth:`take` says :data:`UNCHANGED` and the
observation keeps the last element list without waiting for the dump.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from omg_agent.drivers.settle import Settled

log = logging.getLogger(__name__)

DUMP_MARGIN_S = 0.2  # a dump's tree is captured at most this long before the dump returns
UNCHANGED = "\x00unchanged"  # take(): the screen is the one before the action


@dataclass(frozen=True)
class Dumped:
    """A hierarchy dump and when it ran (``time.monotonic()``)."""

    xml: str
    started: float
    ended: float


class DumpAhead:
    """One driver's dump ahead of the observation that needs it (see the module doc)."""

    def __init__(self, pool: ThreadPoolExecutor, dump: Callable[[], str], *,
                 margin: float = DUMP_MARGIN_S, serial: str = "") -> None:
        self._pool = pool
        self._dump = dump
        self.margin = margin
        self.serial = serial
        self._lock = threading.Lock()  # one dump on the device at a time
        self._pending: Future[Dumped] | None = None
        self._settled: Settled | None = None
        self._previous = ""  # the pre-action screen, in the settle signal's tokens
        self._focus: tuple[float, Future[object]] | None = None  # (started, the read)
        self.focus_ok = False  # take(): a foreground app read after the last change is in
        self.taken = 0  # dumps taken ahead (for the bench and tests)
        self.skipped = 0  # observations that kept the last element list

    def dump(self) -> Dumped:
        """Run one dump now (after any dump already running)."""
        with self._lock:
            started = time.monotonic()
            xml = self._dump()
            return Dumped(xml, started, time.monotonic())

    def start(self) -> None:
        """An action is about to change the screen: dump ahead (a dump already ahead, not
        taken, is dropped — it may show the screen before this action)."""
        self.reset()
        self._pending = self._pool.submit(self.dump)

    @property
    def pending(self) -> bool:
        """A dump ahead was started and not taken yet."""
        return self._pending is not None

    def settled(self, result: Settled, previous: str = "") -> None:
        """How the screen settled after the action (``previous``: the screen before it)."""
        self._settled, self._previous = result, previous

    def read_focus(self, read: Callable[[], object]) -> None:
        """Read the foreground app on the pool now; the observation uses the latest read
        if it started once the final screen was already seen. Not while a read is still
        running (two would race to write the app)."""
        if self._focus is not None and not self._focus[1].done():
            return
        self._focus = (time.monotonic(), self._pool.submit(read))

    def reset(self) -> None:
        self._pending, self._settled, self._previous, self._focus = None, None, "", None

    def take(self, current: Callable[[str], str | None]) -> str | None:
        """The dumped XML if it shows the screen now (:data:`UNCHANGED` when the action
        changed nothing drawn), else None. ``current(signal)`` is the token of the
        observation's frame in that settle signal's terms (None: cannot tell)."""
        pending, settled, previous, focus = (self._pending, self._settled, self._previous,
                                             self._focus)
        self.reset()
        self.focus_ok = False
        if focus is not None:  # let it finish: no read of the app, even a stale one, may
            focus[1].exception()  # land after the one the observation is about to make
        if pending is None or settled is None or not settled.ok:
            return None
        now = current(settled.signal)
        if now is None or now != settled.token:
            log.debug("%s: the screen moved after settling; dumping again", self.serial)
            return None
        self.focus_ok = (focus is not None and focus[0] >= settled.changed_by
                         and focus[1].exception() is None)
        if previous and previous == settled.token:
            self.skipped += 1
            return UNCHANGED
        try:
            dumped = pending.result()
        except Exception as exc:  # noqa: BLE001 - the fresh dump reports it properly
            log.debug("%s: dump ahead failed (%s); dumping again", self.serial, exc)
            return None
        if dumped.ended - self.margin < settled.changed_by:
            self.focus_ok = False
            log.debug("%s: dump ahead ended %.2f s after the last change; dumping again",
                      self.serial, dumped.ended - settled.changed_by)
            return None
        self.taken += 1
        return dumped.xml
