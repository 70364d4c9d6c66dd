"""The vphone shell: runs a command line against a :class:`VirtualPhone` like Android's sh.

``Shell(phone).run(cmdline, io)`` is what adbd calls for ``shell:``/``exec:`` streams. It parses
the line (``parse.py``), then walks the tree: and-or lists, pipelines (the left side's output
becomes the right side's stdin), redirections into the phone's MemFS, ``NAME=value``
prefixes, and finally a table lookup of the command name (``commands/``). Builtins that
change the shell itself (``cd``, ``exit``, ``export``, ``sh -c``, ``sh FILE ARGS``, ``read``,
``wait``) are in ``sh_builtins.py``; ``cmd &`` runs as a background job with a pid (``$!``)
``kill`` stops.
"""

from __future__ import annotations

import contextlib
import logging
import posixpath
import threading
from dataclasses import dataclass, field

from omg_agent.vphone.memfs import FsError
from omg_agent.vphone.shell.commands import build_command_table
from omg_agent.vphone.shell.context import SH, CommandTable, Ctx, ShellState, Writer
from omg_agent.vphone.shell.expand import expand_fields, expand_single
from omg_agent.vphone.shell.parse import parse
from omg_agent.vphone.shell.sh_builtins import BUILTINS, ExitRequest
from omg_agent.vphone.shell.syntax import (
    AndOr,
    Pipeline,
    Redirect,
    Script,
    ShellSyntaxError,
    SimpleCommand,
)
from omg_agent.vphone.shellio import ShellIO

logger = logging.getLogger(__name__)

DEFAULT_PATH = ("/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:"
                "/system_ext/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin")
BIN_DIRS = ("/system/bin", "/system/xbin", "/vendor/bin", "/product/bin", "/bin")
CANCELLED_STATUS = 130
BACKGROUND_PID0 = 6000  # pids of `cmd &` jobs count up from here


def _discard(_: bytes) -> None:
    return None


def default_env(phone) -> dict[str, str]:
    return {
        "PATH": DEFAULT_PATH, "HOME": "/", "USER": "shell", "LOGNAME": "shell",
        "SHELL": SH, "TMPDIR": "/data/local/tmp", "ANDROID_DATA": "/data",
        "ANDROID_ROOT": "/system", "ANDROID_STORAGE": "/storage",
        "EXTERNAL_STORAGE": "/sdcard", "HOSTNAME": str(phone.profile.device),
        "TERM": "dumb", "ASEC_MOUNTPOINT": "/mnt/asec",
    }


@dataclass
class _Fds:
    out: Writer
    err: Writer
    stdin: bytes


@dataclass
class _Session:
    """One ``sh -c`` invocation: its variables, cwd and ``$?``."""

    shell: Shell
    io: ShellIO
    vars: dict[str, str]
    cwd: str = "/"
    status: int = 0
    args: tuple[str, ...] = ()  # $1 ... of a script run as `sh FILE ARGS`
    last_job: int | None = None  # $!
    jobs: list[threading.Thread] = field(default_factory=list)  # what `wait` waits for

    def lookup(self, name: str) -> str:
        specials = {"?": str(self.status), "$": "4242", "#": str(len(self.args)), "0": SH,
                    "-": "hc", "!": "" if self.last_job is None else str(self.last_job)}
        if name in specials:
            return specials[name]
        if name.isdigit():
            n = int(name)
            return self.args[n - 1] if 0 < n <= len(self.args) else ""
        return self.vars.get(name, "")

    # -- structure -------------------------------------------------------------------------
    def run_script(self, script: Script, fds: _Fds) -> int:
        try:
            for item in script:
                if self.io.cancelled.is_set():
                    return CANCELLED_STATUS
                if item.background:
                    self.last_job = self.shell.start_background(self, item.body)
                    self.status = 0
                else:
                    self.status = self.run_and_or(item.body, fds)
        except ExitRequest as req:
            self.status = req.code
        return self.status

    def run_and_or(self, node: AndOr, fds: _Fds) -> int:
        status = self.run_pipeline(node.first, fds)
        for op, pipeline in node.rest:
            self.status = status
            if self.io.cancelled.is_set():
                return CANCELLED_STATUS
            if (op == "&&") == (status == 0):
                status = self.run_pipeline(pipeline, fds)
        return status

    def run_pipeline(self, pipeline: Pipeline, fds: _Fds) -> int:
        stdin = fds.stdin
        status = 0
        last = len(pipeline.commands) - 1
        for i, cmd in enumerate(pipeline.commands):
            if i < last:
                buf = bytearray()
                status = self.run_simple(cmd, _Fds(buf.extend, fds.err, stdin))
                stdin = bytes(buf)
            else:
                status = self.run_simple(cmd, _Fds(fds.out, fds.err, stdin))
        if pipeline.negate:
            return 0 if status else 1
        return status

    # -- one command -----------------------------------------------------------------------
    def run_simple(self, cmd: SimpleCommand, fds: _Fds) -> int:
        argv = expand_fields(cmd.words, self.lookup)
        assigns = {a.name: expand_single(a.value, self.lookup) for a in cmd.assigns}
        try:
            fds = self._redirect(cmd.redirects, fds)
        except _RedirectError as exc:
            fds.err(f"{SH}: {exc}\n".encode())
            return 1
        if not argv:
            self.vars.update(assigns)
            return 0
        env = {**self.vars, **assigns}
        return self.execute(argv, env, fds)

    def execute(self, argv: list[str], env: dict[str, str], fds: _Fds) -> int:
        builtin = BUILTINS.get(argv[0])
        if builtin is not None:
            return builtin(self, argv[1:], fds)
        ctx = Ctx(self.shell.phone, self.shell.state, argv[0], env, self.cwd, fds.stdin,
                  fds.out, fds.err, self.io.cancelled, self.shell.dispatch)
        return self.shell.dispatch(ctx, argv)

    # -- redirection -----------------------------------------------------------------------
    def _redirect(self, redirects: tuple[Redirect, ...], fds: _Fds) -> _Fds:
        out, err, stdin = fds.out, fds.err, fds.stdin
        for r in redirects:
            target = expand_single(r.target, self.lookup)
            if r.op in (">&", "<&") and (target.isdigit() or target == "-"):
                src = {"1": out, "2": err}.get(target, _discard if target == "-" else None)
                if src is None:
                    raise _RedirectError(f"{target}: bad file descriptor")
                if r.fd == 1:
                    out = src
                elif r.fd == 2:
                    err = src
                continue
            if r.op in ("<", "<&"):
                stdin = self._read_target(target)
                continue
            sink = self._open_sink(target, append=r.op == ">>", out=out, err=err)
            if r.op in ("&>", ">&"):
                out = err = sink
            elif r.fd == 1:
                out = sink
            elif r.fd == 2:
                err = sink
        return _Fds(out, err, stdin)

    def _read_target(self, target: str) -> bytes:
        if target in ("/dev/null", "/dev/zero"):
            return b""
        try:
            return self.shell.phone.fs.read(posixpath.join(self.cwd, target))
        except FsError as exc:
            raise _RedirectError(f"can't open {target}: {exc.reason}") from None

    def _open_sink(self, target: str, *, append: bool, out: Writer, err: Writer) -> Writer:
        special = {"/dev/null": _discard, "/dev/stdout": out, "/dev/stderr": err,
                   "/dev/tty": self.io.write_out}
        if target in special:
            return special[target]
        fs = self.shell.phone.fs
        path = posixpath.join(self.cwd, target) if target else ""
        try:
            fs.write(path, b"", append=append)
        except FsError as exc:
            raise _RedirectError(f"can't create {target}: {exc.reason}") from None

        def sink(data: bytes) -> None:
            fs.write(path, data, append=True)

        return sink


class _RedirectError(Exception):
    pass


class Shell:
    """The phone's ``/system/bin/sh``. Thread-safe: each ``run`` has its own session."""

    def __init__(self, phone, commands: CommandTable | None = None) -> None:
        self.phone = phone
        self.commands = commands if commands is not None else build_command_table()
        self.state = ShellState()
        self._bg_lock = threading.Lock()
        self._bg: list[tuple[threading.Thread, threading.Event]] = []
        self._next_pid = BACKGROUND_PID0

    def run(self, cmdline: str, io: ShellIO) -> int:
        """Run one command line as ``sh -c cmdline`` would; returns the exit status."""
        return self.run_line(cmdline, io, default_env(self.phone), "/", latency=True)

    def run_line(self, cmdline: str, io: ShellIO, env: dict[str, str], cwd: str, *,
                 latency: bool) -> int:
        if latency and io.cancelled.wait(float(self.phone.command_latency("shell"))):
            return CANCELLED_STATUS
        try:
            script = parse(cmdline)
        except ShellSyntaxError as exc:
            io.write_err(f"{SH}: syntax error: {exc}\n".encode())
            return 2
        session = _Session(self, io, env, cwd)
        return session.run_script(script, _Fds(io.write_out, io.write_err, io.stdin))

    def dispatch(self, ctx: Ctx, argv: list[str]) -> int:
        """Find ``argv[0]`` in the command table and run it with ``argv[1:]``."""
        name = argv[0]
        handler = self.commands.get(name)
        if handler is None and "/" in name and posixpath.dirname(name) in BIN_DIRS:
            handler = self.commands.get(posixpath.basename(name))
        if handler is None:
            ctx.err(f"{SH}: {name}: inaccessible or not found\n")
            return 127
        ctx.name = posixpath.basename(name)
        try:
            return int(handler(ctx, argv[1:]))
        except BrokenPipeError:
            raise
        except Exception as exc:  # a bug in one command must not take the stream down
            logger.exception("vphone shell command %r failed", argv)
            ctx.err(f"{ctx.name}: {type(exc).__name__}: {exc}\n")
            return 1

    # -- background jobs (cmd &) -----------------------------------------------------------
    def start_background(self, parent: _Session, body: AndOr) -> int:
        """Run ``body`` on its own thread, output discarded, until done, ``kill``-ed (its
        pid is in ``state.jobs``) or :meth:`close`. Returns its pid (``$!``)."""
        cancelled = threading.Event()
        io = ShellIO(_discard, _discard, cancelled)
        session = _Session(self, io, dict(parent.vars), parent.cwd, parent.status,
                           args=parent.args)
        with self._bg_lock:
            self._next_pid += 1
            pid = self._next_pid
        jobs = self.state.jobs

        def job() -> None:
            try:
                with contextlib.suppress(ExitRequest):
                    session.run_and_or(body, _Fds(_discard, _discard, b""))
            finally:
                jobs.pop(pid, None)

        thread = threading.Thread(target=job, name="vphone-sh-bg", daemon=True)
        with self._bg_lock:
            self._bg = [(t, e) for t, e in self._bg if t.is_alive()]
            self._bg.append((thread, cancelled))
            jobs[pid] = cancelled
        parent.jobs.append(thread)
        thread.start()
        return pid

    def close(self, timeout: float = 5.0) -> None:
        """Cancel background jobs and wait for them."""
        with self._bg_lock:
            jobs, self._bg = self._bg, []
        for _, event in jobs:
            event.set()
        for thread, _ in jobs:
            thread.join(timeout)
