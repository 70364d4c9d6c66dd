"""System commands: props, settings, identity, time, processes and small utilities.

``getprop``/``setprop`` read and write ``phone.props``; ``settings`` works on
``phone.settings`` (``system``/``secure``/``global``); ``svc wifi`` flips the phone's Wi-Fi.
The rest (``id``, ``date``, ``ps``, ``sleep``...) print what a shell-user session on an
Android 13 device prints.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from omg_agent.vphone.shell.commands.ids import running_apps, user_name
from omg_agent.vphone.shell.context import CommandTable, Ctx

NAMESPACES = ("system", "secure", "global")
SHELL_ID = ("uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),"
            "1011(adb),1015(sdcard_rw),1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),"
            "3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),"
            "3011(uhid),3012(readtracefs) context=u:r:shell:s0")
PS_HEADER = "USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME"
SYSTEM_PROCS = (("root", 1, 0, "init"), ("root", 612, 1, "zygote64"),
                ("system", 1007, 612, "system_server"),
                ("u0_a143", 1312, 612, "com.android.systemui"),
                ("radio", 1340, 612, "com.android.phone"))
U2_PID = 4100  # the uiautomator2 server (app_process) while it runs
KERNEL = "5.15.41-android13-8-00055-g4f5025129fe8-ab8949913"


def getprop(ctx: Ctx, args: list[str]) -> int:
    props = dict(ctx.phone.props)
    if not args:
        for key in sorted(props):
            ctx.outln(f"[{key}]: [{props[key]}]")
        return 0
    ctx.outln(props.get(args[0], args[1] if len(args) > 1 else ""))
    return 0


def setprop(ctx: Ctx, args: list[str]) -> int:
    if len(args) != 2:
        ctx.errln("usage: setprop NAME VALUE")
        return 1
    with ctx.phone.lock:
        ctx.phone.props[args[0]] = args[1]
    return 0


def settings(ctx: Ctx, args: list[str]) -> int:
    while args[:1] == ["--user"] and len(args) >= 2:
        args = args[2:]
    verb = args[0] if args else ""
    if verb not in ("get", "put", "delete", "list", "reset") or len(args) < 2:
        ctx.errln("Settings provider (settings) commands:")
        return 255
    namespace = args[1]
    if namespace not in NAMESPACES:
        ctx.errln(f"Invalid namespace '{namespace}'")
        return 255
    with ctx.phone.lock:
        table = ctx.phone.settings.setdefault(namespace, {})
        if verb == "list":
            for key in sorted(table):
                ctx.outln(f"{key}={table[key]}")
            return 0
        if len(args) < 3 or (verb == "put" and len(args) < 4):
            ctx.errln(f"Error: bad arguments for {verb}")
            return 255
        key = args[2]
        if verb == "get":
            ctx.outln(table.get(key, "null"))
        elif verb == "put":
            table[key] = args[3]
        elif verb == "delete":
            ctx.outln(f"Deleted {int(table.pop(key, None) is not None)} rows")
    return 0


def svc(ctx: Ctx, args: list[str]) -> int:
    if len(args) >= 2 and args[0] == "wifi" and args[1] in ("enable", "disable"):
        set_wifi = getattr(ctx.phone, "set_wifi", None)
        if set_wifi is not None:
            set_wifi(args[1] == "enable")
        return 0
    if not args:
        ctx.outln("Available commands:")
    return 0


def id_cmd(ctx: Ctx, args: list[str]) -> int:
    flags = "".join(a.lstrip("-") for a in args if a.startswith("-"))
    if "u" in flags or "g" in flags:
        ctx.outln("shell" if "n" in flags else "2000")
    else:
        ctx.outln(SHELL_ID)
    return 0


def whoami(ctx: Ctx, args: list[str]) -> int:
    ctx.outln("shell")
    return 0


def date(ctx: Ctx, args: list[str]) -> int:
    fmt = next((a[1:] for a in args if a.startswith("+")), "%a %b %e %H:%M:%S %Z %Y")
    now = datetime.now(UTC)
    fmt = re.sub(r"%(%|s)", lambda m: str(int(now.timestamp())) if m.group(1) == "s" else "%%",
                 fmt)
    ctx.outln(now.strftime(fmt))
    return 0


def getenforce(ctx: Ctx, args: list[str]) -> int:
    ctx.outln("Enforcing")
    return 0


def _ps_line(user: str, pid: int, ppid: int, name: str) -> str:
    return f"{user:<10} {pid:>8} {ppid:>5} {pid * 37 % 9000000 + 1000000:>7} " \
           f"{pid * 13 % 90000 + 3000:>6} {'0':<16} {'0':>4} S {name}"


def ps(ctx: Ctx, args: list[str]) -> int:
    ctx.outln(PS_HEADER)
    everything = any(a in ("-A", "-e", "-ef") for a in args)
    if everything:
        for user, pid, ppid, name in SYSTEM_PROCS:
            ctx.outln(_ps_line(user, pid, ppid, name))
        for package, pid in sorted(running_apps(ctx.phone).items(), key=lambda kv: kv[1]):
            ctx.outln(_ps_line(user_name(package), pid, 612, package))
        if getattr(ctx.phone, "_u2", None):
            ctx.outln(_ps_line("shell", U2_PID, 1, "uiautomator"))
    ctx.outln(_ps_line("shell", 4242, 1, "sh"))
    ctx.outln(_ps_line("shell", 4243, 4242, "ps"))
    return 0


def pidof(ctx: Ctx, args: list[str]) -> int:
    running = running_apps(ctx.phone)
    system = {name: pid for _, pid, _, name in SYSTEM_PROCS}
    pids = [str(pid) for a in args if (pid := running.get(a, system.get(a))) is not None]
    if pids:
        ctx.outln(" ".join(pids))
    return 0 if pids else 1


def reboot(ctx: Ctx, args: list[str]) -> int:
    ctx.errln("reboot: Operation not permitted")
    return 1


def _seconds(text: str) -> float | None:
    m = re.fullmatch(r"(\d+(?:\.\d*)?|\.\d+)([smhd]?)", text)
    if m is None:
        return None
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]


def sleep(ctx: Ctx, args: list[str]) -> int:
    if not args:
        return ctx.fail("Need 1 argument")
    total = 0.0
    for arg in args:
        seconds = _seconds(arg)
        if seconds is None:
            return ctx.fail(f"invalid number '{arg}'")
        total += seconds
    ctx.wait(total)
    return 0


def true(ctx: Ctx, args: list[str]) -> int:
    return 0


def false(ctx: Ctx, args: list[str]) -> int:
    return 1


def env(ctx: Ctx, args: list[str]) -> int:
    for key in sorted(ctx.env):
        ctx.outln(f"{key}={ctx.env[key]}")
    return 0


def pwd(ctx: Ctx, args: list[str]) -> int:
    ctx.outln(ctx.cwd)
    return 0


def uname(ctx: Ctx, args: list[str]) -> int:
    parts = {"s": "Linux", "n": "localhost", "r": KERNEL,
             "v": "#1 SMP PREEMPT Fri Sep 1 00:00:00 UTC 2023", "m": "x86_64", "o": "Toybox"}
    flags = "".join(a.lstrip("-") for a in args) or "s"
    order = "snrvmo" if "a" in flags else [f for f in "snrvmo" if f in flags]
    ctx.outln(" ".join(parts[f] for f in order))
    return 0


def getevent(ctx: Ctx, args: list[str]) -> int:
    return ctx.fail("could not open /dev/input: Permission denied")


COMMANDS: CommandTable = {
    "getprop": getprop, "setprop": setprop, "settings": settings, "svc": svc, "id": id_cmd,
    "whoami": whoami, "date": date, "getenforce": getenforce, "ps": ps, "reboot": reboot,
    "sleep": sleep, "true": true, "false": false, "env": env, "printenv": env, "pwd": pwd,
    "uname": uname, "getevent": getevent, "pidof": pidof,
}
