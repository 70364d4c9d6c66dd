"""Packages, input methods, content providers and the uiautomator2 server process.

``pm`` lists and clears the phone's apps (and knows the system packages), ``ime`` switches
input methods,
``content query --uri content://omg.vphone/state`` is the documented device-side state API
(one row whose ``state`` column is the JSON of ``phone.state()``), and ``u2_server`` is
uiautomator2's ``com.wetest.uia2.Main`` as ``app_process`` runs it (see app_process.py).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from omg_agent.vphone.shell.commands.ids import object_hash
from omg_agent.vphone.shell.commands.resolve import query_activities, resolve_activity
from omg_agent.vphone.shell.context import CommandTable, Ctx
from omg_agent.vphone.system_permissions import permission_name

logger = logging.getLogger(__name__)

STATE_URI = "content://omg.vphone/state"
U2_MAIN = "com.wetest.uia2.Main"
U2_DEFAULT_PORT = 9008
SYSTEM_PREFIXES = ("android", "com.android.", "com.google.android.")
# Installed on every phone though no launcher icon starts them (``ps -A`` shows some running).
SYSTEM_PACKAGES = ("android", "com.android.systemui", "com.android.phone", "com.android.shell",
                   "com.android.inputmethod.latin")


def installed(phone: object) -> list[str]:
    """Every package ``pm`` knows: the phone's apps plus the system packages."""
    return sorted({*phone.packages(), *SYSTEM_PACKAGES})  # type: ignore[attr-defined]


def is_system(package: str) -> bool:
    return package == "android" or package.startswith(SYSTEM_PREFIXES)


def apk_path(package: str) -> str:
    if is_system(package):
        name = package.rsplit(".", 1)[-1].capitalize()
        return f"/system/priv-app/{name}/{name}.apk"
    return f"/data/app/~~{object_hash('a:' + package)}==/{package}-" \
           f"{object_hash('b:' + package)}==/base.apk"


# -- pm -----------------------------------------------------------------------------------
def _pm_list(ctx: Ctx, args: list[str]) -> int:
    if not args or args[0] != "packages":
        return 0  # features, permissions, users...: nothing to list
    flags = {a for a in args[1:] if a.startswith("-")}
    needle = next((a for a in args[1:] if not a.startswith("-")), "")
    for package in installed(ctx.phone):
        if ("-3" in flags and is_system(package)) or ("-s" in flags and not is_system(package)):
            continue
        if needle not in package:
            continue
        prefix = f"package:{apk_path(package)}=" if "-f" in flags else "package:"
        ctx.outln(prefix + package)
    return 0


def _pm_path(ctx: Ctx, args: list[str]) -> int:
    package = args[-1] if args else ""
    if package not in installed(ctx.phone):
        return 1
    ctx.outln(f"package:{apk_path(package)}")
    return 0


def _pm_clear(ctx: Ctx, args: list[str]) -> int:
    package = args[-1] if args else ""
    clear = getattr(ctx.phone, "clear_app", None)
    ok = package in ctx.phone.packages() and (clear is None or clear(package) is not False)
    ctx.outln("Success" if ok else "Failed")
    return 0


def _pm_install(ctx: Ctx, args: list[str]) -> int:
    ctx.outln("Failure [INSTALL_FAILED_INVALID_APK: the virtual phone cannot install apps]")
    return 1


def _pm_uninstall(ctx: Ctx, args: list[str]) -> int:
    ctx.outln("Failure [DELETE_FAILED_INTERNAL_ERROR]")
    return 1


def _pm_ok(ctx: Ctx, args: list[str]) -> int:
    return 0  # enable, disable...: accepted


def _pm_permission(grant: bool) -> Callable[[Ctx, list[str]], int]:
    """``pm grant|revoke PKG PERMISSION``: the runtime permission record (system_permissions)."""
    def run(ctx: Ctx, args: list[str]) -> int:
        words = [a for a in args if not a.startswith("-")]
        surfaces = getattr(ctx.phone, "surfaces", None)
        if len(words) < 2 or surfaces is None:
            ctx.errln("Error: usage: pm grant|revoke PACKAGE PERMISSION")
            return 255
        package, perm = words[0], permission_name(words[1])
        if package not in ctx.phone.packages():
            ctx.errln(f"Exception occurred while executing '{'grant' if grant else 'revoke'}':")
            ctx.errln(f"java.lang.IllegalArgumentException: Unknown package: {package}")
            return 255
        if perm is None:
            ctx.errln(f"java.lang.IllegalArgumentException: Unknown permission: {words[1]}")
            return 255
        with ctx.phone.lock:
            surfaces.permissions.set_mode(package, perm, "granted" if grant else "denied")
        return 0
    return run


PM_COMMANDS = {"list": _pm_list, "path": _pm_path, "clear": _pm_clear,
               "install": _pm_install, "uninstall": _pm_uninstall,
               "grant": _pm_permission(True), "revoke": _pm_permission(False),
               "enable": _pm_ok, "disable": _pm_ok, "disable-user": _pm_ok,
               "resolve-activity": resolve_activity, "query-activities": query_activities}


def pm(ctx: Ctx, args: list[str]) -> int:
    if not args:
        ctx.outln("Package manager (package) commands:")
        return 0
    sub = PM_COMMANDS.get(args[0])
    if sub is None:
        ctx.errln(f"Unknown command: {args[0]}")
        return 255
    return sub(ctx, args[1:])


# -- ime -------------------------------------------------------------------------------------
def _enabled_imes(ctx: Ctx) -> list[str]:
    raw = ctx.phone.settings.get("secure", {}).get("enabled_input_methods")
    if raw is None:
        return list(ctx.phone.ime_ids)
    return [i for i in raw.split(":") if i]


def _set_enabled(ctx: Ctx, ids: list[str]) -> None:
    with ctx.phone.lock:
        ctx.phone.settings.setdefault("secure", {})["enabled_input_methods"] = ":".join(ids)


def ime(ctx: Ctx, args: list[str]) -> int:
    sub = args[0] if args else ""
    target = args[-1] if len(args) > 1 else ""
    if sub == "list":
        ids = list(ctx.phone.ime_ids) if "-a" in args else _enabled_imes(ctx)
        for ime_id in ids:
            ctx.outln(ime_id if "-s" in args else f"{ime_id}:\n  mId={ime_id}")
        return 0
    if sub in ("enable", "disable"):
        if target not in ctx.phone.ime_ids:
            ctx.errln(f"Unknown input method {target} cannot be {sub}d for user #0")
            return 255
        enabled = _enabled_imes(ctx)
        was = target in enabled
        if (sub == "enable") != was:
            _set_enabled(ctx, enabled + [target] if sub == "enable" else
                         [i for i in enabled if i != target])
        state = "already" if (sub == "enable") == was else "now"
        ctx.outln(f"Input method {target}: {state} {sub}d")
        return 0
    if sub == "set":
        if not ctx.phone.set_ime(target):
            ctx.errln(f"Unknown input method {target} cannot be selected for user #0")
            return 255
        ctx.outln(f"Input method {target} selected for user #0")
        return 0
    ctx.outln("ime <command>:")
    return 0 if not sub else 255


# -- content ---------------------------------------------------------------------------------
def _settings_rows(ctx: Ctx, rest: str) -> list[str] | None:
    namespace, _, key = rest.partition("/")
    table = ctx.phone.settings.get(namespace) if namespace in ("system", "secure", "global") \
        else None
    if table is None:
        return None
    items = [(k, v) for k, v in sorted(table.items()) if not key or k == key]
    return [f"_id={n + 1}, name={k}, value={v}" for n, (k, v) in enumerate(items)]


def content(ctx: Ctx, args: list[str]) -> int:
    if not args or args[0] != "query":
        ctx.errln("Error: only 'content query' is supported")
        return 1
    uri = next((args[i + 1] for i in range(len(args) - 1) if args[i] == "--uri"), None)
    if uri is None:
        ctx.errln("[ERROR] Content provider URI not specified! Did you specify --uri argument?")
        return 1
    authority = uri.removeprefix("content://").split("/", 1)[0]
    rows: list[str] | None = None
    if uri.rstrip("/") == STATE_URI:
        rows = ["state=" + json.dumps(ctx.phone.state(), ensure_ascii=False,
                                      separators=(",", ":"), sort_keys=True)]
    elif authority == "settings":
        rows = _settings_rows(ctx, uri.removeprefix("content://settings/"))
    if rows is None:
        ctx.errln(f"Error while accessing provider:{authority}")
        ctx.errln(f"java.lang.IllegalArgumentException: Unknown URI {uri}")
        return 1
    if not rows:
        ctx.outln("No result found.")
    for n, row in enumerate(rows):
        ctx.outln(f"Row: {n} {row}")
    return 0


# -- the uiautomator2 server (app_process.py starts it) -----------------------------------------
def _u2_port(args: list[str]) -> int | None:
    for i, a in enumerate(args):
        if a == "-p" and i + 1 < len(args):
            return int(args[i + 1]) if args[i + 1].isdigit() else None
    return U2_DEFAULT_PORT


def u2_server(ctx: Ctx, args: list[str]) -> int:
    """``com.wetest.uia2.Main [-p PORT]``: serve for as long as the stream stays open."""
    port = _u2_port(args)
    if port is None:
        ctx.errln("java.lang.NumberFormatException: invalid port")
        return 1
    state = ctx.state
    with state.lock:
        state.u2_refs[port] = state.u2_refs.get(port, 0) + 1
        try:
            ctx.phone.start_uiautomator_server(port)
        except OSError as exc:
            state.u2_refs[port] -= 1
            ctx.errln(f"java.net.BindException: {exc}")
            return 1
    try:
        ctx.outln("[server] INFO: [UiAutomator2Server] Starting Server")
        while not ctx.wait(0.25) and port not in state.u2_kill:
            pass
    finally:
        with state.lock:
            # `kill <pid>` ends the server process on the port whoever else still uses it.
            left = 0 if port in state.u2_kill else state.u2_refs.get(port, 1) - 1
            if left > 0:
                state.u2_refs[port] = left
            else:
                state.u2_refs.pop(port, None)
                state.u2_kill.discard(port)
                ctx.phone.stop_uiautomator_server(port)
    return 0


# -- cmd statusbar --------------------------------------------------------------------------
STATUSBAR = "cmd:statusbar"  # only reachable as ``cmd statusbar`` (no such binary on a phone)


def statusbar(ctx: Ctx, args: list[str]) -> int:
    """``cmd statusbar expand-notifications | expand-settings | collapse``."""
    sub = args[0] if args else ""
    shade = ctx.phone.surfaces.shade
    with ctx.phone.lock:
        if sub in ("expand-notifications", "expand-settings"):
            shade.expand()
        elif sub == "collapse":
            shade.collapse()
        else:
            ctx.errln("usage: cmd statusbar expand-notifications|expand-settings|collapse")
            return 1
    return 0


# -- dispatch wrappers -----------------------------------------------------------------------
CMD_SERVICES = {"activity": "am", "package": "pm", "input": "input", "settings": "settings",
                "window": "wm", "input_method": "ime", "content": "content",
                "statusbar": STATUSBAR}


# Services a phone has that take no shell commands: Android 14's clipboard has no
# `cmd clipboard` (text reaches it through an app or a helper such as yadb, or Ctrl+C).
NO_SHELL_SERVICES = ("clipboard",)


def cmd(ctx: Ctx, args: list[str]) -> int:
    """``cmd <service> ...``: Android's generic binder shell, mapped onto our commands."""
    if not args or args[0] == "-l":
        for service in sorted({*CMD_SERVICES, *NO_SHELL_SERVICES}):
            ctx.outln(service)
        return 0
    if args[0] in NO_SHELL_SERVICES:
        ctx.errln("No shell command implementation.")  # Binder's default onShellCommand
        return 0
    target = CMD_SERVICES.get(args[0])
    if target is None:
        ctx.errln(f"cmd: Can't find service: {args[0]}")
        return 20
    return ctx.dispatch(ctx.sub(target), [target, *args[1:]])


def toybox(ctx: Ctx, args: list[str]) -> int:
    if not args:
        return 0
    return ctx.dispatch(ctx.sub(args[0]), args)


COMMANDS: CommandTable = {"pm": pm, "ime": ime, "content": content, "cmd": cmd,
                          "toybox": toybox, STATUSBAR: statusbar}
