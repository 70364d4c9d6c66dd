"""File commands over the phone's MemFS, printing what Android's toybox prints.

``cat ls rm mkdir touch cp mv chmod echo md5sum sha1sum sha256sum base64``. Paths are
relative to the shell's cwd. uiautomator2 checks its jar with ``toybox md5sum`` and expects
``<hex>  <path>``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import posixpath
import stat as stat_mod
from datetime import UTC, datetime

from omg_agent.vphone.memfs import FileStat, FsError
from omg_agent.vphone.shell.context import CommandTable, Ctx, read_input

ECHO_ESCAPES = {"\\": "\\", "a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n",
                "r": "\r", "t": "\t", "v": "\v"}
HEX_DIGITS = "0123456789abcdefABCDEF"


def _split_flags(args: list[str], known: str) -> tuple[set[str], list[str]]:
    """Toybox-style ``-rf`` flag clusters before ``--``/the first operand."""
    flags: set[str] = set()
    rest: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            return flags, rest + args[i + 1:]
        if arg.startswith("-") and len(arg) > 1 and not rest and set(arg[1:]) <= set(known):
            flags.update(arg[1:])
        else:
            rest.append(arg)
    return flags, rest


def cat(ctx: Ctx, args: list[str]) -> int:
    _, paths = _split_flags(args, "uv")
    data, status = read_input(ctx, paths)
    if data:
        ctx.out(data)
    return status


# -- ls -------------------------------------------------------------------------------------
def _long(name: str, st: FileStat) -> str:
    when = datetime.fromtimestamp(st.mtime, UTC).strftime("%Y-%m-%d %H:%M")
    links = 2 if st.is_dir else 1
    return f"{stat_mod.filemode(st.mode)} {links} shell shell {st.size:>8} {when} {name}"


def _ls_dir(ctx: Ctx, path: str, flags: set[str]) -> list[str]:
    entries = ctx.phone.fs.listdir(path)
    if "a" in flags:
        st = ctx.phone.fs.stat(path)
        entries = [(".", st), ("..", st), *entries]
    else:
        entries = [(n, s) for n, s in entries if not n.startswith(".")]
    if "l" not in flags:
        return [name for name, _ in entries]
    total = sum((s.size + 1023) // 1024 for _, s in entries if not s.is_dir) + 4 * sum(
        1 for _, s in entries if s.is_dir)
    return [f"total {total}", *(_long(n, s) for n, s in entries)]


def ls(ctx: Ctx, args: list[str]) -> int:
    flags, paths = _split_flags(args, "laAdhR1tSrnF")
    paths = paths or ["."]
    status = 0
    blocks: list[list[str]] = []
    files: list[str] = []
    for p in paths:
        st = ctx.phone.fs.stat(ctx.path(p))
        if st is None:
            ctx.fail(f"{p}: No such file or directory")
            status = 1
        elif not st.is_dir or "d" in flags:
            files.append(_long(p, st) if "l" in flags else p)
        else:
            lines = _ls_dir(ctx, ctx.path(p), flags)
            blocks.append([f"{p}:", *lines] if len(paths) > 1 else lines)
    chunks = ["\n".join(files)] if files else []
    chunks += ["\n".join(b) for b in blocks]
    text = "\n\n".join(c for c in chunks if c)
    if text:
        ctx.outln(text)
    return status


# -- changing files ---------------------------------------------------------------------------
def rm(ctx: Ctx, args: list[str]) -> int:
    flags, paths = _split_flags(args, "rRfvid")
    if not paths and "f" not in flags:
        return ctx.fail("Needs 1 argument")
    status = 0
    for p in paths:
        try:
            ctx.phone.fs.remove(ctx.path(p), recursive=bool(flags & {"r", "R"}))
        except FsError as exc:
            if "f" in flags and exc.reason == "No such file or directory":
                continue
            status = ctx.fail(f"{p}: {exc.reason}")
    return status


def mkdir(ctx: Ctx, args: list[str]) -> int:
    flags, paths = _split_flags(args, "pv")
    status = 0
    for p in paths:
        try:
            ctx.phone.fs.mkdir(ctx.path(p), parents="p" in flags)
        except FsError as exc:
            status = ctx.fail(f"'{p}': {exc.reason}")
    return status


def touch(ctx: Ctx, args: list[str]) -> int:
    _, paths = _split_flags(args, "acm")
    status = 0
    for p in paths:
        try:
            ctx.phone.fs.write(ctx.path(p), b"", append=True)
        except FsError as exc:
            status = ctx.fail(f"'{p}': {exc.reason}")
    return status


def _copy(ctx: Ctx, args: list[str], *, move: bool) -> int:
    _, paths = _split_flags(args, "fipnvr")
    if len(paths) < 2:
        return ctx.fail("Needs 2 arguments")
    fs = ctx.phone.fs
    dest = ctx.path(paths[-1])
    status = 0
    for p in paths[:-1]:
        src = ctx.path(p)
        target = posixpath.join(dest, posixpath.basename(src)) if fs.is_dir(dest) else dest
        try:
            fs.write(target, fs.read(src))
            if move:
                fs.remove(src)
        except FsError as exc:
            status = ctx.fail(f"{exc.path}: {exc.reason}")
    return status


def cp(ctx: Ctx, args: list[str]) -> int:
    return _copy(ctx, args, move=False)


def mv(ctx: Ctx, args: list[str]) -> int:
    return _copy(ctx, args, move=True)


def chmod(ctx: Ctx, args: list[str]) -> int:
    operands = [a for a in args if not a.startswith("-")]
    status = 0
    for p in operands[1:]:
        if not ctx.phone.fs.exists(ctx.path(p)):
            status = ctx.fail(f"{p}: No such file or directory")
    return status if len(operands) >= 2 else ctx.fail("Needs 2 arguments")


# -- text in, text out ---------------------------------------------------------------------------
def _echo_escapes(text: str) -> tuple[str, bool]:
    """Interpret ``echo -e`` escapes; the flag is False after ``\\c`` (stop output)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if c != "\\" or not nxt:
            out.append(c)
            i += 1
        elif nxt == "c":
            return "".join(out), False
        elif nxt in ECHO_ESCAPES:
            out.append(ECHO_ESCAPES[nxt])
            i += 2
        elif nxt in ("0", "x"):
            digits, base, limit = ("01234567", 8, 3) if nxt == "0" else (HEX_DIGITS, 16, 2)
            j = i + 2
            while j < len(text) and j - (i + 2) < limit and text[j] in digits:
                j += 1
            if nxt == "x" and j == i + 2:
                out.append("\\x")  # no hex digits: printed as is
            else:
                out.append(chr(int(text[i + 2:j] or "0", base)))
            i = max(j, i + 2)
        else:
            out.append(c)
            i += 1
    return "".join(out), True


def echo(ctx: Ctx, args: list[str]) -> int:
    newline, escapes = True, False
    while args and len(args[0]) > 1 and args[0][0] == "-" and set(args[0][1:]) <= set("neE"):
        newline = newline and "n" not in args[0]
        escapes = ("e" in args[0]) or (escapes and "E" not in args[0])
        args = args[1:]
    text = " ".join(args)
    if escapes:
        text, keep_going = _echo_escapes(text)
        newline = newline and keep_going
    ctx.out(text + ("\n" if newline else ""))
    return 0


def _digest(algorithm: str):
    def command(ctx: Ctx, args: list[str]) -> int:
        _, paths = _split_flags(args, "bc")
        status = 0
        for p in paths or ["-"]:
            data, failed = read_input(ctx, [p])
            if failed:
                status = 1
                continue
            ctx.outln(f"{hashlib.new(algorithm, data or b'').hexdigest()}  {p}")
        return status

    return command


def b64(ctx: Ctx, args: list[str]) -> int:
    flags, paths = _split_flags(args, "di")
    width = 76
    if "-w" in paths:
        i = paths.index("-w")
        width = int(paths[i + 1]) if i + 1 < len(paths) and paths[i + 1].isdigit() else 76
        paths = paths[:i] + paths[i + 2:]
    data, status = read_input(ctx, paths)
    if status:
        return status
    if "d" in flags:
        try:
            ctx.out(base64.b64decode(b"".join((data or b"").split()), validate=True))
        except binascii.Error:
            return ctx.fail("bad input")
        return 0
    encoded = base64.b64encode(data or b"").decode()
    lines = [encoded[i:i + width] for i in range(0, len(encoded), width)] if width else [encoded]
    ctx.out("".join(line + "\n" for line in lines if line))
    return 0


COMMANDS: CommandTable = {
    "cat": cat, "ls": ls, "rm": rm, "mkdir": mkdir, "touch": touch, "cp": cp, "mv": mv,
    "chmod": chmod, "echo": echo, "md5sum": _digest("md5"), "sha1sum": _digest("sha1"),
    "sha256sum": _digest("sha256"), "base64": b64,
}
