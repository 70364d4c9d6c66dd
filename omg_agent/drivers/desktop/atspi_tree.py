"""Reading one app's AT-SPI tree into plain :class:`Node` records.

:func:`read_app` walks an app's accessible objects breadth first, one batch of D-Bus calls
per level (:meth:`~.atspi_bus.AtspiBus.calls`): for each object its role name, name,
description, state set and children; then, in one more batch, the screen extents and
interfaces of the showing objects whose role the caller wants (the app computes a screen
position with X round trips: asking it of every filler and panel doubled the time). A
subtree whose root is not ``showing`` (a hidden tab page, a window not mapped) is not
entered; a closed menu's items (listed by GTK even while the menu is shut) are not read.
:data:`MAX_NODES` bounds a pathological tree.

The records are pure data — :mod:`.atspi_elements` turns them into the element list, and
the unit tests feed it recorded trees without a bus.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from omg_agent.drivers.desktop.atspi_bus import ACCESSIBLE, AtspiBus, Call, Ref

COMPONENT = "org.a11y.atspi.Component"
PROPS = "org.freedesktop.DBus.Properties"
SCREEN = 0  # ATSPI_COORD_TYPE_SCREEN
MAX_NODES = 2500
OPEN = frozenset({"selected", "expanded"})
MENU_HOLDERS = frozenset({"menu bar", "menu"})  # a menu there opens on a click; a pop-up
# menu (a right click's) is a window's child and open while it shows
MAX_DEPTH = 40
# AT-SPI StateType numbers (at-spi2-core's atspi-constants.h)
STATES = {1: "active", 4: "checked", 7: "editable", 8: "enabled", 10: "expanded",
          11: "focusable", 12: "focused", 16: "modal", 17: "multi_line", 20: "pressed",
          22: "selectable",
          23: "selected", 24: "sensitive", 25: "showing", 30: "visible",
          31: "manages_descendants", 41: "checkable", 43: "read_only"}


@dataclass(frozen=True)
class Node:
    """One accessible object as read off the bus."""

    ref: Ref
    role: str  # AT-SPI role name: "push button", "text", "frame", …
    name: str = ""
    description: str = ""
    states: frozenset[str] = frozenset()
    interfaces: frozenset[str] = frozenset()
    extents: tuple[int, int, int, int] = (0, 0, 0, 0)  # x, y, width, height (screen px)
    depth: int = 0
    window: int = -1  # index of the top-level window (frame, dialog) the node is in
    in_menu: bool = False  # inside an open menu (drawn over the window, like a dialog)
    children: tuple[Ref, ...] = field(default=(), repr=False)


def decode_states(words: Sequence[int]) -> frozenset[str]:
    """An AT-SPI state set (two 32-bit words) as the names of :data:`STATES`."""
    bits = 0
    for i, w in enumerate(words or ()):
        bits |= int(w) << (32 * i)
    return frozenset(name for n, name in STATES.items() if bits >> n & 1)


def _calls(ref: Ref) -> list[Call]:
    return [Call(ref, ACCESSIBLE, "GetRoleName"),
            Call(ref, PROPS, "GetAll", "s", (ACCESSIBLE,)),
            Call(ref, ACCESSIBLE, "GetState"),
            Call(ref, ACCESSIBLE, "GetChildren")]


def _node(ref: Ref, replies: Sequence[Any], depth: int, window: int,
          in_menu: bool) -> Node | None:
    role, props, state, children = replies
    if role is None:
        return None  # gone since its parent listed it
    props = {k: v[1] for k, v in (props or {}).items()}
    return Node(ref=ref, role=str(role), name=str(props.get("Name") or ""),
                description=str(props.get("Description") or ""),
                states=decode_states(state or ()), depth=depth, window=window,
                in_menu=in_menu, children=tuple(Ref(*c) for c in children or ()))


def _placed(bus: AtspiBus, nodes: list[Node], wanted: Collection[str] | None) -> list[Node]:
    """``nodes`` with their extents and interfaces, asked (one batch) only of the showing
    nodes whose role is ``wanted`` — a screen position costs the app X round trips."""
    asks = [i for i, n in enumerate(nodes)
            if "showing" in n.states and (wanted is None or n.role in wanted)]
    got = bus.calls([c for i in asks for c in (
        Call(nodes[i].ref, COMPONENT, "GetExtents", "u", (SCREEN,)),
        Call(nodes[i].ref, ACCESSIBLE, "GetInterfaces"))])
    out = list(nodes)
    for k, i in enumerate(asks):
        ext, ifaces = got[2 * k], got[2 * k + 1]
        out[i] = replace(nodes[i], interfaces=frozenset(ifaces or ()),
                         extents=tuple(ext) if ext else (0, 0, 0, 0))
    return out


def _enter(node: Node, parent_role: str) -> bool:
    """Whether to read ``node``'s children."""
    if node.depth == 0:
        return True  # the application: its windows are judged one by one
    if node.role == "menu" and parent_role in MENU_HOLDERS and not node.states & OPEN:
        return False  # a closed menu's items are in the tree but not on the screen
    return "showing" in node.states and node.depth < MAX_DEPTH


def read_app(bus: AtspiBus, app: Ref, wanted: Collection[str] | None = None) -> list[Node]:
    """Every showing object of ``app``, breadth first; ``window`` numbers the app's
    top-level windows in the order the app lists them. Only the roles in ``wanted`` (all
    when None) get their extents and interfaces read."""
    nodes: list[Node] = []
    level: list[tuple[Ref, int, bool, str]] = [(app, -1, False, "")]
    depth = 0
    while level and len(nodes) < MAX_NODES:
        level = level[:MAX_NODES - len(nodes)]
        flat = bus.calls([c for ref, *_ in level for c in _calls(ref)])
        n = len(_calls(app))
        nxt: list[tuple[Ref, int, bool, str]] = []
        for i, (ref, window, in_menu, parent_role) in enumerate(level):
            node = _node(ref, flat[n * i:n * i + n], depth, window, in_menu)
            if node is None:
                continue
            nodes.append(node)
            if not _enter(node, parent_role):
                continue
            menu = in_menu or node.role == "menu" and depth > 1
            for j, child in enumerate(node.children):
                if not Ref(*child).null:
                    nxt.append((child, j if depth == 0 else window, menu, node.role))
        level = nxt
        depth += 1
    return _placed(bus, nodes, wanted)
