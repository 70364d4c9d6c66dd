"""The system surfaces over apps: permission dialogs, the notification shade, the share sheet.

:class:`SystemSurfaces` is what the phone asks for one window over the foreground app (the
shade first, then the chooser, then a permission dialog: the one the user acts on), which
package is in front, where BACK goes, and what a swipe from the top edge does; and it is the
port apps reach through ``AppEnv.system`` to ask for a permission, post a notification or
share text. Each surface keeps its own record, read from the host in
``phone.state()["system"]``. :func:`keyboard` draws the soft keyboard for a screen that
lays itself out around it (adjustResize; see :mod:`.apps.browser_forms`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from omg_agent.vphone.system_permissions import CONTROLLER, Permissions
from omg_agent.vphone.system_shade import SYSTEMUI, Shade
from omg_agent.vphone.system_share import CHOOSER_ACTIVITY, RESOLVER, ShareSheet
from omg_agent.vphone.ui.kit import Kit
from omg_agent.vphone.ui.view import View

if TYPE_CHECKING:
    from omg_agent.vphone.phone import VirtualPhone

IME_PACKAGE = "com.android.inputmethod.latin"
KEYBOARD_DP = 260  # the soft keyboard's height
KEY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


class SystemSurfaces:
    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self.permissions = Permissions(phone)
        self.shade = Shade(phone)
        self.share_sheet = ShareSheet(phone)

    # -- the port apps use (AppEnv.system) -----------------------------------------------
    def request_permission(self, package: str, permission: str,
                           on_result: Callable[[bool], None]) -> None:
        self.permissions.request(package, permission, on_result)

    def has_permission(self, package: str, permission: str) -> bool:
        return self.permissions.granted(package, permission)

    def post_notification(self, package: str, title: str, text: str,
                          extra: dict | None = None) -> int:
        return self.shade.post(package, title, text, extra)

    def share(self, source: str, subject: str, text: str) -> None:
        self.share_sheet.share(source, subject, text)

    def open_permission_settings(self, package: str, permission: str) -> None:
        self.permissions.open_page(package, permission)

    # -- what the phone asks -------------------------------------------------------------
    def package(self) -> str | None:
        return (self.shade.package() or self.share_sheet.package()
                or self.permissions.package())

    def activity(self) -> str:
        return {SYSTEMUI: ".NotificationShade", RESOLVER: CHOOSER_ACTIVITY,
                CONTROLLER: self.permissions.activity()}.get(self.package() or "", "")

    def build(self, kit_for: Callable[[str], Kit]) -> View | None:
        for surface, pkg in ((self.shade, SYSTEMUI), (self.share_sheet, RESOLVER),
                             (self.permissions, CONTROLLER)):
            view = surface.build(kit_for(pkg))
            if view is not None:
                return view
        return None

    def back(self) -> bool:
        if self.shade.open:
            self.shade.collapse()
            return True
        return self.share_sheet.back() or self.permissions.back()

    def home(self) -> None:
        self.shade.collapse()
        self.share_sheet.close()

    def swipe(self, x1: int, y1: int, x2: int, y2: int) -> bool:
        if self.phone.power.blocking:
            return False
        return self.shade.swipe(x1, y1, x2, y2)

    def app_stopped(self, package: str) -> None:
        self.permissions.forget_once(package)
        if self.permissions.pending and self.permissions.pending.package == package:
            self.permissions.pending = None
        if self.permissions.page and self.permissions.page[0] == package:
            self.permissions.page = None

    def state(self) -> dict:
        return {"permissions": self.permissions.state(), "shade": self.shade.state(),
                "share": self.share_sheet.state()}


def keyboard(kit: Kit) -> View:
    """The soft keyboard's window at the bottom of the screen: pixels, one node in the dump
    (the IME's keys are not part of the app's tree)."""
    p = kit.profile
    bottom = p.height - p.nav_bar_height
    top = bottom - kit.dp(KEYBOARD_DP)
    ime = View(cls="android.inputmethodservice.SoftInputWindow", bounds=(0, top, p.width,
                                                                        bottom),
               package=IME_PACKAGE, opaque_to_tree=True,
               resource_id=f"{IME_PACKAGE}:id/keyboard_view", style={"bg": (222, 225, 232)})
    kh, m = kit.dp(50), kit.dp(4)
    for r, keys in enumerate(KEY_ROWS):
        kw = (p.width - m) // 10
        x0 = (p.width - kw * len(keys)) // 2
        y = top + kit.dp(12) + r * (kh + kit.dp(8))
        for i, ch in enumerate(keys):
            x = x0 + i * kw
            ime.add(View(cls="android.view.View", bounds=(x + m, y, x + kw - m, y + kh),
                         package=IME_PACKAGE, kind="text", text=ch,
                         style={"bg": (255, 255, 255), "radius": kit.dp(6),
                                "size": kit.dp(18), "align": "center",
                                "fg": (28, 28, 32)}))
    y = top + kit.dp(12) + 3 * (kh + kit.dp(8))
    ime.add(View(cls="android.view.View", bounds=(kit.dp(80), y, p.width - kit.dp(80),
                                                 y + kh), package=IME_PACKAGE,
                 style={"bg": (255, 255, 255), "radius": kit.dp(6)}))
    return ime


def keyboard_top(kit: Kit) -> int:
    """The y where the soft keyboard starts: an adjustResize window ends there."""
    return kit.profile.height - kit.profile.nav_bar_height - kit.dp(KEYBOARD_DP)
