"""Recorder's screens: the timer with Record / Pause / Stop, the recordings list, the
"More options" popup menu and the rename dialog (see recorder.py for the behaviour)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from omg_agent.vphone.ui.kit import MUTED, ON_SURFACE, Kit
from omg_agent.vphone.ui.view import Handler, View

if TYPE_CHECKING:
    from omg_agent.vphone.apps.recorder import RecorderApp

RED = (220, 60, 70)


def clock_text(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 60:02d}:{s % 60:02d}"


def build_main(app: RecorderApp, kit: Kit, root: View, *, record: Handler, pause: Handler,
               stop: Handler, more: Callable[[int], Handler]) -> None:
    rid = f"{app.package}:id/"
    root.add(kit.app_bar(app.title(), color=RED))
    top = kit.content[1] + kit.dp(72)
    root.add(kit.text(kit.row(top, 64), clock_text(app.elapsed()), size=44, bold=True,
                      align="center", resource_id=rid + "timer"))
    status = (app.t("Paused", "已暂停") if app.paused else app.t("Recording…", "正在录音…")
              if app.recording else app.t("Tap Record to start", "点按录音开始"))
    root.add(kit.text(kit.row(top + kit.dp(68), 28), status, color=MUTED, align="center",
                      resource_id=rid + "status"))
    y, w = top + kit.dp(112), kit.dp(120)
    cx = kit.width // 2
    if app.recording:
        root.add(kit.button((cx - w - kit.dp(8), y, cx - kit.dp(8), y + kit.dp(56)),
                            app.t("Resume", "继续") if app.paused else app.t("Pause", "暂停"),
                            pause, color=(90, 92, 100), resource_id=rid + "pause_button"))
        root.add(kit.button((cx + kit.dp(8), y, cx + w + kit.dp(8), y + kit.dp(56)),
                            app.t("Stop", "停止"), stop, color=RED,
                            resource_id=rid + "stop_button"))
    else:
        root.add(kit.button((cx - w // 2, y, cx + w // 2, y + kit.dp(56)),
                            app.t("Record", "录音"), record, color=RED,
                            desc=app.t("Record", "录音"), resource_id=rid + "record_button"))
    y += kit.dp(72)
    if app.denied:
        root.add(kit.text(kit.row(y, 48), app.t(
            "Recorder needs the microphone to record. Allow it in the app's permissions.",
            "录音机需要麦克风权限才能录音，请在应用权限中允许。"), size=14, color=RED,
            resource_id=rid + "rationale"))
        root.add(kit.button((cx - w, y + kit.dp(52), cx + w, y + kit.dp(100)),
                            app.t("Open settings", "打开设置"), app.open_settings,
                            color=(90, 92, 100), resource_id=rid + "open_settings"))
        y += kit.dp(112)
    _recordings(app, kit, root, y, more)


def _recordings(app: RecorderApp, kit: Kit, root: View, top: int,
                more: Callable[[int], Handler]) -> None:
    rid = f"{app.package}:id/"
    if not app.recordings:
        root.add(kit.text(kit.row(top + kit.dp(16), 28), app.t("No recordings", "没有录音"),
                          color=MUTED, align="center", resource_id=rid + "empty"))
        return
    h = kit.dp(72)
    for i, rec in enumerate(app.recordings):
        y = top + i * h
        if y + h > kit.content[3]:
            break
        name = rec["name"]
        button = kit.view("android.widget.ImageButton",
                          (kit.width - kit.dp(64), y + kit.dp(12), kit.width - kit.dp(16),
                           y + h - kit.dp(12)), kind="glyph", clickable=True, focusable=True,
                          desc=app.t(f"More options for {name}", f"{name}的更多选项"),
                          on_click=more(i), resource_id=rid + "more",
                          style={"glyph": "⋮", "fg": MUTED})
        root.add(kit.list_item((0, y, kit.width, y + h), name, clock_text(rec["seconds"]),
                               resource_id=rid + "recording_item", trailing=button))


def build_menu(app: RecorderApp, kit: Kit, index: int, rename: Handler, delete: Handler,
               close: Handler) -> View:
    """The item's popup menu: a PopupWindow's ListView of two rows, closed by a touch
    outside it."""
    p = kit.profile
    outside = kit.view("android.widget.FrameLayout", (0, 0, p.width, p.height), modal=True,
                       on_touch=lambda _x, _y: close())
    w, h = kit.dp(200), kit.dp(52)
    top = kit.content[1] + kit.dp(300) + index * kit.dp(72) % kit.dp(360)
    left = p.width - w - kit.dp(16)
    menu = kit.view("android.widget.ListView", (left, top, left + w, top + 2 * h),
                    style={"bg": (255, 255, 255), "radius": kit.dp(8)})
    for i, (label, handler) in enumerate(((app.t("Rename", "重命名"), rename),
                                          (app.t("Delete", "删除"), delete))):
        y = top + i * h
        item = kit.text((left, y, left + w, y + h), label, size=16, on_click=handler,
                        resource_id="android:id/title")
        item.style["pad"] = kit.dp(16)
        menu.add(item)
    outside.add(menu)
    return outside


def build_rename(app: RecorderApp, kit: Kit, ok: Handler, cancel: Handler) -> View:
    p = kit.profile
    scrim = kit.view("android.widget.FrameLayout", (0, 0, p.width, p.height), kind="scrim",
                     modal=True, style={"bg": (0, 0, 0, 110)})
    w, h = p.width - kit.dp(64), kit.dp(220)
    left, top = (p.width - w) // 2, kit.content[1] + kit.dp(140)
    right, pad = left + w, kit.dp(24)
    box = kit.view("android.widget.LinearLayout", (left, top, right, top + h),
                   resource_id="android:id/parentPanel",
                   style={"bg": (255, 255, 255), "radius": kit.dp(24)})
    box.add(kit.text((left + pad, top + pad, right - pad, top + pad + kit.dp(32)),
                     app.t("Rename recording", "重命名录音"), size=20, bold=True,
                     color=ON_SURFACE, resource_id="android:id/alertTitle"))
    box.add(kit.edit((left + pad, top + kit.dp(72), right - pad, top + kit.dp(128)), "rename",
                     app.field("rename"), hint=app.t("Name", "名称"),
                     focused=app.focus == "rename",
                     resource_id=f"{app.package}:id/name_input"))
    buttons = ((app.t("OK", "确定"), ok), (app.t("Cancel", "取消"), cancel))
    for button in kit.dialog_buttons(right - pad, top + h - kit.dp(64), buttons):
        box.add(button)
    scrim.add(box)
    return scrim
