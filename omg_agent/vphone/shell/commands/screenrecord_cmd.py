"""``screenrecord``: record the screen as Android 14's screenrecord does (see screenrecord.py).

Options as the real tool takes them: ``--size WxH``, ``--bit-rate RATE`` (``4000000`` or
``4M``), ``--time-limit SECONDS`` (at most 180; 0 = until stopped), ``--output-format=mp4|h264``
(``=`` or a separate value), ``--verbose``; ``--bugreport``, ``--display-id``, ``--rotate`` are
accepted. ``-`` writes an h264 stream to stdout as it is encoded (what mirroring tools read);
a path gets an mp4 when the recording stops — at the time limit, or when its stream closes
(``Ctrl-C`` of ``adb shell``, ``kill -INT`` of a background job).
"""

from __future__ import annotations

import io
import re

from omg_agent.vphone.memfs import FsError
from omg_agent.vphone.screenrecord import (
    DEFAULT_BIT_RATE,
    DEFAULT_TIME_LIMIT,
    FORMATS,
    EncoderMissing,
    RecordOptions,
    StreamSink,
    record,
)
from omg_agent.vphone.shell.context import CommandTable, Ctx

USAGE = """Usage: screenrecord [options] <filename>

Android screenrecord v1.3.  Records the device's display to a .mp4 file.

Options:
--size WIDTHxHEIGHT
    Set the video size, e.g. "1280x720".  Default is the device's main
    display resolution (if supported), 1280x720 if not.  For best results,
    use a size supported by the AVC encoder.
--bit-rate RATE
    Set the video bit rate, in bits per second.  Value may be specified as
    bits or megabits, e.g. '4000000' is equivalent to '4M'.  Default 20Mbps.
--time-limit TIME
    Set the maximum recording time, in seconds.  Default is 180. Set to 0
    to remove the time limit.
--output-format FORMAT
    Write mp4 (the default) or h264 (a raw stream, also to '-' for stdout).
--verbose
    Display interesting information on stdout.
--help
    Show this message.

Recording continues until Ctrl-C is hit or the time limit is reached.
"""
_VALUED = ("--size", "--bit-rate", "--time-limit", "--output-format", "--display-id",
           "--rotate-degrees", "--codec-name")
_FLAGS = ("--verbose", "--bugreport", "--rotate", "--persistent-surface", "--monotonic-time")


class _Usage(ValueError):
    """A bad argument; the message is what screenrecord prints before exiting 2."""


def _size(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d+)x(\d+)", text)
    if m is None or int(m[1]) < 2 or int(m[2]) < 2 or int(m[1]) % 2 or int(m[2]) % 2:
        raise _Usage(f"Invalid size '{text}', must be width x height (even numbers)")
    return int(m[1]), int(m[2])


def _bit_rate(text: str) -> int:
    m = re.fullmatch(r"(\d+)([mM]?)", text)
    rate = int(m[1]) * (1_000_000 if m[2] else 1) if m else 0
    if not 100_000 <= rate <= 200_000_000:
        raise _Usage(f"Invalid bit rate '{text}' (must be 100000 to 200000000)")
    return rate


def _time_limit(text: str) -> int:
    if not text.isdigit() or int(text) > DEFAULT_TIME_LIMIT:
        raise _Usage(f"Invalid time limit '{text}' (must be 0 to {DEFAULT_TIME_LIMIT})")
    return int(text)


def parse_args(args: list[str]) -> tuple[RecordOptions, str, bool]:
    """(options, output path or '-', verbose) of a screenrecord command line."""
    values: dict[str, str] = {}
    verbose, rest = False, list(args)
    path: str | None = None
    while rest:
        arg = rest.pop(0)
        name, eq, value = arg.partition("=")
        if name in _VALUED:
            if not eq:
                if not rest:
                    raise _Usage(f"screenrecord: option '{name}' requires an argument")
                value = rest.pop(0)
            values[name] = value
        elif arg in _FLAGS:
            verbose = verbose or arg == "--verbose"
        elif arg.startswith("--") or (arg.startswith("-") and arg != "-"):
            raise _Usage(f"screenrecord: unrecognized option '{arg}'")
        elif path is None:
            path = arg
        else:
            raise _Usage("Must specify output file (see --help).")
    if path is None:
        raise _Usage("Must specify output file (see --help).")
    fmt = values.get("--output-format", "mp4")
    if fmt not in FORMATS:
        raise _Usage(f"Unknown format '{fmt}' (the vphone writes {' or '.join(FORMATS)})")
    if path == "-" and fmt == "mp4":
        raise _Usage("mp4 cannot be written to stdout; use --output-format=h264")
    opts = RecordOptions(
        size=_size(values["--size"]) if "--size" in values else None,
        bit_rate=_bit_rate(values.get("--bit-rate", str(DEFAULT_BIT_RATE))),
        time_limit=_time_limit(values.get("--time-limit", str(DEFAULT_TIME_LIMIT))), fmt=fmt)
    return opts, path, verbose


def screenrecord(ctx: Ctx, args: list[str]) -> int:
    if "--help" in args or "--version" in args:
        ctx.out(USAGE if "--help" in args else "1.3\n")
        return 0
    try:
        opts, path, verbose = parse_args(args)
    except _Usage as exc:
        ctx.errln(str(exc))
        return 2
    p = ctx.phone.profile
    if verbose:
        w, h = opts.size or (p.width, p.height)
        ctx.outln(f"Main display is {p.width}x{p.height} @60.00fps (orientation=ROTATION_0)")
        ctx.outln(f"Configured codec video/avc, {w}x{h}, {opts.bit_rate / 1e6:.1f}Mbps")
    to_stdout = path == "-"
    buffer = io.BytesIO()
    sink = StreamSink(ctx.out) if to_stdout else buffer
    try:
        frames = record(ctx.phone, opts, sink, ctx.wait)  # type: ignore[arg-type]
    except EncoderMissing as exc:
        ctx.errln(str(exc))
        return 1
    if not to_stdout:
        try:
            ctx.phone.fs.write(ctx.path(path), buffer.getvalue())
        except FsError as exc:
            ctx.errln(f"Unable to open '{path}': {exc.reason}")
            return 1
    if verbose:
        ctx.outln(f"Stopping encoder and muxer\nEncoded {frames} frames")
    return 0


COMMANDS: CommandTable = {"screenrecord": screenrecord}
