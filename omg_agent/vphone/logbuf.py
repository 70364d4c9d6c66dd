"""The vphone's log buffer and process table: what ``logcat``, ``ps`` and ``pidof`` read.

:class:`LogBuffer` is the ``main`` log ring: the system (ActivityManager, ActivityTaskManager,
AndroidRuntime), the apps (input they receive) and ``log`` from the shell append lines to it;
``logcat`` prints, follows and clears it. :class:`Processes` gives an app's process a fresh
pid each time it starts, so ``am force-stop`` then a relaunch shows a new pid, as on a phone.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from omg_agent.vphone.shell.commands.ids import uid_of

LIMIT = 4096  # lines kept (the real ring is sized in bytes, 256 KiB by default)
SYSTEM_SERVER_PID = 1007
SYSTEMUI_PID = 1312
# A phone is never quiet: some service logs every second or two even when nobody touches
# it, and clients rely on that (a logcat reader stops only when its next line arrives).
CHATTER_S = 2.0
CHATTER = (
    (SYSTEM_SERVER_PID, "D", "WifiNl80211Manager", "Scan result ready event"),
    (SYSTEM_SERVER_PID, "I", "chatty", "uid=1000(system) Binder:1007_3 expire 4 lines"),
    (SYSTEMUI_PID, "D", "KeyguardUpdateMonitor", "handleBatteryUpdate"),
    (SYSTEM_SERVER_PID, "D", "ConnectivityService", "NetworkAgentInfo [WIFI () - 100] "
                                                   "validation passed"),
    (SYSTEM_SERVER_PID, "I", "ActivityManager", "Background concurrent copying GC freed "
                                                "5123(246KB) AllocSpace objects"),
)


@dataclass(frozen=True)
class LogLine:
    seq: int
    when: float
    pid: int
    tid: int
    level: str  # V D I W E F
    tag: str
    message: str


class LogBuffer:
    def __init__(self, clock: Callable[[], float] = time.time, limit: int = LIMIT) -> None:
        self._clock = clock
        self._lines: deque[LogLine] = deque(maxlen=limit)
        self._seq = 0
        self._last = clock()
        self._chatty = 0
        self._cond = threading.Condition()

    def add(self, pid: int, level: str, tag: str, message: str, tid: int | None = None) -> None:
        with self._cond:
            self._append(self._clock(), pid, level, tag, message, tid)
            self._cond.notify_all()

    def _append(self, when: float, pid: int, level: str, tag: str, message: str,
                tid: int | None) -> None:
        for text in message.split("\n"):
            self._seq += 1
            self._lines.append(LogLine(self._seq, when, pid, pid if tid is None else tid,
                                       level, tag, text))
        self._last = when

    def _chatter(self) -> None:
        """Add the background lines the system would have logged since the last line."""
        now = self._clock()
        due = min(3, int((now - self._last) // CHATTER_S))
        start = max(self._last, now - 3 * CHATTER_S)
        for i in range(due):
            pid, level, tag, message = CHATTER[self._chatty % len(CHATTER)]
            self._chatty += 1
            self._append(start + (i + 1) * CHATTER_S, pid, level, tag, message, pid + 12)

    def since(self, seq: int) -> list[LogLine]:
        """Lines newer than ``seq`` (0: everything still in the buffer)."""
        with self._cond:
            self._chatter()
            return [line for line in self._lines if line.seq > seq]

    def wait_after(self, seq: int, timeout: float) -> bool:
        """Wait up to ``timeout`` for a line newer than ``seq``; True if one came."""
        with self._cond:
            self._cond.wait_for(lambda: self._seq > seq, timeout)
            self._chatter()
            return self._seq > seq

    def clear(self) -> None:
        with self._cond:
            self._lines.clear()
            self._last = self._clock()

    @property
    def last_seq(self) -> int:
        return self._seq


class Processes:
    """Which app processes run, with their pids; system processes are fixed."""

    def __init__(self, log: LogBuffer, seed: int = 0) -> None:
        self._log = log
        self._pids: dict[str, int] = {}
        self._next = 3100 + (seed * 97) % 900

    def pid(self, package: str) -> int | None:
        return self._pids.get(package)

    def running(self) -> dict[str, int]:
        return dict(self._pids)

    def start(self, package: str, activity: str) -> int:
        """The pid of ``package``'s process, starting it (a new pid) if it is not running."""
        pid = self._pids.get(package)
        if pid is None:
            pid = self._pids[package] = self._next
            self._next += 1 + (pid * 7) % 13
            self._log.add(SYSTEM_SERVER_PID, "I", "ActivityManager",
                          f"Start proc {pid}:{package}/u0a{uid_of(package) - 10000} for "
                          f"top-activity {{{package}/{activity}}}", tid=SYSTEM_SERVER_PID + 30)
        return pid

    def kill(self, package: str, reason: str) -> None:
        pid = self._pids.pop(package, None)
        if pid is not None:
            self._log.add(SYSTEM_SERVER_PID, "I", "ActivityManager",
                          f"Killing {pid}:{package}/u0a{uid_of(package) - 10000} (adj 0): "
                          f"{reason}", tid=SYSTEM_SERVER_PID + 30)

    # -- what the system logs about apps ---------------------------------------------------
    def launched(self, package: str, activity: str, took_ms: int) -> None:
        self._log.add(SYSTEM_SERVER_PID, "I", "ActivityTaskManager",
                      "START u0 {act=android.intent.action.MAIN "
                      "cat=[android.intent.category.LAUNCHER] flg=0x10000000 "
                      f"cmp={package}/{activity}}} from uid 2000", tid=SYSTEM_SERVER_PID + 41)
        self.start(package, activity)
        self._log.add(SYSTEM_SERVER_PID, "I", "ActivityTaskManager",
                      f"Displayed {package}/{activity}: +{took_ms}ms",
                      tid=SYSTEM_SERVER_PID + 22)

    def force_stopped(self, package: str) -> None:
        self._log.add(SYSTEM_SERVER_PID, "I", "ActivityManager",
                      f"Force stopping {package} appid={uid_of(package)} user=0: from pid 4242",
                      tid=SYSTEM_SERVER_PID + 30)
        self.kill(package, f"stop {package} due to from pid 4242")

    def crashed(self, package: str) -> None:
        pid = self._pids.get(package, SYSTEM_SERVER_PID)
        self._log.add(pid, "E", "AndroidRuntime",
                      f"FATAL EXCEPTION: main\nProcess: {package}, PID: {pid}\n"
                      "java.lang.IllegalStateException: vphone injected crash\n"
                      "\tat android.os.Handler.dispatchMessage(Handler.java:106)\n"
                      "\tat android.os.Looper.loop(Looper.java:288)\n"
                      "\tat android.app.ActivityThread.main(ActivityThread.java:7918)")
        self.kill(package, "crash")

    def touched(self, package: str, activity: str, what: str) -> None:
        """An app window received input: the two lines ``ViewRootImpl`` logs per event."""
        pid = self._pids.get(package)
        if pid is None:
            return
        for phase in (0, 1):
            self._log.add(pid, "I", f"ViewRootImpl[{activity.rsplit('.', 1)[-1]}]",
                          f"ViewPostIme {what} {phase}")
