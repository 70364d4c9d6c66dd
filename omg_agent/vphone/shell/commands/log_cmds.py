"""``logcat`` and ``log``: read, follow and clear the phone's log buffer, and write to it.

The buffer (``phone.log``, see ``logbuf.py``) holds what the system and the apps log:
activity starts, process starts and kills, input the app windows receive, crashes. Options
follow Android 13's logcat: ``-c/--clear``, ``-d``, ``-v/--format`` (brief, long, process,
raw, tag, thread, threadtime, time, plus the year/epoch/UTC modifiers), ``-t``/``-T``
(a count or a ``'MM-DD hh:mm:ss.mmm'`` time), ``-m/--max-count``, ``-e/--regex``,
``--pid``, ``-s`` and ``TAG:LEVEL`` filters, ``-b`` (one buffer holds everything), ``-g``.
Without ``-d``/``-t``/``-c``/``-g`` logcat follows the log until the client goes away.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from omg_agent.vphone.shell.context import CommandTable, Ctx

if TYPE_CHECKING:
    from omg_agent.vphone.logbuf import LogLine

LEVELS = "VDIWEFS"
FORMATS = ("brief", "long", "process", "raw", "tag", "thread", "threadtime", "time")
MODIFIERS = ("color", "descriptive", "epoch", "monotonic", "printable", "uid", "usec", "UTC",
             "year", "zone")
BUFFERS = ("main", "system", "radio", "events", "crash", "default", "all", "kernel", "stats",
           "security")
SHELL_PID = 4242
FOLLOW_POLL_S = 0.5


class _Usage(Exception):
    pass


@dataclass
class _Opts:
    clear: bool = False
    dump: bool = False
    size: bool = False
    follow: bool = True
    fmt: str = "threadtime"
    mods: set[str] = field(default_factory=set)
    tail: str | None = None
    max_count: int | None = None
    regex: re.Pattern[str] | None = None
    pid: int | None = None
    silent: bool = False
    filters: dict[str, str] = field(default_factory=dict)


def _value(args: list[str], i: int, flag: str) -> tuple[str, int]:
    arg = args[i]
    if arg.startswith("--") and "=" in arg:
        return arg.split("=", 1)[1], i
    if not arg.startswith("--") and len(arg) > 2:
        return arg[2:], i
    if i + 1 >= len(args):
        raise _Usage(f"option requires an argument -- {flag}")
    return args[i + 1], i + 1


def _format(opts: _Opts, spec: str) -> None:
    for word in re.split(r"[,\s]+", spec.strip()):
        if word in FORMATS:
            opts.fmt = word
        elif word in MODIFIERS:
            opts.mods.add(word)
        elif word:
            raise _Usage(f'Invalid parameter "{spec}" to -v')


def _parse(args: list[str]) -> _Opts:
    opts = _Opts()
    i = 0
    while i < len(args):
        arg = args[i]
        name = arg.split("=", 1)[0]
        if arg in ("-c", "--clear"):
            opts.clear = True
        elif arg in ("-d",):
            opts.dump = True
        elif arg in ("-g", "--buffer-size"):
            opts.size = True
        elif arg in ("-s",):
            opts.silent = True
        elif name in ("-v", "--format") or (arg.startswith("-v") and len(arg) > 2):
            spec, i = _value(args, i, "v")
            _format(opts, spec)
        elif name in ("-t", "-T") or (arg[:2] in ("-t", "-T") and len(arg) > 2):
            opts.tail, i = _value(args, i, arg[1])
            opts.dump = opts.dump or arg.startswith("-t")
        elif name in ("-m", "--max-count") or (arg.startswith("-m") and len(arg) > 2):
            count, i = _value(args, i, "m")
            if not count.isdigit():
                raise _Usage(f"-m \"{count}\" isn't an integer")
            opts.max_count = int(count)
        elif name in ("-e", "--regex") or (arg.startswith("-e") and len(arg) > 2):
            pattern, i = _value(args, i, "e")
            try:
                opts.regex = re.compile(pattern)
            except re.error:
                raise _Usage(f'Invalid regex "{pattern}"') from None
        elif name == "--pid":
            pid, i = _value(args, i, "pid")
            if not pid.isdigit():
                raise _Usage(f'--pid "{pid}" isn\'t an integer')
            opts.pid = int(pid)
        elif name in ("-b", "--buffer") or (arg.startswith("-b") and len(arg) > 2):
            buffers, i = _value(args, i, "b")
            for buf in buffers.split(","):
                if buf not in BUFFERS:
                    raise _Usage(f'Unknown buffer "{buf}"')
        elif arg.startswith("-"):
            raise _Usage(f"unrecognized option '{arg}'")
        else:
            tag, _, level = arg.rpartition(":") if ":" in arg else (arg, "", "V")
            level = (level or "V")[0].upper()
            if level not in LEVELS:
                raise _Usage(f'Invalid filter expression "{arg}"')
            opts.filters[tag] = level
        i += 1
    return opts


def _stamp(line: LogLine, mods: set[str]) -> str:
    if "epoch" in mods:
        return f"{line.when:.3f}"
    tm = time.gmtime(line.when) if "UTC" in mods else time.localtime(line.when)
    day = time.strftime("%Y-%m-%d" if "year" in mods else "%m-%d", tm)
    frac = f"{line.when % 1:.6f}"[2:] if "usec" in mods else f"{int(line.when % 1 * 1000):03d}"
    return f"{day} {time.strftime('%H:%M:%S', tm)}.{frac}"


def render(line: LogLine, fmt: str = "threadtime", mods: set[str] | None = None) -> str:
    """One log line in a logcat output format (without the trailing newline)."""
    mods = mods or set()
    lv, tag, msg = line.level, line.tag, line.message
    if fmt == "brief":
        return f"{lv}/{tag:<8}({line.pid:5d}): {msg}"
    if fmt == "process":
        return f"{lv}({line.pid:5d}) {msg}  ({tag})"
    if fmt == "tag":
        return f"{lv}/{tag:<8}: {msg}"
    if fmt == "thread":
        return f"{lv}({line.pid:5d}:{line.tid:5d}) {msg}"
    if fmt == "raw":
        return msg
    if fmt == "time":
        return f"{_stamp(line, mods)} {lv}/{tag:<8}({line.pid:5d}): {msg}"
    if fmt == "long":
        return f"[ {_stamp(line, mods)} {line.pid:5d}:{line.tid:5d} {lv}/{tag:<8} ]\n{msg}\n"
    return f"{_stamp(line, mods)} {line.pid:5d} {line.tid:5d} {lv} {tag:<8}: {msg}"


def _wanted(line: LogLine, opts: _Opts) -> bool:
    default = opts.filters.get("*", "S" if opts.silent else "V")
    floor = opts.filters.get(line.tag, default)
    if LEVELS.index(line.level) < LEVELS.index(floor) or floor == "S":
        return False
    if opts.pid is not None and line.pid != opts.pid:
        return False
    return opts.regex is None or opts.regex.search(line.message) is not None


def _since_time(text: str, lines: list[LogLine]) -> list[LogLine]:
    m = re.fullmatch(r"(?:(\d{4})-)?(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d+))?", text)
    if m is None:
        raise _Usage(f'-t "{text}" not in time format')
    year = int(m.group(1) or time.localtime().tm_year)
    month, day, hour, minute, second = (int(m.group(k)) for k in range(2, 7))
    start = time.mktime((year, month, day, hour, minute, second, 0, 0, -1)) + float(
        "0." + (m.group(7) or "0"))
    return [line for line in lines if line.when >= start]


def logcat(ctx: Ctx, args: list[str]) -> int:
    log = ctx.phone.log
    try:
        opts = _parse(args)
        seq = log.last_seq
        lines = [line for line in log.since(0) if _wanted(line, opts)]
        if opts.tail is not None and not opts.tail.isdigit():
            lines = _since_time(opts.tail, lines)
    except _Usage as exc:
        ctx.errln(f"logcat: {exc}")
        return 1
    if opts.clear:
        log.clear()
        return 0
    if opts.size:
        kib = len(lines) * 96 // 1024
        ctx.outln(f"main: ring buffer is 256 KiB ({kib} KiB consumed), "
                  "max entry is 5120 B, max payload is 4068 B")
        return 0
    if opts.tail is not None and opts.tail.isdigit():
        lines = lines[max(0, len(lines) - int(opts.tail)):]
    left = opts.max_count
    printed = _print(ctx, lines, opts, left)
    left = None if left is None else left - printed
    while not opts.dump and (left is None or left > 0):
        if ctx.cancelled.is_set():
            break
        if not log.wait_after(seq, FOLLOW_POLL_S):
            continue
        new = log.since(seq)
        if new:
            seq = new[-1].seq
        printed = _print(ctx, [line for line in new if _wanted(line, opts)], opts, left)
        left = None if left is None else left - printed
    return 0


def _print(ctx: Ctx, lines: list[LogLine], opts: _Opts, left: int | None) -> int:
    if left is not None:
        lines = lines[:max(0, left)]
    if lines:
        ctx.out("".join(render(line, opts.fmt, opts.mods) + "\n" for line in lines))
    return len(lines)


PRIORITIES = {"v": "V", "verbose": "V", "d": "D", "debug": "D", "i": "I", "info": "I",
              "w": "W", "warn": "W", "e": "E", "error": "E", "f": "F", "fatal": "F",
              "a": "F", "assert": "F"}


def log_cmd(ctx: Ctx, args: list[str]) -> int:
    """``log [-p PRIORITY] [-t TAG] MESSAGE...``: write a line into the log."""
    level, tag = "I", "log"
    while args[:1] in (["-p"], ["-t"]) and len(args) >= 2:
        if args[0] == "-p":
            level = PRIORITIES.get(args[1].lower(), "")
            if not level:
                ctx.errln(f"log: unknown priority '{args[1]}'")
                return 1
        else:
            tag = args[1]
        args = args[2:]
    if not args:
        ctx.errln("usage: log [-p PRIORITY] [-t TAG] MESSAGE...")
        return 1
    ctx.phone.log.add(SHELL_PID, level, tag, " ".join(args))
    return 0


COMMANDS: CommandTable = {"logcat": logcat, "log": log_cmd}
