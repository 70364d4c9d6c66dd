"""The element list of an operator request, parsed back into records the expert can search.

The operator sends lines like ``[7] button "Add to cart" +"¥99" desc="cart" res=add_btn
@512,880 {clickable,focused}``, read back with :mod:`omg_agent.perception.elementlist` (the
module that wrote them); the expert answers with the ids of that list, exactly as a model
would.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from omg_agent.perception.elementlist import ParsedElement as Element
from omg_agent.perception.elementlist import parse_line

log = logging.getLogger(__name__)


def request_text(request: dict[str, Any]) -> str:
    """All text of the request's last user message."""
    content = request["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content if p.get("type") == "text")


def foreground(text: str) -> str:
    """The request's ``Foreground app:`` package, or ``""``."""
    m = re.search(r"Foreground app: (\S+)", text)
    return m.group(1) if m else ""


def task_of(request: dict[str, Any]) -> str:
    """The ``Task:`` line of the request (the user's task as the prompt quotes it)."""
    for message in request.get("messages", []):
        content = message.get("content")
        parts = [content] if isinstance(content, str) else [
            p.get("text", "") for p in content or [] if isinstance(p, dict)]
        for part in parts:
            m = re.search(r"^Task: (.+)$", part, re.MULTILINE)
            if m:
                return m.group(1).strip()
    return ""


class Screen:
    """The elements of one request, searchable by text, resource id and desc."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.elements = [e for e in map(parse_line, text.splitlines()) if e is not None]

    def find(self, *, text: str | None = None, res: str | None = None,
             desc: str | None = None) -> Element | None:
        for e in self.elements:
            if ((text is None or e.text == text) and (res is None or e.res == res)
                    and (desc is None or e.desc == desc)):
                return e
        return None

    def all(self, *, res: str) -> list[Element]:
        return [e for e in self.elements if e.res == res]


@dataclass(frozen=True)
class Seen:
    """One operator request as a model reads it: its text, the screen it lists, the
    foreground app and the user's task."""

    text: str
    screen: Screen
    package: str
    task: str


def seen(request: dict[str, Any]) -> Seen:
    text = request_text(request)
    return Seen(text, Screen(text), foreground(text), task_of(request))


def is_control(e: Element) -> bool:
    """A button a model would press: clickable (or drawn as a button), not a text field."""
    return bool({"clickable"} & e.flags or e.role == "button") and "editable" not in e.flags


def el(e: Element) -> dict[str, Any]:
    """An element target."""
    return {"kind": "element", "id": e.id}


def tap(e: Element) -> dict[str, Any]:
    return {"type": "tap", "target": el(e)}


def type_into(e: Element, text: str, *, submit: bool = False) -> dict[str, Any]:
    return {"type": "type", "text": text, "target": el(e), "clear": True, "submit": submit}


def launch(package: str) -> dict[str, Any]:
    return {"type": "launch", "app": package}


def report_infeasible(reason: str) -> dict[str, Any]:
    """The pseudo-move that makes the expert report the goal infeasible (``goal_infeasible``)."""
    return {"type": "report_infeasible", "reason": reason}


def report_declined(what: str) -> dict[str, Any]:
    """The pseudo-move that makes the expert stop because the user said no
    (``user_declined``)."""
    return {"type": "report_declined", "reason": what}


def anchor(*, text: str | None = None, res: str | None = None,
           desc: str | None = None) -> dict[str, Any]:
    """An anchor target: found by text / resource-id / desc on whatever screen is current."""
    target: dict[str, Any] = {"kind": "anchor"}
    for key, value in (("text", text), ("resource_id", res), ("desc", desc)):
        if value is not None:
            target[key] = value
    return target


def tap_at(target: dict[str, Any]) -> dict[str, Any]:
    """A tap on a target dict (an anchor, for moves after a screen change)."""
    return {"type": "tap", "target": target}


def type_at(target: dict[str, Any], text: str, *, submit: bool = False) -> dict[str, Any]:
    return {"type": "type", "text": text, "target": target, "clear": True, "submit": submit}


def fg(phone: Any) -> str:
    """The foreground package of an in-process vphone."""
    return phone.focus()[0]


def where(phone: Any, package: str) -> str:
    """The name of ``package``'s current screen (its true state)."""
    return phone.apps[package].screen.name


def back() -> dict[str, Any]:
    return {"type": "back"}


def wait(seconds: float = 0.5) -> dict[str, Any]:
    return {"type": "wait", "seconds": seconds}
