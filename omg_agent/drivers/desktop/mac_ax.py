"""Reading a macOS app's accessibility (AX) tree through a thin seam over the AX API.

:class:`AXApi` is the seam: the five AX calls the reader needs —
``AXUIElementCreateApplication``, ``AXUIElementCopyAttributeValue``,
``AXUIElementCopyMultipleAttributeValues`` (a node's attributes in one round trip),
``AXUIElementPerformAction``, ``AXUIElementSetAttributeValue`` — with their results as plain
Python (strings, numbers, booleans, element handles, lists of handles; ``AXPosition`` as
``{"x", "y"}`` and ``AXSize`` as ``{"w", "h"}`` in points; ``None`` for an attribute the
element lacks). :class:`PyObjCAX` makes those calls through pyobjc on a Mac;
:class:`RecordedAX` answers them from a recorded tree (JSON in the same AX vocabulary), so
everything above the seam — which windows are read, which subtrees are skipped, how deep,
how many nodes — runs in the tests.

:func:`read_app` walks one app: its windows (``AXWindows``, the focused one first; a
standard window behind the focused and main ones is read without its contents, being
covered), each window's children (sheets included), and the menu bar (an open menu's
items; a closed menu is not walked) — one round trip per node. A secure text field's value
is dropped as it is read. The result is a tree of attribute dicts with ``ref`` (the
handle) per node — what :func:`~.mac_ax_elements.flatten_ax` turns into elements, and
(without ``ref``, :func:`as_json`) what a fixture holds.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Protocol

ATTRIBUTES = ("AXRole", "AXSubrole", "AXRoleDescription", "AXIdentifier", "AXTitle",
              "AXValue", "AXDescription", "AXHelp", "AXPlaceholderValue", "AXEnabled",
              "AXFocused", "AXSelected", "AXMain", "AXPosition", "AXSize")
MAX_DEPTH = 40
MAX_NODES = 4000
STANDARD_WINDOW = "AXStandardWindow"
SECURE = "AXSecureTextField"


class AXApi(Protocol):
    """The AX calls, one method each (see the module docstring for the value shapes)."""

    def application(self, pid: int) -> Any: ...

    def attribute(self, element: Any, name: str) -> Any: ...

    def attributes(self, element: Any, names: Sequence[str]) -> dict[str, Any]: ...

    def perform(self, element: Any, action: str) -> bool: ...

    def set_attribute(self, element: Any, name: str, value: Any) -> bool: ...


def read_app(api: AXApi, pid: int, name: str = "", *, max_nodes: int = MAX_NODES,
             max_depth: int = MAX_DEPTH) -> dict[str, Any] | None:
    """The AX tree of app ``pid`` (an ``AXApplication`` node), ``None`` when it shows no
    window."""
    app = api.application(pid)
    windows = list(api.attribute(app, "AXWindows") or ())
    focused = api.attribute(app, "AXFocusedWindow")
    if focused is not None:
        windows = [focused, *(w for w in windows if w != focused)]
    if not windows:
        return None
    main = api.attribute(app, "AXMainWindow")
    budget = [max_nodes]
    nodes = []
    for i, window in enumerate(windows):
        # the focused window, the main one (under a focused dialog) and dialogs are read
        # whole; another document window is covered: its title only
        shallow = (i > 0 and window != main
                   and api.attribute(window, "AXSubrole") == STANDARD_WINDOW)
        nodes.append(_node(api, window, 0 if shallow else max_depth, budget))
    tree: dict[str, Any] = {"ref": app, "AXRole": "AXApplication", "AXTitle": name,
                            "AXWindows": nodes}
    menubar = api.attribute(app, "AXMenuBar")
    if menubar is not None:
        tree["AXMenuBar"] = _node(api, menubar, 3, budget)  # bar, item, menu, menu item
    return tree


def _node(api: AXApi, element: Any, depth: int, budget: list[int]) -> dict[str, Any]:
    budget[0] -= 1
    values = api.attributes(element, (*ATTRIBUTES, "AXChildren"))  # one round trip a node
    kids = values.pop("AXChildren", None) or ()
    node: dict[str, Any] = {"ref": element, **values}
    if node.get("AXSubrole") == SECURE:
        node.pop("AXValue", None)  # a password is dropped as it is read: no list, no file
    if depth <= 0 or _closed(node):
        return node
    children = []
    for child in kids:
        if budget[0] <= 0:
            break
        children.append(_node(api, child, depth - 1, budget))
    node["AXChildren"] = children
    return node


def _closed(node: dict[str, Any]) -> bool:
    """A menu bar item not open (its menu's hundreds of items are not on the screen), or
    a menu without a frame."""
    role = node.get("AXRole")
    if role == "AXMenuBarItem":
        return not node.get("AXSelected")
    if role == "AXMenu":
        size = node.get("AXSize")
        return not isinstance(size, dict) or not size.get("w") or not size.get("h")
    return False


def as_json(tree: dict[str, Any]) -> dict[str, Any]:
    """A read tree as a fixture holds it: the handles dropped."""
    out = {k: v for k, v in tree.items() if k != "ref"}
    for key in ("AXChildren", "AXWindows"):
        if key in out:
            out[key] = [as_json(c) for c in out[key]]
    if isinstance(out.get("AXMenuBar"), dict):
        out["AXMenuBar"] = as_json(out["AXMenuBar"])
    return out


class RecordedAX:
    """:class:`AXApi` over a recorded tree: each node a dict of AX attributes (an app node
    holds ``AXWindows`` and ``AXMenuBar``, a window ``AXFocused``/``AXMain``). A node's
    ``actions`` lists the actions it takes and ``settable`` its settable attributes; what
    is performed and set is logged in ``calls``, and a set value is kept."""

    def __init__(self, apps: dict[int, dict[str, Any]]) -> None:
        self.apps = {pid: copy.deepcopy(tree) for pid, tree in apps.items()}
        self.calls: list[tuple[str, str, Any]] = []
        self.reads = 0  # attributes() round trips

    def application(self, pid: int) -> Any:
        return self.apps[pid]

    def attribute(self, element: Any, name: str) -> Any:
        flag = {"AXFocusedWindow": "AXFocused", "AXMainWindow": "AXMain"}.get(name)
        if flag is not None:
            windows: Sequence[dict[str, Any]] = element.get("AXWindows") or ()
            return next((w for w in windows if w.get(flag)), None)
        return element.get(name)

    def attributes(self, element: Any, names: Sequence[str]) -> dict[str, Any]:
        self.reads += 1
        return {n: element[n] for n in names if element.get(n) is not None}

    def perform(self, element: Any, action: str) -> bool:
        self.calls.append(("perform", str(element.get("ref")), action))
        return action in (element.get("actions") or ())

    def set_attribute(self, element: Any, name: str, value: Any) -> bool:
        self.calls.append(("set", str(element.get("ref")), value))
        if name not in (element.get("settable") or ()):
            return False
        element[name] = value
        return True


class PyObjCAX:  # pragma: no cover - needs macOS
    """:class:`AXApi` through pyobjc's ApplicationServices (``import ApplicationServices``
    is done by the caller, who holds the module)."""

    def __init__(self, ax: Any) -> None:
        self.AX = ax

    def application(self, pid: int) -> Any:
        return self.AX.AXUIElementCreateApplication(pid)

    def attribute(self, element: Any, name: str) -> Any:
        err, value = self.AX.AXUIElementCopyAttributeValue(element, name, None)
        if err != 0 or value is None:
            return None
        return self._plain(name, value)

    def attributes(self, element: Any, names: Sequence[str]) -> dict[str, Any]:
        """One ``AXUIElementCopyMultipleAttributeValues`` call; a missing attribute comes
        back as an AXValue wrapping an error and is left out."""
        err, values = self.AX.AXUIElementCopyMultipleAttributeValues(element, list(names), 0,
                                                                     None)
        if err != 0 or values is None:
            return {n: v for n in names if (v := self.attribute(element, n)) is not None}
        out = {}
        for name, value in zip(names, values, strict=False):
            if value is None or self._is_error(value):
                continue
            if (plain := self._plain(name, value)) is not None:
                out[name] = plain
        return out

    def _is_error(self, value: Any) -> bool:
        AX = self.AX
        try:
            return AX.AXValueGetType(value) == AX.kAXValueAXErrorType
        except (TypeError, ValueError):  # not an AXValue: a string, number, element, array
            return False

    def _plain(self, name: str, value: Any) -> Any:
        if name == "AXPosition":
            ok, p = self.AX.AXValueGetValue(value, self.AX.kAXValueCGPointType, None)
            return {"x": float(p.x), "y": float(p.y)} if ok else None
        if name == "AXSize":
            ok, s = self.AX.AXValueGetValue(value, self.AX.kAXValueCGSizeType, None)
            return {"w": float(s.width), "h": float(s.height)} if ok else None
        if name in ("AXChildren", "AXWindows"):
            return list(value)
        if name in ("AXFocusedWindow", "AXMainWindow", "AXMenuBar"):
            return value
        return value if isinstance(value, (str, int, float, bool)) else str(value)

    def perform(self, element: Any, action: str) -> bool:
        return self.AX.AXUIElementPerformAction(element, action) == 0

    def set_attribute(self, element: Any, name: str, value: Any) -> bool:
        return self.AX.AXUIElementSetAttributeValue(element, name, value) == 0
