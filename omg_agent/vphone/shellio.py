"""How a running shell command talks to the stream that started it.

The adbd side (``adbd.py``) builds a :class:`ShellIO` for every ``shell:``/``exec:`` stream and
hands it to the vphone's shell; the shell writes output through it and watches ``cancelled``
(set when the client closes the stream, e.g. a killed ``adb shell`` or uiautomator2 stopping
its server process).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class ShellIO:
    write_out: Callable[[bytes], None]
    write_err: Callable[[bytes], None]
    cancelled: threading.Event = field(default_factory=threading.Event)
    stdin: bytes = b""


class CollectingIO(ShellIO):
    """A ShellIO that keeps everything written, for host-side calls and tests."""

    def __init__(self, stdin: bytes = b"") -> None:
        self.out = bytearray()
        self.err = bytearray()
        super().__init__(self.out.extend, self.err.extend, threading.Event(), stdin)
