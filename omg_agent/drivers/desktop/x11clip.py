"""The X11 clipboard as a selection owner: how the X11 backend types text keys cannot.

X has no clipboard store: the program that *owns* the ``CLIPBOARD`` selection answers each
paste (a ``SelectionRequest``) by writing the text into the asking window's property. So
:class:`ClipboardOwner` keeps its own connection and a hidden window, owns the selection
with the text to paste, and answers requests on a thread — ``TARGETS``, ``UTF8_STRING``,
``STRING`` and ``TEXT`` — until another program takes the selection or the owner closes.
:meth:`ClipboardOwner.offer` sets the text; :meth:`ClipboardOwner.wait_served` tells the
backend that the paste it triggered has read it (so the next action cannot overtake it).
Only the length of the text is ever logged.
"""

from __future__ import annotations

import logging
import threading

import Xlib.threaded  # noqa: F401  (locks: the serving thread shares nothing else)
from Xlib import X, Xatom, display
from Xlib.protocol import event

log = logging.getLogger(__name__)


class ClipboardOwner:
    def __init__(self, name: str) -> None:
        self._d = display.Display(name)
        screen = self._d.screen()
        self._window = screen.root.create_window(0, 0, 1, 1, 0, screen.root_depth,
                                                 event_mask=X.PropertyChangeMask)
        atom = self._d.intern_atom
        self._clipboard = atom("CLIPBOARD")
        self._targets, self._utf8 = atom("TARGETS"), atom("UTF8_STRING")
        self._text_atoms = {self._utf8, Xatom.STRING, atom("TEXT")}
        self._data = b""
        self._served = threading.Event()
        self._lock = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=self._serve, name=f"x11-clipboard{name}",
                                        daemon=True)
        self._d.flush()
        self._thread.start()

    def offer(self, text: str) -> None:
        """Own the clipboard with ``text`` (the next paste anywhere reads it)."""
        with self._lock:
            self._data = text.encode()
            self._served.clear()
            self._window.set_selection_owner(self._clipboard, X.CurrentTime)
            # a round trip: the server has made us the owner before the paste key (sent on
            # another connection, in no fixed order with this one) reaches anybody
            owner = self._d.get_selection_owner(self._clipboard)
        if owner != self._window:
            raise OSError("could not take the X clipboard")
        log.debug("clipboard: offering %d chars", len(text))

    def wait_served(self, timeout: float) -> bool:
        """Whether a program read the offered text within ``timeout`` seconds."""
        return self._served.wait(timeout)

    def _serve(self) -> None:
        while not self._closed:
            try:
                e = self._d.next_event()
            except Exception:  # the connection closed under us: close() was called
                return
            if e.type == X.SelectionRequest:
                self._answer(e)
            elif e.type == X.SelectionClear:
                log.debug("clipboard: another program owns it now")

    def _answer(self, e: event.SelectionRequest) -> None:
        prop = e.property or e.target
        with self._lock:
            if e.target == self._targets:
                e.requestor.change_property(prop, Xatom.ATOM, 32,
                                            [self._targets, *self._text_atoms])
            elif e.target in self._text_atoms:
                kind = self._utf8 if e.target != Xatom.STRING else Xatom.STRING
                e.requestor.change_property(prop, kind, 8, self._data)
                self._served.set()
            else:
                prop = X.NONE
            reply = event.SelectionNotify(time=e.time, requestor=e.requestor,
                                          selection=e.selection, target=e.target,
                                          property=prop)
            e.requestor.send_event(reply, event_mask=0)
            self._d.flush()

    def close(self) -> None:
        self._closed = True
        try:
            self._window.destroy()
            self._d.close()
        except Exception as exc:  # already gone with the X server
            log.debug("clipboard close: %s", exc)
