"""Reading and writing flow files: our YAML and the supported subset of Maestro's.

A file is either one YAML list of commands, or Maestro's two documents — a header
(``appId``, ``name``, ``env``, ``tags``) then ``---`` and the command list. A command is a
bare name (``- back``) or a one-key mapping (``- tapOn: "Save"``, ``- tapOn: {id: save}``).
Anything outside the subset is refused with a :class:`~omg_agent.errors.FlowError` that names
where it is (the step, the command) and lists what is accepted — never skipped silently, and
never echoing what the file holds there (a file read by mistake may hold a key).
:func:`omg_agent.flows.write.dump_flow` writes the same shape back.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omg_agent.core.actions import VAR_PATTERN
from omg_agent.errors import FlowError
from omg_agent.flows.model import (
    AssertNotVisible,
    AssertVisible,
    Command,
    Condition,
    EraseText,
    ExtendedWaitUntil,
    Flow,
    InputText,
    LaunchApp,
    LongPressOn,
    PressBack,
    PressKey,
    Repeat,
    Retry,
    RunFlow,
    SaveValue,
    Scroll,
    ScrollUntilVisible,
    Selector,
    SwipeScreen,
    TakeScreenshot,
    TapOn,
    WaitForAnimationToEnd,
    WaitSeconds,
    walk,
)
from omg_agent.userfiles import load_documents, read_text

_KEYS = ("back", "home", "enter", "delete", "tab", "search", "escape", "space")
# command -> the fields its mapping form accepts (besides ``optional`` / ``label``)
COMMANDS: dict[str, frozenset[str]] = {
    "launchApp": frozenset({"appId", "clearState", "clearKeychain", "stopApp"}),
    "tapOn": frozenset({"point"}), "longPressOn": frozenset({"point"}),
    "inputText": frozenset({"text", "id", "desc", "clear"}),
    "eraseText": frozenset({"charactersToErase"}),
    "assertVisible": frozenset(), "assertNotVisible": frozenset(),
    "scrollUntilVisible": frozenset({"element", "direction", "timeout", "speed",
                                     "visibilityPercentage", "centerElement", "maxSwipes"}),
    "scroll": frozenset(), "swipe": frozenset({"direction", "start", "end", "duration"}),
    "back": frozenset(), "pressKey": frozenset(), "waitForAnimationToEnd": frozenset({"timeout"}),
    "repeat": frozenset({"times", "while", "commands"}),
    "runFlow": frozenset({"file", "when", "commands", "env"}),
    "retry": frozenset({"maxRetries", "commands", "file"}),
    "extendedWaitUntil": frozenset({"visible", "notVisible", "timeout"}),
    "takeScreenshot": frozenset({"path"}), "memSave": frozenset({"key", "value", "from"}),
    "wait": frozenset({"seconds"}),
}
_SELECTOR_COMMANDS = frozenset({"tapOn", "longPressOn", "assertVisible", "assertNotVisible"})
_SELECTOR_KEYS = frozenset({"text", "id", "desc", "index", "below", "above", "childOf",
                            "enabled", "checked", "selected", "focused"})
_HEADER_KEYS = frozenset({"appId", "name", "env", "tags"})
MAX_STEPS = 10_000  # commands in one file, nested bodies counted one by one
MAX_TIMES = 10_000  # repeat times / retry maxRetries


def load_flow(path: Path | str) -> Flow:
    """The flow in ``path`` — a file, or ``builtin:NAME`` for a shipped one (raises
    :class:`FlowError` naming what is wrong)."""
    from omg_agent.flows.builtin import flow_path

    path = flow_path(str(path))
    return parse_flow(read_text(path, "flow file", error=FlowError), source=str(path))


def parse_flow(text: str, *, source: str = "<flow>") -> Flow:
    """The flow in ``text``, within the limits of :mod:`omg_agent.userfiles` (size,
    nesting, alias expansion) and :data:`MAX_STEPS`."""
    docs = load_documents(text, source, error=FlowError)
    header: dict[str, Any] = {}
    if len(docs) == 2 and isinstance(docs[0], dict):
        header, body = docs
    elif len(docs) == 1:
        body = docs[0]
    else:
        raise FlowError(f"{source}: expected a list of commands, or a header and '---' "
                        f"then the list ({len(docs)} YAML documents found)")
    if isinstance(body, dict) and not header and "appId" in body:
        raise FlowError(f"{source}: a header but no commands; put them after '---'")
    if not isinstance(body, list):
        raise FlowError(f"{source}: the commands must be a YAML list ('- tapOn: ...')")
    unknown = sorted(set(header) - _HEADER_KEYS, key=str)
    if unknown:
        raise FlowError(f"{source}: unsupported header field {_named(unknown[0])}; accepted: "
                        + ", ".join(sorted(_HEADER_KEYS)))
    env = header.get("env") or {}
    if not isinstance(env, dict):
        raise FlowError(f"{source}: env must be a mapping of NAME: value")
    commands = _commands(body, source, "step")
    count = sum(1 for _ in walk(commands))
    if count > MAX_STEPS:
        raise FlowError(f"{source}: {count:,} steps (nested ones counted) pass the limit of "
                        f"{MAX_STEPS:,}; split it with runFlow files or use repeat")
    return Flow(commands=commands, app_id=str(header.get("appId") or ""),
                name=str(header.get("name") or ""),
                env={str(k): str(v) for k, v in env.items()}, source=source)


def _commands(items: Any, source: str, where: str) -> tuple[Command, ...]:
    if not isinstance(items, list):
        raise FlowError(f"{source}: {where}: 'commands' must be a list")
    return tuple(_command(item, source, f"{where} {i}", i)
                 for i, item in enumerate(items, start=1))


def _command(item: Any, source: str, where: str, line: int) -> Command:
    if isinstance(item, str):
        name, arg = item, None
    elif isinstance(item, dict) and len(item) == 1:
        name, arg = next(iter(item.items()))
    else:
        raise FlowError(f"{source}: {where}: a command is a name or a one-key mapping, "
                        f"got {_kind(item)}")
    if name not in COMMANDS:
        shown = _named(name) if isinstance(item, dict) else "(a bare text)"  # a key, or not
        raise FlowError(f"{source}: {where}: unsupported command {shown}; supported: "
                        + ", ".join(COMMANDS))
    at = f"{source}: {where} ({name})"
    try:
        command = _fields(name, arg, _Where(source, where, line, at))
    except (ValueError, TypeError):  # int("many"), float(None): a bad field value
        raise FlowError(f"{at}: a field holds a value of the wrong kind (a number where a "
                        "number is needed, a text where a text is)") from None
    if command.repeats() > MAX_TIMES:
        raise FlowError(f"{at}: {command.repeats():,} times passes the limit of {MAX_TIMES:,}")
    return command


@dataclass(frozen=True)
class _Where:
    """Where a command sits: its file, its place (``step 3 repeat step 1``), its line in its
    list and the prefix of every message about it."""

    source: str
    where: str
    line: int
    at: str


def _fields(name: str, arg: Any, w: _Where) -> Command:
    opts = dict(arg) if isinstance(arg, dict) else {}
    base: dict[str, Any] = {"optional": bool(opts.pop("optional", False)), "line": w.line}
    opts.pop("label", None)
    if name in _SELECTOR_COMMANDS:
        point = opts.pop("point", None)
        touch = {"tapOn": TapOn, "longPressOn": LongPressOn}.get(name)
        if point is not None and touch is not None:
            return touch(**base, point=_percent_point(point, w.at))
        selector = _selector(opts if isinstance(arg, dict) else arg, w.at)
        model = touch or (AssertVisible if name == "assertVisible" else AssertNotVisible)
        return model(**base, selector=selector)
    _check_fields(opts, COMMANDS[name], w.at)
    return _build(name, arg, opts, w).model_copy(update=base)


def _build(name: str, arg: Any, opts: dict[str, Any], w: _Where) -> Command:
    """The command ``name`` with its fields read from ``arg`` (a scalar) or ``opts``."""
    match name:
        case "launchApp":
            return _launch(arg, opts, w.at)
        case "inputText" if isinstance(arg, dict):
            sel = _selector({k: v for k, v in opts.items() if k in ("id", "desc")}, w.at) \
                if ("id" in opts or "desc" in opts) else None
            return InputText(text=str(opts.get("text", "")), selector=sel,
                             clear=bool(opts.get("clear")))
        case "inputText":
            return InputText(text=_scalar(arg, w.at))
        case "eraseText":
            return EraseText(count=int(opts.get("charactersToErase",
                                                arg if isinstance(arg, int) else 50)))
        case "scrollUntilVisible":
            element = opts.get("element", arg if not isinstance(arg, dict) else None)
            return ScrollUntilVisible(selector=_selector(element, w.at),
                                      direction=_direction(opts.get("direction", "down"), w.at),
                                      timeout_s=_ms(opts.get("timeout", 20_000)),
                                      max_swipes=int(opts.get("maxSwipes", 20)))
        case "swipe":
            if "start" in opts or "end" in opts:
                raise FlowError(f"{w.at}: swipe start/end points are not supported; use "
                                "direction: up|down|left|right")
            return SwipeScreen(direction=_direction(opts.get("direction", arg), w.at))
        case "pressKey":
            return PressKey(key=_key(arg, w.at))
        case "repeat":
            return _repeat(opts, w)
        case "runFlow" | "retry":
            return _sub_flow(name, arg, opts, w)
        case "extendedWaitUntil":
            cond = _condition({k: v for k, v in opts.items() if k != "timeout"}, w.at)
            return ExtendedWaitUntil(condition=cond, timeout_s=_ms(opts.get("timeout", 10_000)))
        case "waitForAnimationToEnd":
            return WaitForAnimationToEnd(timeout_s=_ms(opts.get("timeout", 5_000)))
        case "takeScreenshot":
            return TakeScreenshot(path=str(opts.get("path", arg or "screenshot")))
        case "memSave":
            return _mem_save(opts, w.at)
        case "wait":
            return WaitSeconds(seconds=float(opts.get("seconds", arg or 1)))
        case "scroll":
            return Scroll()
    return PressBack()


def _launch(arg: Any, opts: dict[str, Any], at: str) -> LaunchApp:
    app = opts.get("appId", arg if isinstance(arg, str) else "")
    if opts.get("clearKeychain"):
        raise FlowError(f"{at}: clearKeychain is iOS's (Android has no keychain); drop it")
    if opts.get("clearState"):
        raise FlowError(f"{at}: clearState deletes the app's data, which the sensitive-action "
                        "gate cannot ask about in a flow yet; clear it first (omg-agent "
                        "device commands or adb shell pm clear PACKAGE) and drop it")
    stop = opts.get("stopApp", True)
    if not isinstance(stop, bool):
        raise FlowError(f"{at}: stopApp: give true or false")
    return LaunchApp(app=str(app or ""), stop=stop)


def _key(arg: Any, at: str) -> str:
    key = _scalar(arg, at).lower()
    if key not in _KEYS:
        raise FlowError(f"{at}: not a supported key; accepted: " + ", ".join(_KEYS))
    return key


def _repeat(opts: dict[str, Any], w: _Where) -> Repeat:
    cond = _condition(opts["while"], w.at) if "while" in opts else None
    if "times" not in opts and cond is None:
        raise FlowError(f"{w.at}: repeat needs times or while")
    times = opts.get("times", 1_000)
    by_var = isinstance(times, str) and VAR_PATTERN.fullmatch(times.strip())
    if not by_var and not str(times).isdigit():
        raise FlowError(f"{w.at}: times: give a whole number or a $var")
    return Repeat(times=0 if by_var else int(times),
                  times_var=times.strip() if by_var else "", condition=cond,
                  commands=_commands(opts.get("commands"), w.source, f"{w.where} repeat"))


def _sub_flow(name: str, arg: Any, opts: dict[str, Any], w: _Where) -> RunFlow | Retry:
    file = str(opts.get("file", arg if isinstance(arg, str) else "") or "")
    body = (_commands(opts["commands"], w.source, f"{w.where} {name}")
            if "commands" in opts else ())
    if not file and not body:
        raise FlowError(f"{w.at}: {name} needs file or commands")
    if name == "retry":
        return Retry(file=file, commands=body, max_retries=int(opts.get("maxRetries", 1)))
    cond = _condition(opts["when"], w.at) if "when" in opts else None
    return RunFlow(file=file, commands=body, condition=cond)


def _mem_save(opts: dict[str, Any], at: str) -> SaveValue:
    if "key" not in opts or ("value" in opts) == ("from" in opts):
        raise FlowError(f"{at}: memSave needs key and exactly one of value, from")
    sel = _selector(opts["from"], at) if "from" in opts else None
    return SaveValue(key=str(opts["key"]), value=str(opts.get("value", "")), selector=sel)


def _check_fields(opts: dict[str, Any], allowed: frozenset[str], at: str) -> None:
    unknown = sorted(set(opts) - allowed, key=str)
    if unknown:
        raise FlowError(f"{at}: unsupported field {_named(unknown[0])}; accepted: "
                        + (", ".join(sorted(allowed)) or "none"))


def _scalar(arg: Any, at: str) -> str:
    if isinstance(arg, str | int | float) and not isinstance(arg, bool):
        return str(arg)
    raise FlowError(f"{at}: expected a text value, got {_kind(arg)}")


def _selector(arg: Any, at: str) -> Selector:
    if isinstance(arg, str | int | float) and not isinstance(arg, bool):
        return Selector(text=str(arg))
    if not isinstance(arg, dict) or not arg:
        raise FlowError(f"{at}: expected a selector (a text, or text/id/desc/index/below/"
                        f"above/childOf/enabled/checked/selected/focused), got {_kind(arg)}")
    _check_fields(arg, _SELECTOR_KEYS, at)
    rel = {k: _selector(arg[k], at) for k in ("below", "above", "childOf") if k in arg}
    sel = Selector(text=_opt_str(arg.get("text")), id=_opt_str(arg.get("id")),
                   desc=_opt_str(arg.get("desc")),
                   index=int(arg["index"]) if "index" in arg else None,
                   below=rel.get("below"), above=rel.get("above"), child_of=rel.get("childOf"),
                   **{k: bool(arg[k]) for k in ("enabled", "checked", "selected", "focused")
                      if k in arg})
    return sel


def _named(name: Any) -> str:
    """A mapping key the file used, quoted and cut short (a key is named, a value never)."""
    text = " ".join(repr(name).split())
    return text if len(text) <= 40 else text[:37] + "..."


def _kind(value: Any) -> str:
    """What kind of value a file gave, never the value: a file read by mistake (a key list)
    must not reach a message, a log or a model (errors name the place and what is accepted)."""
    match value:
        case bool():
            return "true/false"
        case int() | float():
            return "a number"
        case str():
            return "a text"
        case list():
            return "a list"
        case dict():
            return "a mapping"
    return "nothing" if value is None else "another kind of value"


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _condition(arg: Any, at: str) -> Condition:
    if not isinstance(arg, dict):
        raise FlowError(f"{at}: a condition is a mapping with visible or notVisible")
    extra = sorted(set(arg) - {"visible", "notVisible", "platform"}, key=str)
    if extra:
        raise FlowError(f"{at}: unsupported condition {_named(extra[0])}; accepted: visible, "
                        "notVisible, platform")
    if str(arg.get("platform", "Android")).lower() != "android":
        raise FlowError(f"{at}: platform: only Android runs here")
    return Condition(visible=_selector(arg["visible"], at) if "visible" in arg else None,
                     not_visible=(_selector(arg["notVisible"], at)
                                  if "notVisible" in arg else None))


def _direction(value: Any, at: str) -> Any:
    d = str(value or "").lower()
    if d not in ("up", "down", "left", "right"):
        raise FlowError(f"{at}: not a direction; accepted: UP, DOWN, LEFT, RIGHT")
    return d


def _percent_point(value: Any, at: str) -> tuple[float, float]:
    parts = str(value).replace(" ", "").split(",")
    if len(parts) != 2 or not all(p.endswith("%") for p in parts):
        raise FlowError(f"{at}: point: only per-cent points ('50%,90%') survive "
                        "other screens; use a selector or per cent")
    try:
        x, y = (float(p[:-1]) for p in parts)
    except ValueError:
        raise FlowError(f"{at}: point: not two per-cent numbers ('50%,90%')") from None
    return x, y


def _ms(value: Any) -> float:
    return float(value) / 1000.0
