"""Input events on the VirtualPhone: taps, long presses, swipes, keys and text, turned
into app state changes, and the host-side helpers that find and tap a view.

:class:`InputEvents` is mixed into :class:`~omg_agent.vphone.phone.VirtualPhone`, which
owns the state declared here; every change holds ``self.lock`` like the rest of the phone.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from omg_agent.vphone.focus import ACTIVATES, MOVES, KeyFocus
from omg_agent.vphone.ui.view import View, find, hit_test, is_blocked

if TYPE_CHECKING:
    from omg_agent.vphone.apps.base import App
    from omg_agent.vphone.display import Frame
    from omg_agent.vphone.editing import Editing
    from omg_agent.vphone.logbuf import Processes
    from omg_agent.vphone.motion import Motion
    from omg_agent.vphone.power import Power
    from omg_agent.vphone.system import SystemOverlay

log = logging.getLogger(__name__)

KEY_HOME, KEY_BACK, KEY_ENTER, KEY_DEL, KEY_APP_SWITCH = 3, 4, 66, 67, 187
KEY_ESCAPE = 111
TAP_SLOP = 24  # px a swipe may travel and still count as a tap


class InputEvents:
    lock: threading.RLock
    procs: Processes
    foreground: str
    editing: Editing
    motion: Motion
    power: Power
    overlay: SystemOverlay
    keyfocus: KeyFocus

    # what the phone provides (see VirtualPhone)
    @property
    def app(self) -> App:
        raise NotImplementedError

    def _frame(self) -> Frame:
        raise NotImplementedError

    def changed(self) -> None:
        raise NotImplementedError

    def go_home(self) -> None:
        raise NotImplementedError

    def tap(self, x: int, y: int) -> None:
        with self.lock:
            root = self._frame().root
            hit = hit_test(root, x, y, lambda v: v.enabled and (
                v.clickable or v.on_touch is not None or v.field_key is not None))
            log.debug("tap %s,%s -> %s %r", x, y, hit.cls if hit else None,
                      hit.text if hit else "")
            self.procs.touched(self.foreground, self.app.activity(), "pointer")
            self.editing.take()
            if self.keyfocus.at is not None:  # a touch: touch mode, no keyboard focus
                self.keyfocus.clear()
                self.changed()
            if hit is None or is_blocked(hit):
                return
            if hit.field_key is not None:
                self.app.focus = hit.field_key
            elif hit.on_touch is not None:
                hit.on_touch(x, y)
            elif hit.on_click is not None:
                hit.on_click()
            self.changed()

    def long_press(self, x: int, y: int, duration_ms: int = 600, *, hold: bool = True) -> None:
        """``hold``: spend ``duration_ms`` first (False when that time already passed, as
        for a gesture replayed from separate down/up events)."""
        if hold:
            self.motion.hold(duration_ms / 1000)
        with self.lock:
            self.procs.touched(self.foreground, self.app.activity(), "pointer")
            hit = hit_test(self._frame().root, x, y,
                           lambda v: v.enabled and (v.long_clickable or v.clickable))
            if hit is None or is_blocked(hit):
                return
            if hit.on_long_click is not None:
                hit.on_long_click()
            elif hit.field_key is not None:
                self.app.focus = hit.field_key
            self.changed()

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300, *,
              hold: bool = True) -> None:
        """With motion on (and ``hold``), the swipe lasts ``duration_ms`` and the content
        follows the finger step by step."""
        if abs(x2 - x1) <= TAP_SLOP and abs(y2 - y1) <= TAP_SLOP:
            if duration_ms >= 500:
                self.long_press(x1, y1, duration_ms, hold=hold)
            else:
                self.motion.hold(duration_ms / 1000 if hold else 0)
                self.tap(x1, y1)
            return
        if abs(x2 - x1) > abs(y2 - y1) and self._swipe_sideways(x1, y1, x2 - x1):
            self.motion.hold(duration_ms / 1000 if hold else 0)
            return
        with self.lock:
            self.procs.touched(self.foreground, self.app.activity(), "pointer")
            hit = hit_test(self._frame().root, x1, y1, lambda v: v.scrollable)
            scroll = None if hit is None or is_blocked(hit) else hit.on_scroll
        steps = self.motion.steps(duration_ms) if hold else 1
        done = 0
        for i in range(1, steps + 1):
            if steps > 1:
                self.motion.hold(duration_ms / 1000 / steps)
            # Content follows the finger: dragging up (y2 < y1) reveals what is below.
            part = (y1 - y2) * i // steps - done
            done += part
            if scroll is not None and part:
                with self.lock:
                    scroll(part)
                    self.changed()

    def _swipe_sideways(self, x: int, y: int, dx: int) -> bool:
        """A horizontal swipe starting on a view that takes one (swipe-to-delete rows):
        it gets the distance; False when no such view is under the finger."""
        with self.lock:
            hit = hit_test(self._frame().root, x, y, lambda v: v.on_swipe is not None)
            if hit is None or is_blocked(hit) or hit.on_swipe is None:
                return False
            self.procs.touched(self.foreground, self.app.activity(), "pointer")
            hit.on_swipe(dx)
            self.changed()
            return True

    def drag(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 600, *,
             hold: bool = True) -> None:
        self.swipe(x1, y1, x2, y2, max(duration_ms, 300), hold=hold)

    def key(self, keycode: int) -> None:
        with self.lock:
            app = self.app
            self.procs.touched(self.foreground, app.activity(), "key")
            selected = self.editing.take()
            if self.power.key(keycode) or self._focus_key(keycode):
                self.changed()
            elif keycode in (KEY_HOME, KEY_APP_SWITCH):
                self.overlay.dismiss()
                self.go_home()
            elif keycode in (KEY_BACK, KEY_ESCAPE):  # ESC falls back to BACK (Generic.kcm)
                if not self.overlay.back() and not app.back():
                    self.go_home()
            elif keycode == KEY_DEL and app.focus is not None:
                app.set_field(app.focus, "" if selected else app.field(app.focus)[:-1])
            elif (keycode == KEY_ENTER and app.focus is not None
                  and not app.on_enter(app.focus) and app.multiline(app.focus)):
                app.set_field(app.focus, app.field(app.focus) + "\n")
            self.changed()

    def _focus_key(self, keycode: int) -> bool:
        """Tab and the D-pad move keyboard focus; ENTER, DPAD_CENTER and SPACE activate a
        focused control that is not an edit field, as a tap would (:mod:`.focus`)."""
        root = self._frame().root
        if keycode in MOVES:
            target = self.keyfocus.move(root, keycode)
            self.app.focus = target.field_key if target is not None else None
            return True
        view = self.keyfocus.current(root) if keycode in ACTIVATES else None
        if view is None or view.field_key is not None:
            return False
        if view.on_click is not None:
            view.on_click()
        elif view.on_touch is not None:
            view.on_touch(*view.center)
        return True

    def input_text(self, text: str) -> None:
        """Commit ``text`` into the focused field (nothing happens if no field has focus)."""
        with self.lock:
            app = self.app
            if self.power.blocking:
                self.power.text(text)
                return
            if app.focus is None:
                log.debug("input_text with no focused field dropped")
                return
            if not app.multiline(app.focus):
                text = text.replace("\n", " ")
            kept = "" if self.editing.take() else app.field(app.focus)
            app.set_field(app.focus, kept + text)
            self.changed()

    def key_combo(self, keycodes: list[int]) -> None:
        """Keys pressed together (``input keycombination``): Ctrl+A/C/X/V edit the focused
        field (see editing.py); other combinations act as their last key."""
        with self.lock:
            if self.editing.combo(keycodes):
                self.changed()
                return
        self.key(keycodes[-1])

    def clear_text(self) -> None:
        with self.lock:
            if self.app.focus is not None:
                self.app.set_field(self.app.focus, "")
                self.changed()

    def find_view(self, *, text: str | None = None, resource_id: str | None = None,
                  desc: str | None = None) -> View | None:
        """The first view of the current screen matching every given field (host side)."""
        def match(v: View) -> bool:
            return ((text is None or v.text == text)
                    and (resource_id is None or v.resource_id == resource_id)
                    and (desc is None or v.desc == desc))

        with self.lock:
            return find(self._frame().root, match)

    def tap_view(self, **how: str | None) -> View:
        """Tap the centre of the view ``find_view(**how)`` finds; LookupError if none."""
        view = self.find_view(**how)
        if view is None:
            raise LookupError(f"no view matching {how} on {self.foreground}")
        self.tap(*view.center)
        return view

    def keyboard_shown(self) -> bool:
        """The soft keyboard is up: an edit field of the foreground app took focus and no
        BACK (or ESC) has hidden it since."""
        with self.lock:
            return self.app.ime_shown and not self.power.blocking \
                and self.overlay.package() is None

    def focused_view(self) -> View | None:
        with self.lock:
            return find(self._frame().root, lambda v: v.focused)
