"""``input``: inject touches, keys and text, with Android 13's argument rules and errors.

Like the real ``InputShellCommand``: an optional source (``touchscreen``, ``keyboard``...) and
``-d DISPLAY`` come first; ``text`` types only its first argument, with ``%s`` turned into a
space, and only characters the virtual keyboard can generate (ASCII) arrive — unicode needs
the ADB-Keyboard broadcast (``am broadcast -a ADB_INPUT_B64``). A swipe that does not move is
a tap or, if held long enough, a long press (the phone decides).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable

from omg_agent.vphone.shell.commands.keycodes import keycode_from_string
from omg_agent.vphone.shell.context import CommandTable, Ctx

logger = logging.getLogger(__name__)

SOURCES = ("keyboard", "dpad", "gamepad", "touchscreen", "mouse", "stylus", "trackball",
           "touchpad", "touchnavigation", "joystick")
DEFAULT_SWIPE_MS = 300

USAGE = """Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The sources are:
{sources}

-d: specify the display ID.
      (Default: -1 for key event, 0 for motion event if not specified.)
The commands and default sources are:
      text <string> (Default: touchscreen)
      keyevent [--longpress|--doubletap|--async|--delay <duration between keycodes in ms>] \
<key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)
      keycombination [-t duration(ms)] <key code 1> <key code 2> ... \
(Default: keyboard, the key order is important here.)
"""


class _InputError(Exception):
    """Becomes 'Exception occurred while executing ...' as the real command prints it."""

    java = "java.lang.IllegalArgumentException"


class _NoKeyEvents(_InputError):
    """``input text`` with a character the virtual keyboard's key map cannot type: Android's
    ``KeyCharacterMap.getEvents`` returns null for the whole text and InputShellCommand reads
    its length, so nothing at all is typed."""

    java = "java.lang.NullPointerException"


def _coord(text: str) -> int:
    try:
        value = float(text)
    except ValueError:
        raise _InputError("Error: Invalid arguments for command") from None
    if not math.isfinite(value):
        raise _InputError("Error: Invalid arguments for command")
    return int(value)


def _need(args: list[str], n: int) -> None:
    if len(args) < n:
        after = f' after "{args[-1]}"' if args else ""
        raise _InputError(f"Argument expected{after}")


def typable(text: str) -> str:
    """The characters of ``input text``'s argument the virtual keyboard can type: ``%s`` →
    space, then ASCII only."""
    return "".join(c for c in text.replace("%s", " ") if ord(c) < 128)


def _text(ctx: Ctx, args: list[str]) -> None:
    _need(args, 1)
    text = typable(args[0])
    if text != args[0].replace("%s", " "):
        raise _NoKeyEvents("Attempt to get length of null array")
    if text:
        ctx.phone.input_text(text)


def _keyevent(ctx: Ctx, args: list[str]) -> None:
    _need(args, 1)
    i = 0
    delay_ms = 0
    while i < len(args) and args[i].startswith("--"):
        if args[i] == "--delay":
            if i + 1 >= len(args):
                raise _InputError('Argument expected after "--delay"')
            delay_ms = _coord(args[i + 1])
            i += 1
        i += 1
    if i >= len(args):
        raise _InputError("keycode expected")
    double = "--doubletap" in args[:i]
    for n, arg in enumerate(args[i:]):
        if n and delay_ms and ctx.wait(delay_ms / 1000):
            return
        code = keycode_from_string(arg)
        for _ in range(2 if double else 1):
            if code:  # KEYCODE_UNKNOWN is injected but nothing handles it
                ctx.phone.key(code)


def _tap(ctx: Ctx, args: list[str]) -> None:
    _need(args, 2)
    ctx.phone.tap(_coord(args[0]), _coord(args[1]))


def _points(args: list[str]) -> tuple[int, int, int, int, int]:
    _need(args, 4)
    x1, y1, x2, y2 = (_coord(a) for a in args[:4])
    duration = _coord(args[4]) if len(args) > 4 else -1
    return x1, y1, x2, y2, duration if duration >= 0 else DEFAULT_SWIPE_MS


def _swipe(ctx: Ctx, args: list[str]) -> None:
    # A swipe that stays put is how clients long-press; the phone decides tap vs long press.
    ctx.phone.swipe(*_points(args))


def _draganddrop(ctx: Ctx, args: list[str]) -> None:
    x1, y1, x2, y2, ms = _points(args)
    ctx.phone.drag(x1, y1, x2, y2, ms)


def _roll(ctx: Ctx, args: list[str]) -> None:
    _need(args, 2)
    _coord(args[0]), _coord(args[1])  # validated; a trackball roll moves no touch target


def _press(ctx: Ctx, args: list[str]) -> None:
    return None  # a trackball click at (0, 0): nothing on screen reacts


def _motionevent(ctx: Ctx, args: list[str]) -> None:
    """DOWN, MOVE..., UP arrive as separate commands: the UP replays the whole gesture."""
    _need(args, 1)
    action = args[0].upper()
    if action not in ("DOWN", "UP", "MOVE", "CANCEL"):
        raise _InputError(f"Unknown action: {args[0]}")
    if action == "CANCEL":
        ctx.state.touch_down = None
        return
    _need(args, 3)
    x, y = _coord(args[1]), _coord(args[2])
    if action == "DOWN":
        ctx.state.touch_down = (x, y, time.monotonic())
    elif action == "UP" and ctx.state.touch_down is not None:
        x0, y0, t0 = ctx.state.touch_down
        ctx.state.touch_down = None
        ctx.phone.swipe(x0, y0, x, y, int((time.monotonic() - t0) * 1000), hold=False)


def _keycombination(ctx: Ctx, args: list[str]) -> None:
    if args[:1] == ["-t"]:
        _need(args, 3)
        args = args[2:]
    codes = [keycode_from_string(a) for a in args]
    for arg, code in zip(args, codes, strict=True):
        if not code:
            raise _InputError(f"Unknown keycode: {arg}")
    if len(codes) < 2:
        raise _InputError("keycombination requires at least 2 keycodes")
    ctx.phone.key_combo(codes)


SUBCOMMANDS: dict[str, Callable[[Ctx, list[str]], None]] = {
    "text": _text, "keyevent": _keyevent, "tap": _tap, "swipe": _swipe,
    "draganddrop": _draganddrop, "press": _press, "roll": _roll,
    "motionevent": _motionevent, "keycombination": _keycombination,
}


def input_cmd(ctx: Ctx, args: list[str]) -> int:
    if not args or args[0] in ("-h", "help"):
        ctx.out(USAGE.format(sources="\n".join("      " + s for s in SOURCES)))
        return 0
    first = args[0]
    rest = args[1:]
    if rest and args[0] in SOURCES:
        args = rest
    if len(args) >= 2 and args[0] == "-d":
        named = args[1].upper() in ("INVALID_DISPLAY", "DEFAULT_DISPLAY")
        if not named and not args[1].lstrip("-").isdigit():
            return _exception(ctx, first, "Error: Invalid arguments for display ID.")
        args = args[2:]
    if not args:
        return _exception(ctx, first, "Argument expected after \"-d\"")
    sub = SUBCOMMANDS.get(args[0])
    if sub is None:
        ctx.outln(f"Unknown command: {args[0]}")
        return 0
    if ctx.latency("input"):
        return 0
    try:
        sub(ctx, args[1:])
    except _InputError as exc:
        message = str(exc)
        if message == "Error: Invalid arguments for command":
            message += f": {args[0]}"
        return _exception(ctx, first, message, exc.java)
    return 0


def _exception(ctx: Ctx, cmd: str, message: str,
               java: str = _InputError.java) -> int:
    ctx.err(f"\nException occurred while executing '{cmd}':\n{java}: {message}\n")
    return 255


COMMANDS: CommandTable = {"input": input_cmd}
