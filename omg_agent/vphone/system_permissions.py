"""Runtime permissions: Android's grant dialog and the record of what each app may use.

An app asks with ``request(package, permission, on_result)``. Granted already: the answer
comes at once. Denied twice ("don't ask again", as Android does after the second denial): it
comes at once as a refusal and the app shows its rationale. Otherwise the permission
controller's dialog (package ``com.android.permissioncontroller``, its own window over the
app, with Android 14's buttons and resource ids) waits for the user. It shows only while the
asking app is in front, as the dialog is an activity in that app's task. BACK on it refuses
without counting as a denial. ``pm grant`` / ``pm revoke`` and ``dumpsys package`` read and
write the same record (:mod:`.shell.commands.pm_cmds`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from omg_agent.vphone.ui.kit import ON_SURFACE, PRIMARY, Kit
from omg_agent.vphone.ui.view import View

if TYPE_CHECKING:
    from omg_agent.vphone.phone import VirtualPhone

CONTROLLER = "com.android.permissioncontroller"
GRANT_ACTIVITY = ".permission.ui.GrantPermissionsActivity"
MANAGE_ACTIVITY = ".permission.ui.AppPermissionActivity"
# short name -> (Android permission, what the dialog says it allows: en, zh)
PERMISSIONS: dict[str, tuple[str, str, str]] = {
    "microphone": ("android.permission.RECORD_AUDIO", "record audio", "录制音频"),
    "camera": ("android.permission.CAMERA", "take pictures and record video", "拍摄照片和录制视频"),
    "location": ("android.permission.ACCESS_FINE_LOCATION", "access this device's location",
                 "获取此设备的位置信息"),
    "notifications": ("android.permission.POST_NOTIFICATIONS", "send you notifications",
                      "向您发送通知"),
}
ICONS = {"microphone": "🎤", "camera": "📷", "location": "📍", "notifications": "🔔"}
BY_NAME = {full: short for short, (full, _, _) in PERMISSIONS.items()}
ASK_LIMIT = 2  # denials after which Android stops showing the dialog


def permission_name(text: str) -> str | None:
    """The short name of ``text`` (short or ``android.permission.X``), or None."""
    return text if text in PERMISSIONS else BY_NAME.get(text)


@dataclass
class Request:
    package: str
    permission: str
    on_result: Callable[[bool], None]


class Permissions:
    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self.grants: dict[str, dict[str, str]] = {}  # package -> permission -> mode
        self.denials: dict[tuple[str, str], int] = {}
        self.pending: Request | None = None
        self.answers: list[dict[str, str]] = []  # what the user chose, in order
        self.page: tuple[str, str] | None = None  # (package, permission) of the settings page

    # -- the record ----------------------------------------------------------------------
    def granted(self, package: str, permission: str) -> bool:
        return self.grants.get(package, {}).get(permission) in ("foreground", "once", "granted")

    def set_mode(self, package: str, permission: str, mode: str) -> None:
        """``mode``: foreground / once / granted (pm grant) / denied."""
        self.grants.setdefault(package, {})[permission] = mode
        if mode != "denied":
            self.denials.pop((package, permission), None)
        self.phone.changed()

    def block(self, package: str, permission: str) -> None:
        """Denied with "don't ask again" (a task's starting state)."""
        self.set_mode(package, permission, "denied")
        self.denials[(package, permission)] = ASK_LIMIT

    def forget_once(self, package: str) -> None:
        """An app stopped: its "Only this time" grants end, as on Android."""
        modes = self.grants.get(package, {})
        for perm, mode in list(modes.items()):
            if mode == "once":
                del modes[perm]

    # -- the dialog ----------------------------------------------------------------------
    def request(self, package: str, permission: str, on_result: Callable[[bool], None]) -> None:
        if permission not in PERMISSIONS:
            raise ValueError(f"unknown permission {permission}; choose from: "
                             + ", ".join(PERMISSIONS))
        if self.granted(package, permission):
            on_result(True)
        elif self.denials.get((package, permission), 0) >= ASK_LIMIT:
            on_result(False)
        else:
            self.pending = Request(package, permission, on_result)
            self.phone.changed()

    def showing(self) -> bool:
        return self.pending is not None and self.pending.package == self.phone.foreground

    def page_showing(self) -> bool:
        return self.page is not None and self.page[0] == self.phone.foreground

    def package(self) -> str | None:
        return CONTROLLER if self.showing() or self.page_showing() else None

    def activity(self) -> str:
        return GRANT_ACTIVITY if self.showing() else MANAGE_ACTIVITY

    # -- the app's permission page (what an app's "Open settings" leads to) ----------------
    def open_page(self, package: str, permission: str) -> None:
        self.page = (package, permission)
        self.phone.changed()

    def _choose(self, mode: str) -> None:
        if self.page is None:
            return
        package, permission = self.page
        if mode == "ask":  # "Ask every time": no grant, the dialog shows again
            self.grants.get(package, {}).pop(permission, None)
            self.denials.pop((package, permission), None)
            self.phone.changed()
        else:
            self.set_mode(package, permission, mode)
        self.answers.append({"package": package, "permission": permission,
                             "answer": f"settings:{mode}"})

    def _answer(self, mode: str) -> None:
        req = self.pending
        if req is None:
            return
        self.pending = None
        self.answers.append({"package": req.package, "permission": req.permission,
                             "answer": mode})
        if mode == "dismissed":
            req.on_result(False)
        elif mode == "denied":
            key = (req.package, req.permission)
            self.denials[key] = self.denials.get(key, 0) + 1
            self.grants.setdefault(req.package, {})[req.permission] = "denied"
            req.on_result(False)
        else:
            self.set_mode(req.package, req.permission, mode)
            req.on_result(True)
        self.phone.changed()

    def back(self) -> bool:
        if self.showing():
            self._answer("dismissed")
            return True
        if self.page_showing():
            self.page = None
            self.phone.changed()
            return True
        return False

    def build(self, kit: Kit) -> View | None:
        req = self.pending
        if self.page_showing():
            return build_page(self, kit)
        if req is None or not self.showing():
            return None
        app = self.phone.apps[req.package]
        zh = self.phone.locale().startswith("zh")
        _, what, what_zh = PERMISSIONS[req.permission]
        message = (f"要允许“{app.title()}”{what_zh}吗？" if zh
                   else f"Allow {app.title()} to {what}?")
        if req.permission == "notifications":
            buttons = [("permission_allow_button", "允许" if zh else "Allow", "granted")]
        else:
            buttons = [("permission_allow_foreground_only_button",
                        "仅在使用该应用时允许" if zh else "While using the app", "foreground"),
                       ("permission_allow_one_time_button",
                        "仅限这一次" if zh else "Only this time", "once")]
        buttons.append(("permission_deny_button", "不允许" if zh else "Don't allow", "denied"))
        return self._dialog(kit, message, buttons, ICONS[req.permission])

    def _dialog(self, kit: Kit, message: str, buttons: list[tuple[str, str, str]],
                icon: str) -> View:
        p = kit.profile
        scrim = kit.view("android.widget.FrameLayout", (0, 0, p.width, p.height), kind="scrim",
                         modal=True, style={"bg": (0, 0, 0, 110)})
        rid = f"{CONTROLLER}:id/"
        m, bh = kit.dp(24), kit.dp(52)
        h = kit.dp(150) + len(buttons) * (bh + kit.dp(8))
        left, right = m, p.width - m
        top = (p.height - h) // 2
        box = kit.view("android.widget.LinearLayout", (left, top, right, top + h),
                       resource_id=rid + "grant_dialog",
                       style={"bg": (246, 244, 250), "radius": kit.dp(28)})
        box.add(kit.view("android.widget.ImageView", ((p.width - kit.dp(32)) // 2,
                                                     top + kit.dp(20), (p.width + kit.dp(32))
                                                     // 2, top + kit.dp(52)),
                         kind="glyph", resource_id=rid + "permission_icon",
                         style={"glyph": icon, "fg": PRIMARY}))
        box.add(kit.view("android.widget.TextView", (left + m, top + kit.dp(60), right - m,
                                                    top + kit.dp(130)), kind="text",
                         text=message, resource_id=rid + "permission_message",
                         style={"size": kit.dp(20), "fg": ON_SURFACE, "align": "center"}))
        y = top + kit.dp(140)
        for res, label, mode in buttons:
            box.add(kit.view("android.widget.Button", (left + m, y, right - m, y + bh),
                             kind="flat_button", text=label, clickable=True, focusable=True,
                             on_click=lambda mode=mode: self._answer(mode),
                             resource_id=rid + res,
                             style={"fg": PRIMARY, "size": kit.dp(16), "bold": True,
                                    "bg": (232, 228, 244), "radius": kit.dp(20)}))
            y += bh + kit.dp(8)
        scrim.add(box)
        return scrim

    def state(self) -> dict:
        pending = None
        if self.pending is not None:
            pending = {"package": self.pending.package, "permission": self.pending.permission}
        return {"grants": {p: dict(g) for p, g in self.grants.items() if g},
                "pending": pending, "answers": [dict(a) for a in self.answers]}


def build_page(perms: Permissions, kit: Kit) -> View:
    """The app's permission page: the permission's three choices as radio buttons."""
    assert perms.page is not None
    package, permission = perms.page
    zh = perms.phone.locale().startswith("zh")
    p = kit.profile
    page = kit.view("android.widget.FrameLayout", (0, 0, p.width, p.height), modal=True,
                    style={"bg": (250, 250, 252)})
    names = {"microphone": ("Microphone", "麦克风"), "camera": ("Camera", "相机"),
             "location": ("Location", "位置信息"), "notifications": ("Notifications", "通知")}
    en, cn = names[permission]
    page.add(kit.app_bar(f"{cn}权限" if zh else f"{en} permission", on_back=perms.back))
    app = perms.phone.apps[package].title()
    top = kit.content[1] + kit.dp(64)
    page.add(kit.text(kit.row(top, 32), app, size=18, bold=True,
                      resource_id=f"{CONTROLLER}:id/entity_header_title"))
    mode = perms.grants.get(package, {}).get(permission)
    choices = (("foreground", "仅在使用该应用时允许", "Allow only while using the app",
                mode in ("foreground", "granted")),
               ("ask", "每次都询问", "Ask every time", mode in (None, "once")),
               ("denied", "不允许", "Don't allow", mode == "denied"))
    y = top + kit.dp(48)
    for key, label_zh, label_en, on in choices:
        left, top_, right, bottom = kit.row(y, 56)
        radio = kit.view("android.widget.RadioButton", (left, top_, right, bottom),
                         checkable=True, checked=on, clickable=True, focusable=True,
                         on_click=lambda key=key: perms._choose(key),
                         resource_id=f"{CONTROLLER}:id/{key}_radio_button")
        radio.add(kit.view("android.view.View", (left, top_, left + kit.dp(40), bottom),
                           kind="glyph", style={"glyph": "◉" if on else "○",
                                                "fg": PRIMARY if on else ON_SURFACE}))
        radio.add(kit.text((left + kit.dp(48), top_, right, bottom), label_zh if zh else label_en,
                           size=17))
        page.add(radio)
        y += kit.dp(64)
    return page


def dump_lines(perms: Permissions, package: str) -> list[str]:
    """``dumpsys package PKG``'s runtime permissions section for ``package``."""
    modes = perms.grants.get(package, {})
    if not modes:
        return []
    lines = ["    runtime permissions:"]
    for short, mode in sorted(modes.items()):
        full = PERMISSIONS[short][0]
        flags = "USER_SET" + (" ONE_TIME" if mode == "once" else "")
        if perms.denials.get((package, short), 0) >= ASK_LIMIT:
            flags += " USER_FIXED"
        lines.append(f"      {full}: granted={str(mode != 'denied').lower()}, "
                     f"flags=[ {flags} ]")
    return lines

