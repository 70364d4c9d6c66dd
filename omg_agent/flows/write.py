"""Writing flow files: :func:`dump_flow` gives a :class:`~.model.Flow` the shape
:mod:`.parse` reads — Maestro's header, ``---``, then the commands — so recorded and
compiled flows read like hand-written ones, and a written flow reads back the same.
"""

from __future__ import annotations

from typing import Any

import yaml

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
    PressKey,
    Repeat,
    Retry,
    RunFlow,
    SaveValue,
    ScrollUntilVisible,
    Selector,
    SwipeScreen,
    TakeScreenshot,
    TapOn,
    WaitSeconds,
)


def dump_flow(flow: Flow, *, maestro: bool = False) -> str:
    """``flow`` as YAML in the Maestro shape (header, ``---``, commands). ``maestro``: in
    Maestro's own commands where ours differ — typing into a named field becomes ``tapOn``
    the field, ``eraseText`` when it was cleared, then ``inputText`` (Maestro's takes the
    text alone)."""
    header: dict[str, Any] = {}
    if flow.app_id:
        header["appId"] = flow.app_id
    if flow.name:
        header["name"] = flow.name
    if flow.env:
        header["env"] = dict(flow.env)
    commands = [m for c in flow.commands for m in (_maestro(c) if maestro else (c,))]
    body = [_dump_command(c) for c in commands]
    text = yaml.safe_dump(body, allow_unicode=True, sort_keys=False, width=100)
    if header:
        return yaml.safe_dump(header, allow_unicode=True, sort_keys=False) + "---\n" + text
    return text


def _maestro(c: Command) -> tuple[Command, ...]:
    if not isinstance(c, InputText) or c.selector is None:
        return (c,)
    opt = c.optional
    return (TapOn(selector=c.selector, optional=opt),
            *((EraseText(optional=opt),) if c.clear else ()), InputText(text=c.text, optional=opt))


def _dump_selector(s: Selector) -> str | dict[str, Any]:
    keys = {k: getattr(s, k) for k in ("text", "id", "desc", "index", "enabled", "checked",
                                       "selected", "focused") if getattr(s, k) is not None}
    for name, rel in (("below", s.below), ("above", s.above), ("childOf", s.child_of)):
        if rel is not None:
            keys[name] = _dump_selector(rel)
    if list(keys) == ["text"]:
        return str(keys["text"])
    return keys


def _dump_command(c: Command) -> Any:
    extra: dict[str, Any] = {"optional": True} if c.optional else {}
    match c:
        case TapOn() | LongPressOn() | AssertVisible() | AssertNotVisible():
            point = getattr(c, "point", None)
            if point is not None:
                arg: Any = {"point": f"{point[0]:g}%,{point[1]:g}%"}
            else:
                assert c.selector is not None
                arg = _dump_selector(c.selector)
            if extra:
                arg = {**(arg if isinstance(arg, dict) else {"text": arg}), **extra}
            return {c.name: arg}
        case InputText():
            if c.selector is None and not c.clear:
                return {c.name: c.text}
            sel = _dump_selector(c.selector) if c.selector is not None else {}
            keys = {k: v for k, v in (sel.items() if isinstance(sel, dict) else ())
                    if k in ("id", "desc")}
            return {c.name: {"text": c.text, **keys, **({"clear": True} if c.clear else {})}}
        case LaunchApp():
            return {c.name: {"appId": c.app, **({} if c.stop else {"stopApp": False})}}
        case SaveValue():
            src: dict[str, Any] = ({"from": _dump_selector(c.selector)} if c.selector
                                   else {"value": c.value})
            return {c.name: {"key": c.key, **src}}
        case ScrollUntilVisible():
            return {c.name: {"element": _dump_selector(c.selector),
                             "direction": c.direction.upper()}}
        case SwipeScreen():
            return {c.name: {"direction": c.direction.upper()}}
        case PressKey():
            return {c.name: c.key}
        case WaitSeconds():
            return {c.name: {"seconds": c.seconds}}
        case ExtendedWaitUntil():
            return {c.name: {**_dump_condition(c.condition), "timeout": int(c.timeout_s * 1000)}}
        case Repeat():
            cond = {"while": _dump_condition(c.condition)} if c.condition else {}
            return {c.name: {"times": c.times_var or c.times, **cond,
                             "commands": [_dump_command(b) for b in c.commands]}}
        case RunFlow() | Retry():
            out: dict[str, Any] = {"file": c.file} if c.file else {
                "commands": [_dump_command(b) for b in c.commands]}
            if isinstance(c, RunFlow) and c.condition is not None:
                out["when"] = _dump_condition(c.condition)
            if isinstance(c, Retry):
                out["maxRetries"] = c.max_retries
            return {c.name: out}
        case EraseText():
            return {c.name: c.count}
        case TakeScreenshot():
            return {c.name: c.path}
    return c.name


def _dump_condition(cond: Condition | None) -> dict[str, Any]:
    cond = cond or Condition()
    return {**({"visible": _dump_selector(cond.visible)} if cond.visible else {}),
            **({"notVisible": _dump_selector(cond.not_visible)} if cond.not_visible else {})}
