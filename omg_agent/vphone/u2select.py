"""UiSelector matching over the vphone's uiautomator XML, for the uiautomator2 server double.

The uiautomator2 client sends selectors as a dict with a ``mask`` of set fields (see
``uiautomator2/_selector.py``: ``text`` is 0x01, ``instance`` 0x01000000, ...) plus optional
``childOrSibling``/``childOrSiblingSelector`` chains. On a real phone the server resolves them
against the accessibility tree; here we resolve them against a parse of ``phone.dump_xml()``,
which is the same tree the phone draws and hit-tests, so what matches is what a tap reaches.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

Bounds = tuple[int, int, int, int]

_BOUNDS_RE = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


class SelectorError(ValueError):
    """The selector cannot be evaluated (bad regex, malformed chain)."""


@dataclass(eq=False)
class UiNode:
    """One ``<node>`` of a dump, linked to its parent and children, in document order."""

    attrs: dict[str, str]
    bounds: Bounds
    order: int
    parent: UiNode | None = None
    children: list[UiNode] = field(default_factory=list)

    def get(self, name: str) -> str:
        return self.attrs.get(name, "")

    def flag(self, name: str) -> bool:
        return self.attrs.get(name, "false") == "true"

    @property
    def center(self) -> tuple[int, int]:
        left, top, right, bottom = self.bounds
        return (left + right) // 2, (top + bottom) // 2

    def descendants(self) -> Iterator[UiNode]:
        for child in self.children:
            yield child
            yield from child.descendants()


def parse_bounds(text: str) -> Bounds:
    match = _BOUNDS_RE.fullmatch(text.strip())
    if not match:
        return (0, 0, 0, 0)
    left, top, right, bottom = (int(v) for v in match.groups())
    return (left, top, right, bottom)


def parse_nodes(xml: str) -> list[UiNode]:
    """All ``<node>`` elements of a uiautomator dump, pre-order (the order ``instance`` counts)."""
    try:
        root = ET.fromstring(xml.encode("utf-8"))
    except ET.ParseError as exc:
        raise SelectorError(f"unparsable hierarchy: {exc}") from exc
    nodes: list[UiNode] = []

    def visit(element: ET.Element, parent: UiNode | None) -> None:
        for child in element:
            if child.tag != "node":
                continue
            node = UiNode(dict(child.attrib), parse_bounds(child.get("bounds", "")), len(nodes),
                          parent)
            nodes.append(node)
            if parent is not None:
                parent.children.append(node)
            visit(child, node)

    visit(root, None)
    return nodes


def _regex(pattern: Any) -> re.Pattern[str]:
    try:
        return re.compile(str(pattern))
    except re.error as exc:
        raise SelectorError(f"bad regex {pattern!r}: {exc}") from exc


def _equals(attr: str) -> Callable[[UiNode, Any], bool]:
    return lambda node, want: node.get(attr) == str(want)


def _contains(attr: str) -> Callable[[UiNode, Any], bool]:
    return lambda node, want: str(want) in node.get(attr)


def _starts(attr: str) -> Callable[[UiNode, Any], bool]:
    return lambda node, want: node.get(attr).startswith(str(want))


def _matches(attr: str) -> Callable[[UiNode, Any], bool]:
    # Java's Matcher.matches(): the whole value must match.
    return lambda node, want: _regex(want).fullmatch(node.get(attr)) is not None


def _boolean(attr: str) -> Callable[[UiNode, Any], bool]:
    return lambda node, want: node.flag(attr) == bool(want)


# field -> (mask bit, (uiautomator name used in messages), predicate); bits as in _selector.py
_FIELDS: dict[str, tuple[int, str, Callable[[UiNode, Any], bool]]] = {
    "text": (0x01, "TEXT", _equals("text")),
    "textContains": (0x02, "CONTAINS_TEXT", _contains("text")),
    "textMatches": (0x04, "TEXT_REGEX", _matches("text")),
    "textStartsWith": (0x08, "START_TEXT", _starts("text")),
    "className": (0x10, "CLASS", _equals("class")),
    "classNameMatches": (0x20, "CLASS_REGEX", _matches("class")),
    "description": (0x40, "DESCRIPTION", _equals("content-desc")),
    "descriptionContains": (0x80, "CONTAINS_DESCRIPTION", _contains("content-desc")),
    "descriptionMatches": (0x0100, "DESCRIPTION_REGEX", _matches("content-desc")),
    "descriptionStartsWith": (0x0200, "START_DESCRIPTION", _starts("content-desc")),
    "checkable": (0x0400, "CHECKABLE", _boolean("checkable")),
    "checked": (0x0800, "CHECKED", _boolean("checked")),
    "clickable": (0x1000, "CLICKABLE", _boolean("clickable")),
    "longClickable": (0x2000, "LONG_CLICKABLE", _boolean("long-clickable")),
    "scrollable": (0x4000, "SCROLLABLE", _boolean("scrollable")),
    "enabled": (0x8000, "ENABLED", _boolean("enabled")),
    "focusable": (0x010000, "FOCUSABLE", _boolean("focusable")),
    "focused": (0x020000, "FOCUSED", _boolean("focused")),
    "selected": (0x040000, "SELECTED", _boolean("selected")),
    "packageName": (0x080000, "PACKAGE_NAME", _equals("package")),
    "packageNameMatches": (0x100000, "PACKAGE_NAME_REGEX", _matches("package")),
    "resourceId": (0x200000, "RESOURCE_ID", _equals("resource-id")),
    "resourceIdMatches": (0x400000, "RESOURCE_ID_REGEX", _matches("resource-id")),
    "index": (0x800000, "INDEX", lambda node, want: node.get("index") == str(want)),
}
_INSTANCE_BIT = 0x01000000


def _mask(selector: dict[str, Any]) -> int:
    mask = selector.get("mask")
    if isinstance(mask, int):
        return mask
    # A hand-written selector without a mask: every known field present counts.
    bits = sum(bit for name, (bit, _, _) in _FIELDS.items() if name in selector)
    return bits | (_INSTANCE_BIT if "instance" in selector else 0)


def node_matches(node: UiNode, selector: dict[str, Any]) -> bool:
    mask = _mask(selector)
    for name, (bit, _, predicate) in _FIELDS.items():
        if mask & bit and name in selector and not predicate(node, selector[name]):
            return False
    return True


def _pick_instance(found: list[UiNode], selector: dict[str, Any]) -> list[UiNode]:
    if not _mask(selector) & _INSTANCE_BIT:
        return found
    instance = int(selector.get("instance", 0))
    return [found[instance]] if 0 <= instance < len(found) else []


def find_all(nodes: list[UiNode], selector: dict[str, Any]) -> list[UiNode]:
    """Nodes matching ``selector`` (with its child/sibling chain), in document order."""
    found = _pick_instance([n for n in nodes if node_matches(n, selector)], selector)
    kinds = selector.get("childOrSibling") or []
    subs = selector.get("childOrSiblingSelector") or []
    if len(kinds) != len(subs):
        raise SelectorError("childOrSibling and childOrSiblingSelector differ in length")
    for kind, sub in zip(kinds, subs, strict=True):
        if kind not in ("child", "sibling"):
            raise SelectorError(f"unknown relation {kind!r}")
        scope: dict[int, UiNode] = {}
        for context in found:
            # UiSelector.fromParent searches the parent's subtree; childSelector the node's own.
            base = context if kind == "child" else context.parent
            if base is not None:
                scope.update((n.order, n) for n in base.descendants())
        candidates = [scope[order] for order in sorted(scope)]
        found = _pick_instance([n for n in candidates if node_matches(n, sub)], sub)
    return found


def describe(selector: dict[str, Any]) -> str:
    """A UiSelector's toString(), e.g. ``UiSelector[TEXT=Settings, INSTANCE=1]``."""
    mask = _mask(selector)
    parts = [f"{label}={selector[name]}" for name, (bit, label, _) in _FIELDS.items()
             if mask & bit and name in selector]
    if mask & _INSTANCE_BIT:
        parts.append(f"INSTANCE={selector.get('instance', 0)}")
    relations = zip(selector.get("childOrSibling") or [],
                    selector.get("childOrSiblingSelector") or [], strict=False)
    for kind, sub in relations:
        label = "CHILD" if kind == "child" else "PARENT"
        parts.append(f"{label}={describe(sub)}")
    return "UiSelector[" + ", ".join(parts) + "]"


def _rect(bounds: Bounds) -> dict[str, int]:
    left, top, right, bottom = bounds
    return {"bottom": bottom, "left": left, "right": right, "top": top}


def visible_bounds(bounds: Bounds, width: int, height: int) -> Bounds:
    left, top, right, bottom = bounds
    left, right = max(0, min(left, width)), max(0, min(right, width))
    top, bottom = max(0, min(top, height)), max(0, min(bottom, height))
    return (left, top, max(left, right), max(top, bottom))


def object_info(node: UiNode, width: int, height: int) -> dict[str, Any]:
    """The ``ObjInfo`` JSON the real server returns for a UiObject."""
    return {
        "bounds": _rect(node.bounds),
        "checkable": node.flag("checkable"),
        "checked": node.flag("checked"),
        "childCount": len(node.children),
        "className": node.get("class"),
        "clickable": node.flag("clickable"),
        "contentDescription": node.get("content-desc"),
        "enabled": node.flag("enabled"),
        "focusable": node.flag("focusable"),
        "focused": node.flag("focused"),
        "longClickable": node.flag("long-clickable"),
        "packageName": node.get("package"),
        "resourceName": node.get("resource-id") or None,
        "scrollable": node.flag("scrollable"),
        "selected": node.flag("selected"),
        "text": node.get("text"),
        "visibleBounds": _rect(visible_bounds(node.bounds, width, height)),
    }


def prune_depth(xml: str, max_depth: int) -> str:
    """Drop nodes nested deeper than ``max_depth``; returns ``xml`` untouched when none are."""
    try:
        root = ET.fromstring(xml.encode("utf-8"))
    except ET.ParseError:
        return xml
    pruned = False

    def visit(element: ET.Element, depth: int) -> None:
        nonlocal pruned
        for child in list(element):
            if depth >= max_depth:
                element.remove(child)
                pruned = True
            else:
                visit(child, depth + 1)

    visit(root, 0)
    if not pruned:
        return xml
    body = ET.tostring(root, encoding="unicode")
    return "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>" + body
