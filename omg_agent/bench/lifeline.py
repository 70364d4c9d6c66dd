"""Worker processes that die with their parent (issue 25): no orphan holds the suite's stdout.

:func:`die_with_parent` is the initializer of every bench worker pool. On Linux it asks the
kernel to SIGKILL the worker when its parent dies (``prctl(PR_SET_PDEATHSIG)``), then checks
that the parent did not die before it asked; elsewhere a daemon thread watches
``os.getppid()``. So ``kill -9`` (or SIGTERM, or the OOM killer) of the suite's pid takes its
workers with it, and multiprocessing's resource tracker, which exits once the last process
holding its pipe is gone, follows: a reader of the suite's stdout gets EOF.

This module imports nothing heavy on purpose: a ``spawn`` worker imports it (to unpickle the
initializer) before the initializer runs, and a worker that is still importing when the
parent dies lives only as long as that import takes.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1  # linux/prctl.h
WATCH_PARENT_S = 0.5


def die_with_parent(parent: int) -> None:
    """A worker's initializer: end this process when ``parent`` dies."""
    if sys.platform.startswith("linux") and _ask_kernel_for_sigkill():
        if os.getppid() != parent:  # the parent died before the kernel was asked
            os._exit(1)
        return
    threading.Thread(target=_watch_parent, args=(parent,), name="watch-parent",
                     daemon=True).start()


def _ask_kernel_for_sigkill() -> bool:
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_PARENT_S)
    os._exit(1)


__all__ = ["die_with_parent"]
