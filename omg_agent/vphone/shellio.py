"""How a running shell command talks to the stream that started it.

The adbd side (``adbd.py``) builds a :class:`ShellIO` for every ``shell:``/``exec:`` stream and
hands it to the vphone's shell; the shell writes output through it and watches ``cancelled``
(set when the client closes the stream, e.g. a killed ``adb shell`` or uiautomator2 stopping
its server process) and reads what the client sends later (``read_line``).
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
    # The stream's live stdin, one line per call (None at its end): what ``read`` reads
    # when the command line has no stdin of its own (adbutils' screenrecord script).
    read_line: Callable[[], str | None] | None = None


class CollectingIO(ShellIO):
    """A ShellIO that keeps everything written, for host-side calls and tests."""

    def __init__(self, stdin: bytes = b"") -> None:
        self.out = bytearray()
        self.err = bytearray()
        super().__init__(self.out.extend, self.err.extend, threading.Event(), stdin)
