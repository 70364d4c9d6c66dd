"""The accessibility tree of a Linux desktop app, and acting on its elements (AT-SPI).

:class:`AtspiTree` is what the X11 backend (:mod:`.x11`) asks for the frontmost app's
elements: it finds the app on the accessibility bus by the process id of the frontmost
window (``_NET_WM_PID`` — an app the registry does not list is still found by its bus
connection's pid), reads its tree (:mod:`.atspi_tree`, one batch of calls per level),
reads the content of its text objects, and turns it all into elements
(:mod:`.atspi_elements`). It remembers which object each element of the last read is, so
the driver can act on an element itself (:class:`~.backend.ElementActions`):

* :meth:`press_element` — the object's own action (``click``, ``press``, ``activate``,
  ``toggle``) where the app offers one; a menu opens, a button fires, even under another
  window;
* :meth:`set_value` — a single-line field's whole text through ``EditableText`` and read
  back; a multi-line text is typed (keys or a clipboard paste), which keeps the app's undo.

An app with no tree (Tk, xcalc, or any app when the bus is down) answers ``None`` and the
driver reads the screen with OCR instead (:mod:`.driver`).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from omg_agent.core.observation import UIElement
from omg_agent.drivers.desktop.atspi_bus import (
    ROOT_PATH,
    AtspiBus,
    Call,
    Ref,
    bus_address,
)
from omg_agent.drivers.desktop.atspi_elements import ROLES, WINDOW_ROLES, atspi_elements, windows
from omg_agent.drivers.desktop.atspi_tree import Node, read_app

log = logging.getLogger(__name__)

TEXT = "org.a11y.atspi.Text"
ACTION = "org.a11y.atspi.Action"
EDITABLE = "org.a11y.atspi.EditableText"
PRESS_ACTIONS = ("click", "press", "activate", "toggle", "open", "jump")
WANTED = frozenset(ROLES) | WINDOW_ROLES  # the roles whose extents are read
MAX_TEXT = 20000  # characters of one text object read into the element list


class AtspiTree:
    """The accessibility bus of an X display; ``None`` from :meth:`open` when there is no
    bus to find."""

    def __init__(self, bus: AtspiBus, screen: tuple[int, int] | None = None) -> None:
        self.bus = bus
        self.screen = screen
        self._apps: dict[int, str] = {}  # pid -> bus name
        self._refs: dict[int, Ref] = {}  # element id of the last read -> object
        self.nodes: list[Node] = []
        self.read_s = 0.0

    @classmethod
    def open(cls, display: str | None = None,
             screen: tuple[int, int] | None = None) -> AtspiTree | None:
        address = bus_address(display)
        if not address:
            return None
        try:
            return cls(AtspiBus(address), screen)
        except Exception as e:  # noqa: BLE001 - no bus: the driver reads with OCR
            log.info("no accessibility tree: %s", e)
            return None

    # -- reading ---------------------------------------------------------------------------
    def app_for_pid(self, pid: int) -> Ref | None:
        """The accessible root of the app running as ``pid`` (registry first, then every
        connection of the bus: some Qt builds never show up in the registry)."""
        name = self._apps.get(pid)
        if name is None:
            names = [r.bus for r in self.bus.apps()]
            names += [n for n in self.bus.names() if n.startswith(":") and n not in names]
            for n in names:
                p = self.bus.unix_pid(n)
                if p:
                    self._apps[p] = n
            name = self._apps.get(pid)
        return Ref(name, ROOT_PATH) if name else None

    def elements(self, pid: int, app: str) -> list[UIElement] | None:
        """The elements of the app running as ``pid``; None when it shows no tree."""
        t0 = time.perf_counter()
        root = self.app_for_pid(pid) if pid else None
        if root is None:
            return None
        nodes = read_app(self.bus, root, WANTED)
        if len(nodes) <= 1:
            self._apps.pop(pid, None)  # gone, or not answering: ask again next time
            return None
        texts = self._texts(nodes)
        elements, self._refs = atspi_elements(nodes, app, texts=texts, screen=self.screen)
        self.nodes = nodes
        self.read_s = time.perf_counter() - t0
        return elements or None

    def _texts(self, nodes: list[Node]) -> dict[Ref, str]:
        wanted = [n.ref for n in nodes if TEXT in n.interfaces and "showing" in n.states
                  and n.role in ("text", "entry", "password text", "paragraph",
                                 "document text", "terminal", "spin button", "label")
                  and n.role != "password text"]
        got = self.bus.calls([Call(r, TEXT, "GetText", "ii", (0, MAX_TEXT)) for r in wanted])
        return {r: str(t) for r, t in zip(wanted, got, strict=True) if t is not None}

    def text(self, ref: Ref) -> str | None:
        got = self.bus.call(Call(ref, TEXT, "GetText", "ii", (0, MAX_TEXT)))
        return None if got is None else str(got)

    def windows(self) -> list[tuple[str, str]]:
        """(role, name) of the showing windows of the app read last."""
        return windows(self.nodes)

    # -- acting ----------------------------------------------------------------------------
    def ref_of(self, element: UIElement) -> Ref | None:
        return self._refs.get(element.id)

    def press_element(self, element: UIElement) -> bool:
        ref = self.ref_of(element)
        if ref is None or not element.enabled or element.editable:
            return False  # a field is clicked, for the focus its own action (activate) does
            # not take: a GTK spin button takes its typed value only when it loses focus
        names: Any = self.bus.call(Call(ref, ACTION, "GetActions"))
        if not names:
            return False
        actions = [str(a[0]).lower() for a in names]
        index = next((actions.index(a) for a in PRESS_ACTIONS if a in actions), None)
        if index is None:
            return False
        return bool(self.bus.call(Call(ref, ACTION, "DoAction", "i", (index,))))

    def set_value(self, element: UIElement, text: str) -> bool:
        """A single-line field's text set and read back (False for anything else)."""
        ref = self.ref_of(element)
        node = next((n for n in self.nodes if n.ref == ref), None)
        if (ref is None or node is None or EDITABLE not in node.interfaces
                or "multi_line" in node.states or element.password):
            return False
        if not self.bus.call(Call(ref, EDITABLE, "SetTextContents", "s", (text,))):
            return False
        return self.text(ref) == text

    def close(self) -> None:
        self.bus.close()
