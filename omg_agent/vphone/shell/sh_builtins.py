"""The builtins of the vphone shell: the commands that change the shell itself rather
than the phone — ``cd``, ``exit``, ``export``, ``unset``, ``:``, ``sh -c`` / ``sh FILE
ARGS``, ``exec`` / ``nohup``, ``which``, ``read``, ``wait``. Each takes the running session,
its arguments and its file descriptors, and returns an exit status (``runner.py`` walks the
command tree and calls them).
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from omg_agent.vphone.memfs import FsError
from omg_agent.vphone.shell.context import SH
from omg_agent.vphone.shell.parse import parse
from omg_agent.vphone.shell.syntax import ShellSyntaxError
from omg_agent.vphone.shellio import ShellIO

if TYPE_CHECKING:
    from omg_agent.vphone.shell.runner import _Fds as Fds
    from omg_agent.vphone.shell.runner import _Session as Session


class ExitRequest(Exception):
    """``exit N``: unwinds to the script being run, which ends with status ``N``."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _cd(session: Session, args: list[str], fds: Fds) -> int:
    target = args[0] if args else session.vars.get("HOME", "/")
    path = posixpath.normpath(posixpath.join(session.cwd, target)) if target else session.cwd
    path = "/" if path.startswith("//") else path
    if not session.shell.phone.fs.is_dir(path):
        reason = "Not a directory" if session.shell.phone.fs.exists(path) else \
            "No such file or directory"
        fds.err(f"{SH}: cd: {target}: {reason}\n".encode())
        return 2
    session.cwd = path
    session.vars["PWD"] = path
    return 0


def _exit(session: Session, args: list[str], fds: Fds) -> int:
    if not args:
        raise ExitRequest(session.status)
    try:
        raise ExitRequest(int(args[0]) & 0xFF)
    except ValueError:
        fds.err(f"{SH}: exit: {args[0]}: bad number\n".encode())
        raise ExitRequest(2) from None


def _export(session: Session, args: list[str], fds: Fds) -> int:
    for arg in args:
        name, eq, value = arg.partition("=")
        if eq:
            session.vars[name] = value
    return 0


def _unset(session: Session, args: list[str], fds: Fds) -> int:
    for name in args:
        session.vars.pop(name, None)
    return 0


def _colon(session: Session, args: list[str], fds: Fds) -> int:
    return 0


def _sh(session: Session, args: list[str], fds: Fds) -> int:
    if len(args) >= 2 and args[0] == "-c":
        io = ShellIO(fds.out, fds.err, session.io.cancelled, fds.stdin)
        return session.shell.run_line(args[1], io, dict(session.vars), session.cwd,
                                      latency=False)
    if not args:
        return 0  # an interactive sh reading an empty stdin
    path = posixpath.join(session.cwd, args[0])
    try:
        text = session.shell.phone.fs.read(path).decode("utf-8", "replace")
        script = parse(text)
    except FsError:
        fds.err(f"{SH}: {args[0]}: No such file or directory\n".encode())
        return 127
    except ShellSyntaxError as exc:
        fds.err(f"{SH}: {args[0]}: syntax error: {exc}\n".encode())
        return 2
    child = type(session)(session.shell, session.io, dict(session.vars), session.cwd,
                          args=tuple(args[1:]))
    return child.run_script(script, fds)


def _read(session: Session, args: list[str], fds: Fds) -> int:
    """``read [-r] NAME...``: one line of stdin into the names (the last takes the rest)."""
    names = [a for a in args if not a.startswith("-")] or ["REPLY"]
    if fds.stdin:
        line: str | None = fds.stdin.decode("utf-8", "replace").partition("\n")[0]
    elif session.io.read_line is not None:
        line = session.io.read_line()
    else:
        line = None
    if line is None:
        return 1
    words = line.split(None, len(names) - 1)
    for i, name in enumerate(names):
        session.vars[name] = words[i] if i < len(words) else ""
    return 0


def _wait(session: Session, args: list[str], fds: Fds) -> int:
    """``wait``: until this shell's background jobs end (or the stream is closed)."""
    for thread in session.jobs:
        while thread.is_alive() and not session.io.cancelled.wait(0.05):
            pass
    session.jobs = [t for t in session.jobs if t.is_alive()]
    return 0


def _wrapper(session: Session, args: list[str], fds: Fds) -> int:
    """``exec cmd`` / ``nohup cmd``: run the rest as a command."""
    if not args:
        return 0
    return session.execute(args, dict(session.vars), fds)


def _which(session: Session, args: list[str], fds: Fds) -> int:
    status = 0
    for name in args:
        if name in session.shell.commands or name == "sh":
            fds.out(f"/system/bin/{name}\n".encode())
        else:
            status = 1
    return status if args else 1


BUILTINS = {"cd": _cd, "exit": _exit, "export": _export, "unset": _unset, ":": _colon,
            "sh": _sh, "exec": _wrapper, "nohup": _wrapper, "which": _which, "read": _read,
            "wait": _wait}
