"""Intents for ``am start``/``am broadcast``: the options parser and ``Intent.toString()``.

Parses the intent arguments of Android's ``am`` (``-a -c -d -t -n -p -f`` and the typed
extras ``--es --ei --ez --el --ef --eia ...``) plus the start options clients use
(``-W -S -D --user --display ...``). Printing follows ``Intent.toShortString`` so output lines
look like ``Intent { act=... cat=[...] flg=0x10000000 cmp=pkg/.Act (has extras) }``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Options that take no value / one value and do not change what the vphone does.
_FLAG_OPTIONS = frozenset({
    "-D", "-N", "--streaming", "--track-allocation", "--task-overlay", "--lock-task",
    "--allow-background-activity-starts", "--async", "--debug-log-resolution",
    "--exclude-stopped-packages", "--include-stopped-packages", "--selector",
    "--receiver-registered-only", "--receiver-replace-pending", "--receiver-foreground",
    "--receiver-no-abort", "--receiver-include-background",
})
_VALUE_OPTIONS = frozenset({
    "-P", "--start-profiler", "--sampling", "--attach-agent", "--attach-agent-bind", "-R",
    "--user", "--receiver-permission", "--display", "--windowingMode", "--activityType",
    "--task", "-i", "--esn",
})
_TYPED_EXTRAS = {
    "-e": str, "--es": str, "--ei": int, "--el": int, "--ef": float, "--ed": float,
    "--eu": str, "--ecn": str,
}
_ARRAY_EXTRAS = {"--eia": int, "--eial": int, "--ela": int, "--elal": int, "--efa": float,
                 "--efal": float, "--esa": str, "--esal": str}


class IntentError(ValueError):
    """Bad ``am`` arguments; the message is what ``am`` prints."""


@dataclass
class Intent:
    action: str | None = None
    categories: list[str] = field(default_factory=list)
    data: str | None = None
    mime: str | None = None
    flags: int = 0
    package: str | None = None
    component: tuple[str, str] | None = None  # (package, full class name)
    extras: dict[str, object] = field(default_factory=dict)
    wait: bool = False
    stop: bool = False

    def __str__(self) -> str:
        parts: list[str] = []
        if self.action:
            parts.append(f"act={self.action}")
        if self.categories:
            parts.append("cat=[" + ",".join(self.categories) + "]")
        if self.data is not None:
            parts.append(f"dat={safe_uri(self.data)}")
        if self.mime:
            parts.append(f"typ={self.mime}")
        if self.flags:
            parts.append(f"flg=0x{self.flags:x}")
        if self.package:
            parts.append(f"pkg={self.package}")
        if self.component is not None:
            parts.append(f"cmp={short_component(*self.component)}")
        if self.extras:
            parts.append("(has extras)")
        return "Intent { " + " ".join(parts) + " }"


def short_component(package: str, cls: str) -> str:
    """``ComponentName.flattenToShortString()``."""
    if cls.startswith(package + "."):
        return f"{package}/{cls[len(package):]}"
    return f"{package}/{cls}"


def parse_component(text: str) -> tuple[str, str]:
    package, sep, cls = text.partition("/")
    if not sep or not package or not cls:
        raise IntentError(f"Error: Bad component name: {text}")
    return package, package + cls if cls.startswith(".") else cls


def safe_uri(uri: str) -> str:
    """``Uri.toSafeString()``: web URIs lose their path, others their query and fragment."""
    scheme, sep, rest = uri.partition(":")
    if not sep:
        return uri
    if scheme.lower() in ("http", "https", "ftp", "rtsp"):
        host = rest[2:].split("/", 1)[0].split("?", 1)[0] if rest.startswith("//") else ""
        return f"{scheme}://{host}/..."
    return f"{scheme}:{rest.split('?', 1)[0].split('#', 1)[0]}"


def _convert(kind: type, text: str) -> object:
    try:
        return kind(text)
    except ValueError:
        raise IntentError(f'Error: invalid value "{text}"') from None


def _bool(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("true", "t", "1"):
        return True
    if lowered in ("false", "f", "0"):
        return False
    raise IntentError(f'Error: invalid boolean value "{text}"')


def _take(args: list[str], i: int, n: int, opt: str) -> list[str]:
    if i + n > len(args):
        raise IntentError(f'Error: Argument expected after "{opt}"')
    return args[i:i + n]


def _apply_option(intent: Intent, opt: str, args: list[str], i: int) -> int:
    """Apply option ``opt`` whose values start at ``args[i]``; return the next index."""
    simple = {"-a": "action", "-d": "data", "-t": "mime", "-p": "package"}
    if opt in simple:
        setattr(intent, simple[opt], _take(args, i, 1, opt)[0])
        return i + 1
    if opt == "-c":
        intent.categories.append(_take(args, i, 1, opt)[0])
        return i + 1
    if opt == "-n":
        intent.component = parse_component(_take(args, i, 1, opt)[0])
        return i + 1
    if opt == "-f":
        text = _take(args, i, 1, opt)[0]
        try:
            intent.flags |= int(text, 0)
        except ValueError:
            raise IntentError(f'Error: invalid value "{text}"') from None
        return i + 1
    if opt in _TYPED_EXTRAS:
        key, value = _take(args, i, 2, opt)
        intent.extras[key] = _convert(_TYPED_EXTRAS[opt], value)
        return i + 2
    if opt in _ARRAY_EXTRAS:
        key, value = _take(args, i, 2, opt)
        intent.extras[key] = [_convert(_ARRAY_EXTRAS[opt], v) for v in value.split(",")]
        return i + 2
    if opt == "--ez":
        key, value = _take(args, i, 2, opt)
        intent.extras[key] = _bool(value)
        return i + 2
    if opt in ("-W", "-S"):
        intent.wait = intent.wait or opt == "-W"
        intent.stop = intent.stop or opt == "-S"
        return i
    if opt in _VALUE_OPTIONS:
        _take(args, i, 1, opt)
        return i + 1
    if opt in _FLAG_OPTIONS or opt.startswith(("--grant-", "--activity-")):
        return i
    raise IntentError(f"Error: Unknown option: {opt}")


def parse_intent(args: list[str]) -> Intent:
    intent = Intent()
    i = 0
    while i < len(args):
        opt = args[i]
        if not opt.startswith("-") or opt == "-":
            break
        i = _apply_option(intent, opt, args, i + 1)
    if i < len(args):
        target = args[i]
        if ":" in target:
            intent.data = target
        elif "/" in target:
            intent.component = parse_component(target)
        else:
            intent.package = target
    return intent
