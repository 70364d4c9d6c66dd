"""Turning what was done on a screen into anchored flow steps: taps become anchors, not
coordinates.

:func:`selector_for` names an element the way the flow will find it again on any screen:
its resource-id when that is unique on the screen, else its text or description (with the
id when both are needed to tell it apart), else its n-th place among its look-alikes; a
touch on nothing nameable stays a per-cent point. :class:`FlowRecorder` builds a flow from
actions as a user does them on a live screen (``omg-agent flow record``, tests), and
:mod:`.fromtrace` uses the same rules on a run's trace. Element data is either a
:class:`~omg_agent.core.observation.UIElement` or the trace's element summary (a dict).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from omg_agent.core.actions import (
    Action,
    AnchorTarget,
    Back,
    ElementTarget,
    Home,
    Key,
    Launch,
    LongPress,
    MemSave,
    PointTarget,
    Swipe,
    Tap,
    TypeText,
)
from omg_agent.core.observation import Observation, UIElement
from omg_agent.flows.model import (
    Command,
    Flow,
    InputText,
    LaunchApp,
    LongPressOn,
    PressBack,
    PressKey,
    SaveValue,
    Selector,
    SwipeScreen,
    TapOn,
)
from omg_agent.flows.select import literal

# Buttons that close a dialog the app may or may not show next time: recorded as optional.
DISMISS_WORDS = frozenset({"no thanks", "not now", "close", "dismiss", "skip", "later",
                           "cancel", "关闭", "跳过", "取消", "以后再说", "不用了"})


def _get(e: Any, name: str) -> Any:
    if isinstance(e, dict):
        return e.get(name) or ("" if name != "bounds" else None)
    return getattr(e, name)


def short_id(resource_id: str) -> str:
    return resource_id.rsplit("/", 1)[-1] if resource_id else ""


def selector_for(e: Any, elements: Sequence[Any]) -> Selector:
    """How ``e`` (one of ``elements``) is found again: see the module docstring."""
    rid, text, desc = (_get(e, "resource_id"), _get(e, "text"), _get(e, "desc"))
    rid = short_id(rid)

    def same(o: Any, **keys: str) -> bool:
        return all((short_id(_get(o, k)) if k == "resource_id" else _get(o, k)) == v
                   for k, v in keys.items())

    options: list[dict[str, str]] = []
    if rid and not _get(e, "resource_id").startswith("android:"):  # not a generic system id
        options.append({"resource_id": rid})
    if desc:
        options += [{"desc": desc}] + ([{"resource_id": rid, "desc": desc}] if rid else [])
    if text and not _get(e, "password"):
        options += [{"text": text}] + ([{"resource_id": rid, "text": text}] if rid else [])
    for keys in options:
        if sum(1 for o in elements if same(o, **keys)) == 1:
            return _selector(keys)
    if options:  # look-alikes: the n-th of them, top to bottom
        keys = options[-1]
        alike = sorted((o for o in elements if same(o, **keys)),
                       key=lambda o: (_get(o, "bounds")[1], _get(o, "bounds")[0]))
        index = next((i for i, o in enumerate(alike) if o is e), 0)
        return _selector(keys, index)
    raise ValueError("element has no id, text or description to anchor on")


def _selector(keys: dict[str, str], index: int | None = None) -> Selector:
    text = keys.get("text")
    return Selector(text=_literal(text) if text is not None else None,
                    id=keys.get("resource_id"),
                    desc=_literal(keys["desc"]) if "desc" in keys else None, index=index)


def _literal(text: str) -> str:
    """A screen text as a selector that matches it literally (selectors are regexes)."""
    return literal(text)


def is_dismissal(e: Any) -> bool:
    label = (_get(e, "text") or _get(e, "desc") or "").strip().lower()
    return label in DISMISS_WORDS


def element_under(point: Sequence[int], elements: Sequence[Any]) -> Any | None:
    """The smallest element with an id, text or desc whose bounds hold ``point``."""
    x, y = point[0], point[1]
    hits = [e for e in elements
            if (b := _get(e, "bounds")) is not None and b[0] <= x < b[2] and b[1] <= y < b[3]
            and (_get(e, "resource_id") or _get(e, "text") or _get(e, "desc"))]
    return min(hits, key=lambda e: (_get(e, "bounds")[2] - _get(e, "bounds")[0])
               * (_get(e, "bounds")[3] - _get(e, "bounds")[1]), default=None)


def touch_command(name: str, target: Any, elements: Sequence[Any],
                  point: Sequence[int] | None, size: Sequence[int] | None) -> TapOn | LongPressOn:
    """``tapOn`` / ``longPressOn`` / a selector-less command's selector for one target."""
    touch = LongPressOn if name == "longPressOn" else TapOn
    element = None
    match target:
        case AnchorTarget():
            keys = {k: v for k, v in (("text", target.text), ("resource_id",
                                                              target.resource_id),
                                      ("desc", target.desc)) if v is not None}
            sel = Selector(text=keys.get("text") if target.match == "regex" else
                           _maybe_literal(keys.get("text")), id=keys.get("resource_id"),
                           desc=_maybe_literal(keys.get("desc")))
            return touch(selector=sel)
        case ElementTarget():
            element = next((e for e in elements if _get(e, "id") == target.id), None)
    if element is None and point is not None:
        element = element_under(point, elements)
    if element is not None:
        return touch(selector=selector_for(element, elements), optional=is_dismissal(element))
    if point is not None and size:
        return touch(point=(round(100 * point[0] / size[0], 1),
                            round(100 * point[1] / size[1], 1)))
    if isinstance(target, PointTarget):
        return touch(point=(target.x / 10, target.y / 10))
    raise ValueError(f"cannot anchor {name}: the element is not in the recorded screen")


def _maybe_literal(text: str | None) -> str | None:
    return None if text is None else _literal(text)


def action_commands(action: Action, elements: Sequence[Any], point: Sequence[int] | None,
                    size: Sequence[int] | None) -> list[Command]:
    """The flow steps for one action done on a screen showing ``elements``."""
    match action:
        case Launch():
            # what the agent (or the user) did: brought the app up as it was
            return [LaunchApp(app=action.app, stop=bool(action.restart))]
        case Tap():
            return [touch_command("tapOn", action.target, elements, point, size)]
        case LongPress():
            return [touch_command("longPressOn", action.target, elements, point, size)]
        case TypeText():
            sel = None
            if action.target is not None:
                sel = touch_command("tapOn", action.target, elements, point, size).selector
            out: list[Command] = [InputText(text=action.text, selector=sel, clear=action.clear)]
            return out + ([PressKey(key="enter")] if action.submit else [])
        case Back():
            return [PressBack()]
        case Home():
            return [PressKey(key="home")]
        case Key():
            return [PressBack()] if action.key == "back" else [PressKey(key=str(action.key))]
        case Swipe():
            return [SwipeScreen(direction=_direction(action, point))]
        case MemSave():
            if action.from_screen is None or action.from_screen.target is None:
                return [SaveValue(key=action.key, value=action.value or "")]
            sel = touch_command("tapOn", action.from_screen.target, elements, None,
                                size).selector
            return [SaveValue(key=action.key, selector=sel)]
    return []  # wait, ask_user, done: nothing to replay


def _direction(action: Swipe, point: Sequence[int] | None) -> Any:
    if action.direction is not None:
        return action.direction
    a, b = action.from_, action.to
    if isinstance(a, PointTarget) and isinstance(b, PointTarget):
        dx, dy = b.x - a.x, b.y - a.y
        if abs(dx) > abs(dy):
            return "right" if dx > 0 else "left"
        return "down" if dy > 0 else "up"
    return "up"


class FlowRecorder:
    """Collects anchored steps from actions done on live screens, in order."""

    def __init__(self, app_id: str = "", name: str = "") -> None:
        self.app_id, self.name = app_id, name
        self.commands: list[Command] = []

    def add(self, action: Action, obs: Observation | None,
            point: tuple[int, int] | None = None) -> list[Command]:
        """Record ``action`` as done on ``obs`` (``point``: the pixel a touch landed on, if
        the user gave a point); returns the steps added."""
        elements: Sequence[UIElement] = obs.elements if obs is not None else ()
        size = obs.size if obs is not None else None
        added = action_commands(action, elements, point, size)
        self.commands += added
        return added

    def flow(self) -> Flow:
        return Flow(commands=tuple(_numbered(self.commands)), app_id=self.app_id,
                    name=self.name)


def _numbered(commands: Sequence[Command]) -> list[Command]:
    return [c.model_copy(update={"line": i}) for i, c in enumerate(commands, start=1)]
