"""The notification shade: what a swipe down from the top edge pulls over any app.

Apps post notifications (``post``); the shade (package ``com.android.systemui``, Android's
resource ids) lists them under the quick settings tiles, Wi-Fi and Bluetooth, which are the
Settings app's own switches. Tapping a notification collapses the shade and opens its app
(the app's ``open_notification(extra)`` takes the user where the notification points); a
sideways swipe on one dismisses it; "Clear all" dismisses every one. A swipe up, BACK or
HOME collapses the shade; ``cmd statusbar expand-notifications`` / ``collapse`` do too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from omg_agent.vphone.ui.kit import DIVIDER, MUTED, ON_SURFACE, PRIMARY, Kit
from omg_agent.vphone.ui.view import Bounds, View, contains

if TYPE_CHECKING:
    from omg_agent.vphone.phone import VirtualPhone

SYSTEMUI = "com.android.systemui"
RID = f"{SYSTEMUI}:id/"
SETTINGS = "com.android.settings"
PULL_DP = 80  # how far a swipe must travel to pull or push the shade
TILES = (("wifi", "Wi-Fi", "WLAN"), ("bluetooth", "Bluetooth", "蓝牙"))
SSID = "OMG-Home"  # the network a Wi-Fi tile names while connected, as Android's does


def _tile_state(attr: str, on: bool, zh: bool) -> str:
    if on:
        return SSID if attr == "wifi" else ("开启" if zh else "On")
    return "关闭" if zh else "Off"


@dataclass
class Notification:
    id: int
    package: str
    title: str
    text: str
    extra: dict = field(default_factory=dict)


class Shade:
    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self.open = False
        self.items: list[Notification] = []
        self.dismissed: list[dict] = []
        self.opened: list[dict] = []
        self._next = 1
        self._rows: list[tuple[Bounds, int]] = []

    # -- posting and dismissing ----------------------------------------------------------
    def post(self, package: str, title: str, text: str, extra: dict | None = None) -> int:
        note = Notification(self._next, package, title, text, dict(extra or {}))
        self._next += 1
        self.items.insert(0, note)  # newest first
        self.phone.changed()
        return note.id

    def _record(self, note: Notification) -> dict:
        return {"id": note.id, "package": note.package, "title": note.title, "text": note.text}

    def dismiss(self, nid: int) -> None:
        for note in list(self.items):
            if note.id == nid:
                self.items.remove(note)
                self.dismissed.append(self._record(note))
        self.phone.changed()

    def clear_all(self) -> None:
        for note in list(self.items):
            self.dismiss(note.id)

    def _open_note(self, nid: int) -> None:
        note = next((n for n in self.items if n.id == nid), None)
        if note is None:
            return
        self.items.remove(note)  # auto-cancel, as most apps post them
        self.opened.append(self._record(note))
        self.collapse()
        if self.phone.start_activity(note.package):
            handler = getattr(self.phone.apps[note.package], "open_notification", None)
            if callable(handler):
                handler(note.extra)
        self.phone.changed()

    # -- expanding -----------------------------------------------------------------------
    def expand(self) -> None:
        self.phone.overlay.dismiss()
        self.open = True
        self.phone.changed()

    def collapse(self) -> None:
        if self.open:
            self.open = False
            self.phone.changed()

    def package(self) -> str | None:
        return SYSTEMUI if self.open else None

    def swipe(self, x1: int, y1: int, x2: int, y2: int) -> bool:
        """Handle a swipe the shade owns (a pull from the top edge, or any swipe on the open
        shade); False lets the app take it."""
        pull = self.phone.profile.px(PULL_DP)
        if not self.open:
            if y1 <= self.phone.profile.status_bar_height and y2 - y1 >= pull:
                self.expand()
                return True
            return False
        if abs(x2 - x1) > abs(y2 - y1) and abs(x2 - x1) >= pull // 2:
            row = next((nid for b, nid in self._rows if contains(b, x1, y1)), None)
            if row is not None:
                self.dismiss(row)
        elif y1 - y2 >= pull:
            self.collapse()
        return True

    # -- quick settings ------------------------------------------------------------------
    def _tile_on(self, attr: str) -> bool:
        return bool(getattr(self.phone.apps[SETTINGS], attr, False))

    def _toggle(self, attr: str) -> None:
        settings = self.phone.apps[SETTINGS]
        on = not self._tile_on(attr)
        setattr(settings, attr, on)
        self.phone.settings["global"][f"{attr}_on"] = "1" if on else "0"
        self.phone.changed()

    # -- drawing -------------------------------------------------------------------------
    def build(self, kit: Kit) -> View | None:
        if not self.open:
            return None
        p = kit.profile
        zh = self.phone.locale().startswith("zh")
        panel = kit.view("android.widget.FrameLayout", (0, 0, p.width, p.height), modal=True,
                         resource_id=RID + "notification_panel",
                         style={"bg": (236, 238, 244)})
        top, m = p.status_bar_height + kit.dp(8), kit.dp(12)
        tw = (p.width - 3 * m) // 2
        for i, (attr, en, cn) in enumerate(TILES):
            on = self._tile_on(attr)
            left = m + i * (tw + m)
            tile = kit.view("android.widget.LinearLayout", (left, top, left + tw,
                                                            top + kit.dp(64)),
                            desc=cn if zh else en, checkable=True, checked=on, clickable=True,
                            focusable=True, on_click=partial(self._toggle, attr),
                            resource_id=RID + "qs_tile",
                            style={"bg": PRIMARY if on else (255, 255, 255),
                                   "radius": kit.dp(20)})
            fg = (255, 255, 255) if on else ON_SURFACE
            tile.add(kit.text((left + kit.dp(16), top + kit.dp(6), left + tw - kit.dp(8),
                               top + kit.dp(34)), cn if zh else en, size=15, bold=True,
                              color=fg, resource_id=RID + "tile_label"))
            tile.add(kit.text((left + kit.dp(16), top + kit.dp(34), left + tw - kit.dp(8),
                               top + kit.dp(58)), _tile_state(attr, on, zh), size=13, color=fg,
                              resource_id=RID + "app_label"))
            panel.add(tile)
        self._notifications(kit, panel, top + kit.dp(80), zh)
        return panel

    def _notifications(self, kit: Kit, panel: View, top: int, zh: bool) -> None:
        p, m = kit.profile, kit.dp(12)
        self._rows = []
        if not self.items:
            panel.add(kit.text((0, top + kit.dp(24), p.width, top + kit.dp(56)),
                               "没有通知" if zh else "No notifications", color=MUTED,
                               align="center", resource_id=RID + "no_notifications"))
            return
        h = kit.dp(88)
        for i, note in enumerate(self.items[:6]):
            y = top + i * (h + kit.dp(4))
            b = (m, y, p.width - m, y + h)
            self._rows.append((b, note.id))
            app = self.phone.apps.get(note.package)
            label = app.title() if app else note.package
            row = kit.view("android.widget.FrameLayout", b, clickable=True, focusable=True,
                           desc=f"{label} notification: {note.title}",
                           on_click=partial(self._open_note, note.id),
                           resource_id=RID + "expandableNotificationRow",
                           style={"bg": (255, 255, 255), "radius": kit.dp(16),
                                  "divider": DIVIDER})
            pad = kit.dp(16)
            row.add(kit.text((m + pad, y + kit.dp(6), p.width - m - pad, y + kit.dp(28)),
                             label, size=13, color=MUTED,
                             resource_id=RID + "app_name_text"))
            row.add(kit.text((m + pad, y + kit.dp(28), p.width - m - pad, y + kit.dp(54)),
                             note.title, size=16, bold=True, resource_id="android:id/title"))
            row.add(kit.text((m + pad, y + kit.dp(54), p.width - m - pad, y + kit.dp(80)),
                             note.text, size=14, color=MUTED, resource_id="android:id/text"))
            panel.add(row)
        y = top + min(len(self.items), 6) * (h + kit.dp(4)) + kit.dp(8)
        panel.add(kit.button((p.width - kit.dp(140), y, p.width - m, y + kit.dp(44)),
                             "全部清除" if zh else "Clear all", self.clear_all,
                             color=(90, 92, 100), resource_id=RID + "dismiss_text"))

    def state(self) -> dict:
        return {"open": self.open, "notifications": [self._record(n) for n in self.items],
                "dismissed": [dict(d) for d in self.dismissed],
                "opened": [dict(o) for o in self.opened]}
