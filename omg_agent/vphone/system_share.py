"""The share sheet: Android's chooser that an app's Share opens, delivering text to another app.

``share(source, subject, text)`` shows the chooser (package ``com.android.intentresolver``,
as on Android 14) over the sharing app: a preview of what is shared and a row of targets,
the installed apps that take shared text (an app with ``receive_share(subject, text)``:
Notes opens a new note prefilled, Messages a new message draft). Tapping a target opens that
app with the text; BACK, HOME or a tap on the scrim closes the chooser and nothing is sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from omg_agent.vphone.ui.kit import MUTED, ON_SURFACE, Kit
from omg_agent.vphone.ui.view import View

if TYPE_CHECKING:
    from omg_agent.vphone.phone import VirtualPhone

RESOLVER = "com.android.intentresolver"
CHOOSER_ACTIVITY = ".ChooserActivity"
RID = f"{RESOLVER}:id/"


@dataclass
class Shared:
    source: str
    subject: str
    text: str


class ShareSheet:
    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self.pending: Shared | None = None
        self.delivered: list[dict] = []

    def share(self, source: str, subject: str, text: str) -> None:
        self.pending = Shared(source, subject, text)
        self.phone.changed()

    def showing(self) -> bool:
        return self.pending is not None and self.pending.source == self.phone.foreground

    def package(self) -> str | None:
        return RESOLVER if self.showing() else None

    def close(self) -> None:
        if self.pending is not None:
            self.pending = None
            self.phone.changed()

    def back(self) -> bool:
        if not self.showing():
            return False
        self.close()
        return True

    def targets(self) -> list[str]:
        return [pkg for pkg, app in self.phone.apps.items()
                if callable(getattr(app, "receive_share", None)) and (
                    self.pending is None or pkg != self.pending.source)]

    def _deliver(self, package: str) -> None:
        shared = self.pending
        if shared is None:
            return
        self.pending = None
        self.delivered.append({"from": shared.source, "to": package,
                               "subject": shared.subject, "text": shared.text})
        if self.phone.start_activity(package):
            self.phone.apps[package].receive_share(  # type: ignore[attr-defined]
                shared.subject, shared.text)
        self.phone.changed()

    def build(self, kit: Kit) -> View | None:
        shared = self.pending
        if shared is None or not self.showing():
            return None
        p = kit.profile
        zh = self.phone.locale().startswith("zh")
        scrim = kit.view("android.widget.FrameLayout", (0, 0, p.width, p.height), kind="scrim",
                         modal=True, on_touch=lambda _x, _y: self.close(),
                         style={"bg": (0, 0, 0, 110)})
        h = kit.dp(300)
        bottom = p.height - p.nav_bar_height
        top, m = bottom - h, kit.dp(20)
        sheet = kit.view("android.widget.LinearLayout", (0, top, p.width, bottom),
                         resource_id=RID + "chooser_action_row",
                         on_touch=lambda _x, _y: None,  # a tap on the sheet keeps it open
                         style={"bg": (250, 248, 252), "radius": kit.dp(24)})
        sheet.add(kit.text((m, top + kit.dp(16), p.width - m, top + kit.dp(44)),
                           "分享方式" if zh else "Share with", size=18, bold=True,
                           color=ON_SURFACE, resource_id=RID + "title"))
        preview = shared.subject or shared.text
        sheet.add(kit.text((m, top + kit.dp(48), p.width - m, top + kit.dp(72)), preview,
                           size=14, color=MUTED, resource_id=RID + "content_preview_text"))
        tw, y = kit.dp(88), top + kit.dp(96)
        for i, pkg in enumerate(self.targets()):
            app = self.phone.apps[pkg]
            left = m + i * (tw + kit.dp(8))
            target = kit.view("android.widget.LinearLayout", (left, y, left + tw, y + kit.dp(96)),
                              clickable=True, focusable=True, desc=app.title(),
                              on_click=partial(self._deliver, pkg),
                              resource_id=RID + "chooser_target")
            target.add(kit.view("android.widget.ImageView", (left + kit.dp(20), y + kit.dp(4),
                                                            left + kit.dp(68), y + kit.dp(52)),
                                kind="icon", resource_id=RID + "icon",
                                style={"glyph": app.glyph, "fg": (255, 255, 255),
                                       "bg": app.color, "radius": kit.dp(24)}))
            target.add(kit.text((left, y + kit.dp(58), left + tw, y + kit.dp(82)), app.title(),
                                size=13, align="center", resource_id=RID + "text1"))
            sheet.add(target)
        scrim.add(sheet)
        return scrim

    def state(self) -> dict:
        pending = None
        if self.pending is not None:
            pending = {"from": self.pending.source, "subject": self.pending.subject,
                       "text": self.pending.text}
        return {"pending": pending, "delivered": [dict(d) for d in self.delivered]}
