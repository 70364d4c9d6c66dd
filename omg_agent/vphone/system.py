"""System dialogs the phone itself shows over apps: "isn't responding" (ANR) and
"keeps stopping" (crash). They belong to package ``android``, block touches to the app
beneath, and are what an agent must recognise and get past."""

from __future__ import annotations

from typing import TYPE_CHECKING

from omg_agent.vphone.ui.kit import Kit
from omg_agent.vphone.ui.view import View

if TYPE_CHECKING:
    from omg_agent.vphone.phone import VirtualPhone


class SystemOverlay:
    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self.kind: str | None = None  # "anr" | "crash"
        self.target: str | None = None

    def _label(self) -> str:
        app = self.phone.apps.get(self.target or "")
        return app.title() if app else (self.target or "App")

    def anr(self, package: str) -> None:
        self.kind, self.target = "anr", package
        self.phone.changed()

    def crash(self, package: str) -> None:
        self.phone.force_stop(package)
        self.kind, self.target = "crash", package
        self.phone.changed()

    def dismiss(self) -> None:
        if self.kind is not None:
            self.kind = self.target = None
            self.phone.changed()

    def back(self) -> bool:
        """BACK on a system dialog just dismisses it (like Wait)."""
        if self.kind is None:
            return False
        self.dismiss()
        return True

    def package(self) -> str | None:
        return "android" if self.kind is not None else None

    def title(self) -> str | None:
        if self.kind == "anr":
            return f"{self._label()} isn't responding"
        if self.kind == "crash":
            return f"{self._label()} keeps stopping"
        return None

    def _close_app(self) -> None:
        target = self.target
        self.dismiss()
        if target:
            self.phone.force_stop(target)

    def build(self, kit: Kit) -> View | None:
        title = self.title()
        if title is None:
            return None
        if self.kind == "anr":
            return kit.dialog(title, "Do you want to close it?",
                              [("Close app", self._close_app), ("Wait", self.dismiss)])
        return kit.dialog(title, "Close the app and try again.",
                          [("App info", self.dismiss), ("Close app", self._close_app)])
