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
KILL_WAIT_STEPS = 50  # x 20 ms: how long kill waits for the u2 server to go
U2_PID = 4100  # the first uiautomator2 server (app_process) while one runs
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


def _u2_pids(ctx: Ctx) -> dict[int, int]:
    """pid → port of the uiautomator2 servers ``app_process`` runs (one process per port)."""
    with ctx.state.lock:
        return {U2_PID + i: port for i, port in enumerate(sorted(ctx.state.u2_refs))}


def _processes(ctx: Ctx) -> list[tuple[str, int, int, str]]:
    """Every process: (user, pid, ppid, name)."""
    procs = list(SYSTEM_PROCS)
    for package, pid in sorted(running_apps(ctx.phone).items(), key=lambda kv: kv[1]):
        procs.append((user_name(package), pid, 612, package))
    procs += [("shell", pid, 1, "app_process") for pid in _u2_pids(ctx)]
    return procs + [("shell", 4242, 1, "sh"), ("shell", 4243, 4242, "ps")]


def ps(ctx: Ctx, args: list[str]) -> int:
    ctx.outln(PS_HEADER)
    everything = any(a in ("-A", "-e", "-ef") for a in args)
    users = {args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-u", "-U")}
    for user, pid, ppid, name in _processes(ctx):
        if everything or (user in users) or (not users and name in ("sh", "ps")):
            ctx.outln(_ps_line(user, pid, ppid, name))
    return 0


def kill(ctx: Ctx, args: list[str]) -> int:
    """``kill [-SIGNAL] PID...``: the shell user may end its own processes (the u2 server)."""
    pids = [a for a in args if not a.startswith("-")]
    if not pids:
        return ctx.fail("Need 1 argument")
    u2 = _u2_pids(ctx)
    known = {pid: user for user, pid, _, _ in _processes(ctx)}
    status = 0
    for arg in pids:
        pid = int(arg) if arg.isdigit() else -1
        job = ctx.state.jobs.get(pid)
        if job is not None:
            job.set()  # a background job of the shell: SIGINT/SIGTERM end it cleanly
        elif pid in u2:
            with ctx.state.lock:
                ctx.state.u2_kill.add(u2[pid])
            for _ in range(KILL_WAIT_STEPS):  # the signal is delivered before kill returns
                if u2[pid] not in ctx.state.u2_refs or ctx.wait(0.02):
                    break
        elif pid not in known:
            status = ctx.fail(f"pid {arg}: No such process")
        elif known[pid] != "shell":
            status = ctx.fail(f"pid {arg}: Operation not permitted")
    return status


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
    "sleep": sleep, "kill": kill, "true": true, "false": false, "env": env, "printenv": env,
    "pwd": pwd,
    "uname": uname, "getevent": getevent, "pidof": pidof,
}
