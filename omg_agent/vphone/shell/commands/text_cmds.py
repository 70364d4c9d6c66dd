"""Text filters for pipelines: ``grep``, ``head``, ``tail``, ``wc``.

Enough for the idioms clients send, e.g. ``dumpsys window | grep mCurrentFocus`` or
``getprop | grep ro.product``. ``grep`` understands basic (default), extended (``-E``) and
fixed (``-F``) patterns; it works on bytes so any file content passes through unchanged.
"""

from __future__ import annotations

import re

from omg_agent.vphone.shell.context import CommandTable, Ctx, read_input

BRE_SWAPPED = set("+?|(){}")  # literal in a basic regex unless backslashed


def bre_to_python(pattern: str) -> str:
    """Translate a POSIX basic regular expression into Python syntax."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append(nxt if nxt in BRE_SWAPPED else c + nxt)
            i += 2
            continue
        out.append("\\" + c if c in BRE_SWAPPED else c)
        i += 1
    return "".join(out)


def _grep_options(args: list[str]) -> tuple[set[str], list[str], list[str]]:
    flags: set[str] = set()
    patterns: list[str] = []
    operands: list[str] = []
    it = iter(args)
    for arg in it:
        if arg == "-e":
            patterns.append(next(it, ""))
        elif arg.startswith("-") and len(arg) > 1 and not operands:
            flags.update(arg[1:])
        else:
            operands.append(arg)
    if not patterns and operands:
        patterns.append(operands.pop(0))
    return flags, patterns, operands


def _compile(flags: set[str], patterns: list[str]) -> re.Pattern[bytes]:
    if "F" in flags:
        parts = [re.escape(p) for p in patterns]
    elif "E" in flags:
        parts = patterns
    else:
        parts = [bre_to_python(p) for p in patterns]
    joined = "|".join(f"(?:{p})" for p in parts)
    if "w" in flags:
        joined = rf"(?<!\w)(?:{joined})(?!\w)"
    if "x" in flags:
        joined = rf"^(?:{joined})$"
    return re.compile(joined.encode("utf-8"), re.IGNORECASE if "i" in flags else 0)


def grep(ctx: Ctx, args: list[str]) -> int:
    flags, patterns, paths = _grep_options(args)
    if not patterns:
        ctx.errln("usage: grep [-EFivwcnoqx] [-e PATTERN]... PATTERN [FILE]...")
        return 2
    try:
        regex = _compile(flags, patterns)
    except re.error as exc:
        return ctx.fail(f"bad regex '{patterns[0]}': {exc}", 2)
    matched = False
    status = 0
    for path in paths or ["-"]:
        data, failed = read_input(ctx, [path])
        status = status or (2 if failed else 0)
        prefix = f"{path}:".encode() if len(paths) > 1 else b""
        count = 0
        for n, line in enumerate((data or b"").splitlines(), 1):
            hit = regex.search(line) is not None
            if hit == ("v" in flags):
                continue
            count += 1
            if not flags & {"c", "q", "l"}:
                number = f"{n}:".encode() if "n" in flags else b""
                if "o" in flags and "v" not in flags:
                    for m in regex.finditer(line):
                        ctx.out(prefix + number + m.group() + b"\n")
                else:
                    ctx.out(prefix + number + line + b"\n")
        matched = matched or count > 0
        if "c" in flags:
            ctx.out(prefix + f"{count}\n".encode())
        elif "l" in flags and count:
            ctx.outln(path)
    if status:
        return status
    return 0 if matched else 1


def _line_count(args: list[str], default: int = 10) -> tuple[str, list[str]]:
    """Parse ``-n N`` / ``-N`` / ``-nN``; returns (count text, remaining operands)."""
    count = str(default)
    rest: list[str] = []
    it = iter(args)
    for arg in it:
        if arg == "-n":
            count = next(it, count)
        elif arg.startswith("-n"):
            count = arg[2:]
        elif arg.startswith("-") and arg[1:].isdigit():
            count = arg[1:]
        else:
            rest.append(arg)
    return count, rest


def head(ctx: Ctx, args: list[str]) -> int:
    byte_count = None
    if "-c" in args:
        i = args.index("-c")
        byte_count = args[i + 1] if i + 1 < len(args) else ""
        args = args[:i] + args[i + 2:]
    count, paths = _line_count(args)
    limit = byte_count if byte_count is not None else count
    if not limit.isdigit():
        return ctx.fail(f"bad -{'c' if byte_count is not None else 'n'} '{limit}'")
    data, status = read_input(ctx, paths)
    if byte_count is not None:
        ctx.out((data or b"")[:int(limit)])
    else:
        ctx.out(b"".join((data or b"").splitlines(keepends=True)[:int(limit)]))
    return status


def tail(ctx: Ctx, args: list[str]) -> int:
    count, paths = _line_count(args)
    if not count.lstrip("+").isdigit():
        return ctx.fail(f"bad -n '{count}'")
    data, status = read_input(ctx, paths)
    lines = (data or b"").splitlines(keepends=True)
    if count.startswith("+"):
        ctx.out(b"".join(lines[max(int(count[1:]) - 1, 0):]))
    else:
        ctx.out(b"".join(lines[-int(count):] if int(count) else []))
    return status


def wc(ctx: Ctx, args: list[str]) -> int:
    flags = {c for a in args if a.startswith("-") for c in a[1:]} or {"l", "w", "c"}
    paths = [a for a in args if not a.startswith("-")]
    data, status = read_input(ctx, paths)
    data = data or b""
    values = {"l": data.count(b"\n"), "w": len(data.split()), "c": len(data)}
    fields = [f"{values[k]:>7}" if len(flags) > 1 else str(values[k])
              for k in "lwc" if k in flags]
    name = f" {paths[0]}" if len(paths) == 1 else ""
    ctx.outln(" ".join(fields) + name)
    return status


COMMANDS: CommandTable = {"grep": grep, "head": head, "tail": tail, "wc": wc}
