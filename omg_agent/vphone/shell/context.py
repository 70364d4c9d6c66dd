"""What a vphone shell command gets to work with: :class:`Ctx`, plus the shell-wide state.

Every command is a plain function ``handler(ctx, args) -> exit code`` registered by name in a
command table (see ``commands/__init__.py``). ``ctx`` carries the phone, the command's
(possibly redirected) stdout/stderr/stdin, its environment and working directory, the
cancellation event of the stream that started it, and a hook to run another command (for
``toybox X`` and ``cmd X``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from omg_agent.vphone.memfs import FsError, normpath

SH = "/system/bin/sh"

Writer = Callable[[bytes], None]


@dataclass
class DisplayOverrides:
    """``wm size WxH`` / ``wm density N`` overrides (reported, not rendered)."""

    size: tuple[int, int] | None = None
    density: int | None = None


@dataclass
class ShellState:
    """State that outlives one command line (one per phone)."""

    display: DisplayOverrides = field(default_factory=DisplayOverrides)
    touch_down: tuple[int, int, float] | None = None  # `input motionevent DOWN` in progress
    u2_refs: dict[int, int] = field(default_factory=dict)  # app_process servers per port
    u2_kill: set[int] = field(default_factory=set)  # ports whose app_process was killed
    jobs: dict[int, threading.Event] = field(default_factory=dict)  # `cmd &` pid → its stop
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class Ctx:
    phone: Any
    state: ShellState
    name: str
    env: dict[str, str]
    cwd: str
    stdin: bytes
    write_out: Writer
    write_err: Writer
    cancelled: threading.Event
    dispatch: Callable[[Ctx, list[str]], int]

    # -- output ----------------------------------------------------------------------------
    def out(self, data: str | bytes) -> None:
        self.write_out(data.encode() if isinstance(data, str) else data)

    def err(self, data: str | bytes) -> None:
        self.write_err(data.encode() if isinstance(data, str) else data)

    def outln(self, text: str = "") -> None:
        self.out(text + "\n")

    def errln(self, text: str) -> None:
        self.err(text + "\n")

    def fail(self, message: str, code: int = 1) -> int:
        """Print ``<name>: message`` to stderr (toybox style) and return ``code``."""
        self.errln(f"{self.name}: {message}")
        return code

    # -- environment -----------------------------------------------------------------------
    def path(self, p: str) -> str:
        return normpath(p, self.cwd)

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; True if the stream was cancelled meanwhile."""
        if seconds <= 0:
            return self.cancelled.is_set()
        return self.cancelled.wait(seconds)

    def latency(self, kind: str) -> bool:
        """Simulate the device-side cost of a command kind; True if cancelled."""
        return self.wait(float(self.phone.command_latency(kind)))

    def sub(self, name: str, stdin: bytes | None = None) -> Ctx:
        """A context for a command this one runs (``toybox md5sum`` → ``md5sum``)."""
        return Ctx(self.phone, self.state, name, self.env, self.cwd,
                   self.stdin if stdin is None else stdin, self.write_out, self.write_err,
                   self.cancelled, self.dispatch)


Handler = Callable[[Ctx, list[str]], int]
CommandTable = dict[str, Handler]


def read_input(ctx: Ctx, paths: list[str]) -> tuple[bytes | None, int]:
    """Concatenate files (``-`` or none = stdin) the way cat-like tools do.

    Returns (data, status); unreadable files are reported on stderr and make status 1.
    """
    if not paths:
        return ctx.stdin, 0
    chunks: list[bytes] = []
    status = 0
    for p in paths:
        if p == "-":
            chunks.append(ctx.stdin)
            continue
        try:
            chunks.append(ctx.phone.fs.read(ctx.path(p)))
        except FsError as exc:
            ctx.fail(f"{p}: {exc.reason}")
            status = 1
    return b"".join(chunks), status
