"""Screen commands: ``screencap``, ``uiautomator dump``, ``wm size|density``, ``vphone-idle``.

Pixels and XML come from the phone (``screencap_png``/``screencap_raw``/``dump_xml``); the
simulated device cost of each is waited out first (``command_latency``), so a harness that
screenshots through ``adb exec-out screencap -p`` pays what it would on a real phone;
``uiautomator dump`` also waits until the UI is idle (``phone.motion.idle_in``).
``vphone-idle`` is the virtual phone's own (a phone made with ``reports_idle``; elsewhere it
is not found, as on a real phone): ``idle`` or ``busy`` — a transition running, an app still
launching, a spinner turning (``App.moving``) — and the md5 of the raw frame now (the digest
``screencap | md5sum`` gives), so a driver knows the screen is final without watching it for
a quiet window.
"""

from __future__ import annotations

import re

from omg_agent.vphone.memfs import FsError
from omg_agent.vphone.shell.context import SH, CommandTable, Ctx

DEFAULT_DUMP = "/sdcard/window_dump.xml"
SCREENCAP_USAGE = """usage: screencap [-hp] [-d display-id] [FILENAME]
   -h: this message
   -p: save the file as a png.
   -d: specify the physical display ID to capture (default: 0)
If FILENAME ends with .png it will be saved as a png.
If FILENAME is not given, the results will be printed to stdout.
"""
UIAUTOMATOR_USAGE = """Usage: uiautomator <subcommand> [options]

Available subcommands:

help: displays help message

runtest: executes UI automation tests
    runtest <class spec> [options]

dump: creates an XML dump of current UI hierarchy
    dump [--verbose][file]
      [--compressed]: dumps compressed layout information.
      [file]: the location where the dumped XML should be stored, default is
      /sdcard/window_dump.xml

events: prints out accessibility events until terminated
"""


def screencap(ctx: Ctx, args: list[str]) -> int:
    png = False
    target: str | None = None
    it = iter(args)
    for arg in it:
        if arg == "-p":
            png = True
        elif arg == "-d":
            next(it, None)  # one display: any id shows it
        elif arg.startswith("-"):
            ctx.err(SCREENCAP_USAGE)
            return 0 if arg == "-h" else 1
        else:
            target = arg
    if target is not None and target.endswith(".png"):
        png = True
    if ctx.latency("screencap_png" if png else "screencap_raw"):
        return 0
    data = ctx.phone.screencap_png() if png else ctx.phone.screencap_raw()
    if target is None:
        ctx.out(data)
        return 0
    try:
        ctx.phone.fs.write(ctx.path(target), data)
    except FsError as exc:
        ctx.errln(f"Error opening file: {target} ({exc.reason})")
        return 1
    return 0


def uiautomator(ctx: Ctx, args: list[str]) -> int:
    if not args or args[0] != "dump":
        ctx.out(UIAUTOMATOR_USAGE)
        return 0 if not args or args[0] == "help" else 1
    paths = [a for a in args[1:] if not a.startswith("--")]
    path = paths[0] if paths else DEFAULT_DUMP
    # Like the real tool, wait for the UI to go idle (a transition, an app still launching).
    if ctx.wait(ctx.phone.motion.idle_in()) or ctx.latency("dump"):
        return 0
    xml = ctx.phone.dump_xml()
    done = f"UI hierchary dumped to: {path}\n"  # sic: Android's own spelling
    if path == "/dev/tty":
        ctx.out(xml + done)
        return 0
    try:
        ctx.phone.fs.write(ctx.path(path), xml.encode("utf-8"))
    except FsError as exc:
        ctx.errln(f"ERROR: java.io.FileNotFoundException: {path}: open failed: {exc.reason}")
        return 1
    ctx.out(done)
    return 0


def vphone_idle(ctx: Ctx, args: list[str]) -> int:
    phone = ctx.phone
    if not phone.reports_idle:
        ctx.errln(f"{SH}: {ctx.name}: inaccessible or not found")
        return 127
    with phone.lock:  # the answer and the frame from the same moment
        state = "idle" if phone.motion.idle_in() <= 0 and not phone.app.moving() else "busy"
        digest = phone.frame_digest()
    ctx.outln(f"{state} {digest}")
    return 0


def _wm_size(ctx: Ctx, args: list[str]) -> int:
    profile = ctx.phone.profile
    display = ctx.state.display
    if not args:
        ctx.outln(f"Physical size: {profile.width}x{profile.height}")
        if display.size is not None:
            ctx.outln(f"Override size: {display.size[0]}x{display.size[1]}")
        return 0
    if args[0] == "reset":
        display.size = None
        return 0
    m = re.fullmatch(r"(\d+)(?:dp)?x(\d+)(?:dp)?", args[0])
    if m is None:
        ctx.errln(f"Error: bad size {args[0]}")
        return 255
    display.size = (int(m.group(1)), int(m.group(2)))
    return 0


def _wm_density(ctx: Ctx, args: list[str]) -> int:
    display = ctx.state.display
    if not args:
        ctx.outln(f"Physical density: {ctx.phone.profile.density}")
        if display.density is not None:
            ctx.outln(f"Override density: {display.density}")
        return 0
    if args[0] == "reset":
        display.density = None
        return 0
    if not args[0].isdigit():
        ctx.errln(f"Error: bad number {args[0]}")
        return 255
    display.density = int(args[0])
    return 0


def wm(ctx: Ctx, args: list[str]) -> int:
    # "-d <display>" may appear anywhere; there is one display.
    rest = [a for i, a in enumerate(args) if a != "-d" and (i == 0 or args[i - 1] != "-d")]
    sub = {"size": _wm_size, "density": _wm_density}.get(rest[0] if rest else "")
    if sub is None:
        if not rest:
            ctx.outln("Window manager (window) commands:")
        return 0
    with ctx.state.lock:
        return sub(ctx, rest[1:])


COMMANDS: CommandTable = {"screencap": screencap, "uiautomator": uiautomator, "wm": wm,
                          "vphone-idle": vphone_idle}
