"""The vphone's screen power and keyguard: screen off, the lock screen, an optional PIN.

Screen off: the frame is black and carries no text; touches do nothing; POWER (26) or
WAKEUP (224) wakes it. Woken, a locked phone shows the keyguard (package
``com.android.systemui``): without a PIN a swipe up or MENU (82) unlocks it; with one, the
PIN field takes ``input text`` and ENTER or "OK" checks it ("Wrong PIN" otherwise). Apps
below are untouched while the keyguard is up. This is what an agent must recognise and get
past without guessing a PIN (:mod:`omg_agent.guards.system`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from omg_agent.vphone.ui.kit import Kit
from omg_agent.vphone.ui.view import View

if TYPE_CHECKING:
    from omg_agent.vphone.phone import VirtualPhone

SYSTEMUI = "com.android.systemui"
KEY_POWER, KEY_SLEEP, KEY_WAKEUP, KEY_MENU = 26, 223, 224, 82
KEY_ENTER, KEY_DEL = 66, 67


class Power:
    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self.awake = True
        self.locked = False
        self.pin = ""  # the lock's PIN; "" = swipe to unlock
        self.typed = ""
        self.message = ""
        self.unlocks = 0
        self.wrong_pins = 0

    # -- state ---------------------------------------------------------------------------
    @property
    def blocking(self) -> bool:
        return not self.awake or self.locked

    def package(self) -> str | None:
        return SYSTEMUI if self.blocking else None

    def frame_key(self) -> tuple:
        return (self.awake, self.locked, len(self.typed), self.message)

    def state(self) -> dict:
        return {"on": self.awake, "locked": self.locked, "pin": bool(self.pin),
                "unlocks": self.unlocks, "wrong_pins": self.wrong_pins}

    # -- transitions ---------------------------------------------------------------------
    def sleep(self, lock: bool = True) -> None:
        self.awake = False
        self.locked = self.locked or lock
        self.typed, self.message = "", ""
        self.phone.changed()

    def wake(self) -> None:
        self.awake = True
        self.phone.changed()

    def unlock(self) -> None:
        self.locked, self.typed, self.message = False, "", ""
        self.unlocks += 1
        self.phone.changed()

    def _check_pin(self) -> None:
        if self.typed == self.pin:
            self.unlock()
            return
        self.wrong_pins += 1
        self.typed, self.message = "", "Wrong PIN"
        self.phone.changed()

    # -- input ---------------------------------------------------------------------------
    def key(self, code: int) -> bool:
        """Handle a key the power state owns; True when it was consumed."""
        if code == KEY_POWER:
            self.sleep() if self.awake else self.wake()
            return True
        if code == KEY_SLEEP:
            self.sleep()
            return True
        if code == KEY_WAKEUP:
            if not self.awake:
                self.wake()
            return True
        if not self.blocking:
            return False
        if self.awake and self.locked:
            if code == KEY_MENU and not self.pin:
                self.unlock()
            elif code == KEY_ENTER and self.pin:
                self._check_pin()
            elif code == KEY_DEL and self.pin:
                self.typed = self.typed[:-1]
                self.phone.changed()
        return True  # nothing reaches the app under the keyguard

    def text(self, text: str) -> None:
        if self.awake and self.locked and self.pin:
            self.typed += text
            self.phone.changed()

    def _swiped(self, delta: int) -> None:
        if delta > 0 and not self.pin:
            self.unlock()

    # -- drawing -------------------------------------------------------------------------
    def build(self, kit: Kit) -> View:
        root = kit.root(bg=(0, 0, 0))
        root.resource_id = f"{SYSTEMUI}:id/notification_panel" if self.awake else ""
        if not self.awake:
            root.style["screen_off"] = True
            return root
        p = kit.profile
        white = (255, 255, 255)
        top = p.status_bar_height + kit.dp(120)
        root.add(kit.text((0, top, p.width, top + kit.dp(64)), "12:00", size=48, color=white,
                          align="center", resource_id=f"{SYSTEMUI}:id/clock"))
        if not self.pin:
            area = kit.view("android.widget.FrameLayout", (0, top, p.width, p.height),
                            scrollable=True, on_scroll=self._swiped,
                            resource_id=f"{SYSTEMUI}:id/keyguard_host")
            area.add(kit.text((0, p.height - kit.dp(160), p.width, p.height - kit.dp(120)),
                              "Swipe up to unlock", color=white, align="center",
                              resource_id=f"{SYSTEMUI}:id/keyguard_indication_text"))
            root.add(area)
            return root
        y = top + kit.dp(120)
        root.add(kit.text((0, y, p.width, y + kit.dp(32)), self.message or "Enter PIN",
                          color=white, align="center",
                          resource_id=f"{SYSTEMUI}:id/keyguard_message_area"))
        y += kit.dp(48)
        entry = kit.view("android.widget.EditText", kit.row(y, 56, 48), kind="edit",
                         text="•" * len(self.typed), password=True, focused=True,
                         focusable=True, clickable=True, on_click=lambda: None,
                         resource_id=f"{SYSTEMUI}:id/pinEntry",
                         style={"size": kit.dp(20), "hint": not self.typed})
        root.add(entry)
        y += kit.dp(80)
        root.add(kit.button(kit.row(y, 48, 96), "OK", self._check_pin,
                            resource_id=f"{SYSTEMUI}:id/key_enter"))
        return root
