"""``am`` (start, force-stop, broadcast) and ``monkey``: launching apps and talking to the IME.

Intents print like ``Intent.toString()`` on Android 13 and results follow
``ActivityManagerShellCommand``: errors go to stderr (stdout with ``-W``) and ``am start``
still exits 0. ``am broadcast`` delivers the ADB-Keyboard protocol (``ADB_INPUT_TEXT``,
``ADB_INPUT_B64``, ``ADB_CLEAR_TEXT``, ``ADB_INPUT_CODE``, ``ADB_EDITOR_CODE``) when that IME
is the current one: this is how unicode text reaches the phone.
"""

from __future__ import annotations

import base64
import binascii
import logging

from omg_agent.vphone.shell.commands.intent import Intent, IntentError, parse_intent
from omg_agent.vphone.shell.commands.resolve import resolve_package
from omg_agent.vphone.shell.context import CommandTable, Ctx

logger = logging.getLogger(__name__)

ADB_KEYBOARD = "com.android.adbkeyboard/.AdbIME"
FLAG_ACTIVITY_NEW_TASK = 0x10000000
FLAG_RECEIVER_INCLUDE_BACKGROUND = 0x400000
KEY_DEL, KEY_ENTER = 67, 66
MONKEY_ABORTED = 251  # Monkey returns -5


def _short_activity(package: str, cls: str) -> str:
    return cls[len(package):] if cls.startswith(package + ".") else cls


def _already_front(ctx: Ctx, package: str, activity: str | None) -> bool:
    front_pkg, front_act = ctx.phone.focus()
    return front_pkg == package and activity in (None, front_act)


def _launch(ctx: Ctx, intent: Intent) -> tuple[bool, str]:
    """Start what the intent names. Returns (launched, error message if not)."""
    phone = ctx.phone
    if intent.component is not None:
        package, cls = intent.component
        activity = _short_activity(package, cls)
        if _already_front(ctx, package, activity):
            return True, ""
        if phone.start_activity(package, activity):
            return True, ""
        full_cls = package + cls if cls.startswith(".") else cls
        missing = f"Error: Activity class {{{package}/{full_cls}}} does not exist."
        return False, "Error type 3\n" + missing
    target = resolve_package(ctx, intent)
    if target is not None and intent.data and target == phone.browser_package:
        return phone.open_url(intent.data), ""
    if target is not None and (_already_front(ctx, target, None) or phone.start_activity(target)):
        return True, ""
    intent.flags |= FLAG_ACTIVITY_NEW_TASK
    return False, f"Error: Activity not started, unable to resolve {intent}"


def _am_start(ctx: Ctx, args: list[str]) -> int:
    try:
        intent = parse_intent(args)
    except IntentError as exc:
        ctx.errln(str(exc))
        return 255
    if intent.stop and intent.component is not None:
        ctx.outln(f"Stopping: {intent.component[0]}")
        ctx.phone.force_stop(intent.component[0])
    ctx.outln(f"Starting: {intent}")
    launched, error = _launch(ctx, intent)
    report = ctx.outln if intent.wait else ctx.errln
    if error:
        report(error)
    if intent.wait and launched:
        package, activity = ctx.phone.focus()
        ctx.out(f"Status: ok\nLaunchState: COLD\nActivity: {package}/{activity}\n"
                "TotalTime: 212\nWaitTime: 215\nComplete\n")
    return 0


def _am_force_stop(ctx: Ctx, args: list[str]) -> int:
    packages = [a for i, a in enumerate(args)
                if not a.startswith("-") and (i == 0 or args[i - 1] != "--user")]
    if not packages:
        ctx.errln("Error: no package specified")
        return 255
    ctx.phone.force_stop(packages[-1])
    return 0


def _am_kill(ctx: Ctx, args: list[str]) -> int:
    return 0  # only background processes die; the virtual phone keeps none


# -- broadcasts / ADB Keyboard ------------------------------------------------------------
def _ime_text(ctx: Ctx, intent: Intent) -> None:
    text = intent.extras.get("msg")
    if isinstance(text, str):
        ctx.phone.input_text(text)


def _ime_b64(ctx: Ctx, intent: Intent) -> None:
    msg = intent.extras.get("msg")
    if not isinstance(msg, str):
        return
    try:
        text = base64.b64decode(msg, validate=False).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as exc:
        logger.info("ADB_INPUT_B64 with undecodable payload: %s", exc)
        return
    ctx.phone.input_text(text)


def _ime_chars(ctx: Ctx, intent: Intent) -> None:
    chars = intent.extras.get("chars")
    if isinstance(chars, list):
        ctx.phone.input_text("".join(chr(c) for c in chars if 0 <= c <= 0x10FFFF))


def _ime_code(ctx: Ctx, intent: Intent) -> None:
    code = intent.extras.get("code")
    if isinstance(code, int) and code > 0:
        ctx.phone.key(code)


def _ime_editor(ctx: Ctx, intent: Intent) -> None:
    ctx.phone.key(KEY_ENTER)  # the field's editor action (done/search/go) = its enter key


def _ime_clear(ctx: Ctx, intent: Intent) -> None:
    ctx.phone.clear_text()


IME_ACTIONS = {
    "ADB_INPUT_TEXT": _ime_text, "ADB_INPUT_B64": _ime_b64, "ADB_INPUT_CHARS": _ime_chars,
    "ADB_INPUT_CODE": _ime_code, "ADB_EDITOR_CODE": _ime_editor, "ADB_CLEAR_TEXT": _ime_clear,
}


def _am_broadcast(ctx: Ctx, args: list[str]) -> int:
    try:
        intent = parse_intent(args)
    except IntentError as exc:
        ctx.errln(str(exc))
        return 255
    intent.flags |= FLAG_RECEIVER_INCLUDE_BACKGROUND
    ctx.outln(f"Broadcasting: {intent}")
    handler = IME_ACTIONS.get(intent.action or "")
    if handler is not None and ctx.phone.ime_current == ADB_KEYBOARD:
        if ctx.latency("input"):
            return 0
        handler(ctx, intent)
    ctx.outln("Broadcast completed: result=0")
    return 0


AM_COMMANDS = {"start": _am_start, "start-activity": _am_start, "force-stop": _am_force_stop,
               "kill": _am_kill, "broadcast": _am_broadcast}


def am(ctx: Ctx, args: list[str]) -> int:
    if not args:
        ctx.outln("Activity manager (activity) commands:")
        return 0
    sub = AM_COMMANDS.get(args[0])
    if sub is None:
        ctx.errln(f"Unknown command: {args[0]}")
        return 255
    return sub(ctx, args[1:])


# -- monkey ---------------------------------------------------------------------------------
def monkey(ctx: Ctx, args: list[str]) -> int:
    for a in args:
        ctx.outln(f"  bash arg: {a}")
    ctx.errln("args: [" + ", ".join(args) + "]")
    for a in args:
        ctx.errln(f' arg: "{a}"')
    packages: list[str] = []
    count = 0
    it = iter(args)
    for a in it:
        if a in ("-p", "-c", "-s", "--throttle", "--pct-touch", "--pct-motion"):
            value = next(it, "")
            ctx.errln(f'data="{value}"')
            if a == "-p":
                packages.append(value)
        elif a.isdigit():
            count = int(a)
    launchable = ctx.phone.launchable()
    target = next((p for p in packages if p in launchable), None)
    if target is None:
        ctx.errln("** No activities found to run, monkey aborted.")
        return MONKEY_ABORTED
    if count > 0 and not _already_front(ctx, target, None):
        ctx.phone.start_activity(target)
    ctx.outln(f"Events injected: {count}")
    ctx.outln("## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)")
    return 0


COMMANDS: CommandTable = {"am": am, "monkey": monkey}
