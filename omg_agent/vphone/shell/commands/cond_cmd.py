"""``test`` / ``[``: file and string conditions for ``[ -f /sdcard/x ] && ...`` idioms.

Supports the unary file tests (``-e -f -d -s -r -w -x``), string tests (``-z -n = !=``),
integer comparisons (``-eq -ne -lt -le -gt -ge``) and a leading ``!``. Anything else is a
syntax error with exit status 2, as in toybox.
"""

from __future__ import annotations

from collections.abc import Callable

from omg_agent.vphone.shell.context import CommandTable, Ctx

INT_OPS: dict[str, Callable[[int, int], bool]] = {
    "-eq": lambda a, b: a == b, "-ne": lambda a, b: a != b, "-lt": lambda a, b: a < b,
    "-le": lambda a, b: a <= b, "-gt": lambda a, b: a > b, "-ge": lambda a, b: a >= b,
}


class _TestError(Exception):
    pass


def _unary(ctx: Ctx, op: str, operand: str) -> bool:
    if op == "-z":
        return operand == ""
    if op == "-n":
        return operand != ""
    st = ctx.phone.fs.stat(ctx.path(operand)) if operand else None
    checks: dict[str, Callable[[], bool]] = {
        "-e": lambda: st is not None, "-f": lambda: st is not None and not st.is_dir,
        "-d": lambda: st is not None and st.is_dir,
        "-s": lambda: st is not None and not st.is_dir and st.size > 0,
        "-r": lambda: st is not None, "-w": lambda: st is not None,
        "-x": lambda: st is not None and st.is_dir,
    }
    if op not in checks:
        raise _TestError(f"unknown operator {op}")
    return checks[op]()


def _binary(left: str, op: str, right: str) -> bool:
    if op in ("=", "=="):
        return left == right
    if op == "!=":
        return left != right
    if op in INT_OPS:
        try:
            return INT_OPS[op](int(left), int(right))
        except ValueError:
            bad = right if left.lstrip("-").isdigit() else left
            raise _TestError(f"bad number '{bad}'") from None
    raise _TestError(f"unknown operator {op}")


def _evaluate(ctx: Ctx, args: list[str]) -> bool:
    if args[:1] == ["!"]:
        return not _evaluate(ctx, args[1:])
    if not args:
        return False
    if len(args) == 1:
        return args[0] != ""
    if len(args) == 2:
        return _unary(ctx, args[0], args[1])
    if len(args) == 3:
        return _binary(args[0], args[1], args[2])
    raise _TestError("too many arguments")


def condition(ctx: Ctx, args: list[str]) -> int:
    if ctx.name == "[":
        if args[-1:] != ["]"]:
            return ctx.fail("missing ]", 2)
        args = args[:-1]
    try:
        return 0 if _evaluate(ctx, args) else 1
    except _TestError as exc:
        return ctx.fail(str(exc), 2)


COMMANDS: CommandTable = {"test": condition, "[": condition}
