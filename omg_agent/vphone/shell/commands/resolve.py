"""Which activity an intent opens: the one resolver ``am start``, ``monkey`` and ``cmd package
resolve-activity|query-activities`` share, and those two ``cmd package`` commands.

A bare package (``resolve-activity --brief com.omg.notes``) is, as in ``Intent.parseCommandArgs``,
``MAIN``/``LAUNCHER`` limited to that package; ``HOME`` is the launcher; ``android.settings.*``
actions open Settings; ``VIEW`` of an http(s) URI opens the browser. Output follows Android 14's
``PackageManagerShellCommand``: ``--brief`` prints the ResolveInfo's match line and the short
component, nothing resolvable prints "No activity found" — and both exit 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from omg_agent.vphone.shell.commands.intent import (
    Intent,
    IntentError,
    parse_intent,
    short_component,
)
from omg_agent.vphone.shell.context import Ctx

ACTION_MAIN = "android.intent.action.MAIN"
ACTION_VIEW = "android.intent.action.VIEW"
CATEGORY_LAUNCHER = "android.intent.category.LAUNCHER"
CATEGORY_HOME = "android.intent.category.HOME"
CATEGORY_DEFAULT = "android.intent.category.DEFAULT"
CATEGORY_BROWSABLE = "android.intent.category.BROWSABLE"
# IntentFilter.MATCH_CATEGORY_* | MATCH_ADJUSTMENT_NORMAL, as ResolveInfo.match prints them.
MATCH_EMPTY = 0x108000
MATCH_SCHEME = 0x208000
WEB_SCHEMES = ("http", "https")
_RESOLVE_OPTIONS = ("--brief", "--components")


@dataclass(frozen=True)
class Match:
    package: str
    cls: str  # the full class name
    match: int = MATCH_EMPTY

    @property
    def short(self) -> str:
        return short_component(self.package, self.cls)


def _full(package: str, activity: str) -> str:
    return package + activity if activity.startswith(".") else activity


def _phone_apps(ctx: Ctx) -> dict[str, str]:
    """package → the activity its launcher icon starts."""
    return dict(ctx.phone.launchable())


def _home(ctx: Ctx) -> Match | None:
    home = next((p for p in ctx.phone.packages() if "launcher" in p), None)
    return None if home is None else Match(home, _full(home, ".Launcher"))


def _web(intent: Intent) -> bool:
    scheme = (intent.data or "").partition(":")[0].lower()
    return intent.action == ACTION_VIEW and scheme in WEB_SCHEMES


def resolve(ctx: Ctx, intent: Intent) -> list[Match]:
    """Every activity that handles ``intent``, best first (empty: nothing resolves it)."""
    apps = _phone_apps(ctx)
    if intent.component is not None:
        package, cls = intent.component
        return [Match(package, cls)] if package in ctx.phone.packages() else []
    if CATEGORY_HOME in intent.categories:
        home = _home(ctx)
        return [home] if home is not None else []
    wanted = [p for p in sorted(apps) if intent.package in (None, p)]
    if _web(intent):
        return [Match(p, _full(p, apps[p]), MATCH_SCHEME) for p in wanted
                if p == ctx.phone.browser_package]
    action = intent.action or (ACTION_MAIN if intent.package else None)
    if (action or "").startswith("android.settings."):
        return [Match(p, _full(p, apps[p])) for p in wanted if p == "com.android.settings"]
    if action == ACTION_MAIN and intent.data is None and \
            set(intent.categories) <= {CATEGORY_LAUNCHER, CATEGORY_DEFAULT}:
        return [Match(p, _full(p, apps[p])) for p in wanted]
    return []


def resolve_package(ctx: Ctx, intent: Intent) -> str | None:
    """The package ``am start`` opens for an implicit intent (the first match)."""
    found = resolve(ctx, intent)
    return found[0].package if found else None


# -- cmd package resolve-activity / query-activities -------------------------------------
def _parse(args: list[str]) -> tuple[set[str], Intent]:
    flags = set()
    rest = list(args)
    while rest and (rest[0] in _RESOLVE_OPTIONS or rest[0] in ("--user", "--query-flags")):
        opt = rest.pop(0)
        if opt in _RESOLVE_OPTIONS:
            flags.add(opt)
        elif rest:
            rest.pop(0)
    intent = parse_intent(rest)
    if intent.package and intent.action is None and intent.component is None \
            and intent.data is None and not intent.categories:
        # Intent.parseCommandArgs: a bare package means its launcher activity.
        intent.action = ACTION_MAIN
        intent.categories.append(CATEGORY_LAUNCHER)
    return flags, intent


def _print(ctx: Ctx, m: Match, prefix: str, flags: set[str]) -> None:
    line = (f"priority=0 preferredOrder=0 match=0x{m.match:x} specificIndex=-1 "
            f"isDefault={'true' if m.match == MATCH_SCHEME else 'false'}")
    if "--components" in flags:
        ctx.outln(prefix + m.short)
        return
    ctx.outln(prefix + line)
    if "--brief" in flags:
        ctx.outln(prefix + m.short)
        return
    ctx.outln(f"{prefix}ActivityInfo:\n{prefix}  name={m.cls}\n{prefix}  packageName={m.package}\n"
              f"{prefix}  enabled=true exported=true directBootAware=false\n"
              f"{prefix}  taskAffinity={m.package} targetActivity=null persistableMode="
              "PERSIST_ROOT_ONLY")


def _resolved(ctx: Ctx, args: list[str]) -> tuple[set[str], list[Match]] | int:
    """The flags and the activities the intent in ``args`` resolves to, or the exit code
    of a malformed intent (its error already written)."""
    try:
        flags, intent = _parse(args)
    except IntentError as exc:
        ctx.errln(str(exc))
        return 255
    return flags, resolve(ctx, intent)


def resolve_activity(ctx: Ctx, args: list[str]) -> int:
    got = _resolved(ctx, args)
    if isinstance(got, int):
        return got
    flags, found = got
    if not found:
        ctx.outln("No activity found")
        return 0
    _print(ctx, found[0], "", flags)
    return 0


def query_activities(ctx: Ctx, args: list[str]) -> int:
    got = _resolved(ctx, args)
    if isinstance(got, int):
        return got
    flags, found = got
    if not found:
        ctx.outln("No activities found")
        return 0
    if "--components" in flags:
        for m in found:
            _print(ctx, m, "", flags)
        return 0
    ctx.outln(f"{len(found)} activities found:")
    for n, m in enumerate(found):
        ctx.outln(f"  Activity #{n}:")
        _print(ctx, m, "    ", flags)
    return 0
