"""``app_process``: run a Java class from a pushed jar/dex, as the helpers peers push do.

The argument order is app_main.cpp's: ``app_process [vm-options] cmd-dir [--runtime-options]
start-class-name [main-options]``; the class path comes from ``-Djava.class.path=`` or
``$CLASSPATH``. Two classes are known: uiautomator2's server (``com.wetest.uia2.Main``, see
pm_cmds) and yadb (``com.ysbing.yadb.Main``: ``-keyboard TEXT`` types into the focused field
(any script, as its accessibility set-text does), ``-screenshot [PATH]`` writes a PNG,
``-layout [PATH]`` the hierarchy XML, ``-touch X Y [MS]`` long-presses, ``-readClipboard``
prints the clipboard). yadb runs only once its file was pushed where the class path says;
any other class fails with the ClassNotFoundException a phone prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from omg_agent.vphone.memfs import FsError
from omg_agent.vphone.shell.commands.pm_cmds import U2_MAIN, u2_server
from omg_agent.vphone.shell.context import CommandTable, Ctx

YADB_MAIN = "com.ysbing.yadb.Main"
YADB_SCREENSHOT = "/data/local/tmp/yadb_screenshot.png"
YADB_LAYOUT = "/data/local/tmp/yadb_layout_dump.xml"
USAGE = "Usage: app_process [java-options] cmd-dir start-class-name [options]"
NATIVE_LIBS = "nativeLibraryDirectories=[/system/lib64, /system_ext/lib64]"


@dataclass
class Launch:
    classpath: list[str]
    cmd_dir: str
    cls: str
    args: list[str] = field(default_factory=list)


def parse_launch(args: list[str], env: dict[str, str]) -> Launch | None:
    """The parts of an ``app_process`` command line; None if it names no class."""
    i = 0
    classpath = env.get("CLASSPATH", "")
    while i < len(args) and args[i].startswith("-"):
        if args[i].startswith("-Djava.class.path="):
            classpath = args[i].partition("=")[2]
        i += 1
    if i >= len(args):
        return None
    cmd_dir = args[i]
    i += 1
    while i < len(args) and args[i].startswith("--"):
        i += 1  # --nice-name=..., --application: runtime options before the class
    if i >= len(args):
        return None
    return Launch([p for p in classpath.split(":") if p], cmd_dir, args[i], args[i + 1:])


def _class_not_found(ctx: Ctx, launch: Launch) -> int:
    files = ", ".join(f'zip file "{p}"' for p in launch.classpath)
    ctx.errln(f'java.lang.ClassNotFoundException: Didn\'t find class "{launch.cls}" on path: '
              f"DexPathList[[{files}],{NATIVE_LIBS}]")
    return 1


def _pushed(ctx: Ctx, launch: Launch) -> bool:
    return any(ctx.phone.fs.exists(ctx.path(p)) for p in launch.classpath)


def _write(ctx: Ctx, path: str, data: bytes) -> bool:
    try:
        ctx.phone.fs.write(ctx.path(path), data)
    except FsError as exc:
        ctx.outln(f"MainException:java.io.FileNotFoundException: {path}: {exc.reason}")
        return False
    return True


def yadb(ctx: Ctx, args: list[str]) -> int:
    """yadb's Main: prints its own errors to stdout and always exits 0, as the tool does."""
    verb = args[0] if args else ""
    phone = ctx.phone
    if verb == "-keyboard" and len(args) > 1:
        text = args[1].replace("\\\\n", "\0").replace("\\n", "\n").replace("\0", "\\n")
        phone.input_text(text)
    elif verb == "-screenshot":
        path = args[1] if len(args) > 1 else YADB_SCREENSHOT
        p = phone.profile
        ctx.outln(f"image:android.media.ImageReader$SurfaceImage@5b2a1c0,width:{p.width},"
                  f"height:{p.height},rotation:0")
        if _write(ctx, path, phone.screencap_png()):
            ctx.outln(f"screenshot success:{ctx.path(path)}")
    elif verb == "-layout":
        _write(ctx, args[1] if len(args) > 1 else YADB_LAYOUT, phone.dump_xml().encode())
    elif verb == "-touch" and len(args) > 2:
        try:
            x, y = float(args[1]), float(args[2])
            ms = int(args[3]) if len(args) > 3 else -1
        except ValueError as exc:
            ctx.outln(f"MainException:java.lang.NumberFormatException: {exc}")
            return 0
        phone.long_press(int(x), int(y), ms if ms > 0 else 600)
    elif verb == "-readClipboard":
        ctx.outln(getattr(getattr(phone, "editing", None), "clipboard", "") or "null")
    elif verb in ("-keyboard", "-touch"):
        ctx.outln("MainException:java.lang.ArrayIndexOutOfBoundsException: length=1; index=1")
    else:
        ctx.outln("Invalid argument")
    return 0


def app_process(ctx: Ctx, args: list[str]) -> int:
    launch = parse_launch(args, ctx.env)
    if launch is None:
        ctx.errln("Error: no class name or --zygote supplied.")
        ctx.errln(USAGE)
        return 1
    if launch.cls == U2_MAIN:
        return u2_server(ctx, launch.args)
    if launch.cls == YADB_MAIN and _pushed(ctx, launch):
        return yadb(ctx, launch.args)
    return _class_not_found(ctx, launch)


COMMANDS: CommandTable = {"app_process": app_process, "app_process64": app_process}
