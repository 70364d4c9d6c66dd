"""Clock's screens: the Alarm / Timer / Stopwatch tabs and the alarm editor (see clock.py)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from omg_agent.vphone.apps.calendar_views import tabs
from omg_agent.vphone.ui.kit import MUTED, PRIMARY, Kit
from omg_agent.vphone.ui.pickers import time_columns
from omg_agent.vphone.ui.view import Handler, View

if TYPE_CHECKING:
    from omg_agent.vphone.apps.clock import ClockApp

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
DAYS_ZH = dict(zip(DAYS, ("周一", "周二", "周三", "周四", "周五", "周六", "周日"), strict=True))
WEEKDAYS = list(DAYS[:5])


def days_text(app: ClockApp, days: list[str]) -> str:
    if not days:
        return app.t("Once", "只响一次")
    if len(days) == 7:
        return app.t("Every day", "每天")
    if days == WEEKDAYS:
        return app.t("Weekdays", "工作日")
    return ", ".join(app.t(d, DAYS_ZH[d]) for d in days)


def clock_text(seconds: float, centis: bool = False) -> str:
    whole = int(seconds)
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    text = f"{h:02d}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"
    return text + (f".{int((seconds - whole) * 100):02d}" if centis else "")


def build_main(app: ClockApp, kit: Kit, root: View) -> None:
    root.add(kit.app_bar(app.title()))
    top = kit.content[1] + kit.dp(56)
    root.add(tabs(kit, top, [("alarm", app.t("Alarm", "闹钟"), app.tab == "alarm"),
                             ("timer", app.t("Timer", "计时器"), app.tab == "timer"),
                             ("stopwatch", app.t("Stopwatch", "秒表"), app.tab == "stopwatch")],
                  app.set_tab))
    top += kit.dp(64)
    if app.tab == "timer":
        _timer(app, kit, root, top)
    elif app.tab == "stopwatch":
        _stopwatch(app, kit, root, top)
    else:
        _alarms(app, kit, root, top)


def _alarms(app: ClockApp, kit: Kit, root: View, top: int) -> None:
    h, sw = kit.dp(84), kit.dp(72)
    for i, alarm in enumerate(app.alarms):
        y = top + i * h
        name = f"{alarm['time']} {alarm['label']}".strip()
        switch = kit.switch((kit.width - kit.dp(16) - sw, y + kit.dp(20), kit.width - kit.dp(16),
                             y + h - kit.dp(20)), alarm["on"], partial(app.toggle_alarm, i),
                            resource_id=f"{app.package}:id/alarm_switch")
        switch.desc = name
        subtitle = " · ".join(p for p in (alarm["label"], days_text(app, alarm["days"])) if p)
        root.add(kit.list_item((0, y, kit.width, y + h), alarm["time"], subtitle,
                               on_click=partial(app.open_alarm, i), trailing=switch,
                               resource_id=f"{app.package}:id/alarm_item"))
    bottom = kit.content[3]
    root.add(kit.fab(bottom, app.open_alarm,
                     desc=app.t("Add alarm", "添加闹钟"),
                     resource_id=f"{app.package}:id/fab_add"))


def _buttons(kit: Kit, y: int, items: Sequence[tuple[str, str, Handler]],
             package: str) -> View:
    row = kit.view("android.widget.LinearLayout", (0, y, kit.width, y + kit.dp(52)))
    w = (kit.width - kit.dp(16) * (len(items) + 1)) // len(items)
    for i, (rid, label, handler) in enumerate(items):
        x = kit.dp(16) + i * (w + kit.dp(16))
        row.add(kit.button((x, y, x + w, y + kit.dp(52)), label, handler,
                           resource_id=f"{package}:id/{rid}",
                           color=PRIMARY if rid in ("timer_start", "sw_start", "resume")
                           else (90, 96, 110)))
    return row


def _timer(app: ClockApp, kit: Kit, root: View, top: int) -> None:
    pkg = app.package
    if app.timer_duration:
        left = app.timer_remaining()
        root.add(kit.text(kit.row(top + kit.dp(40), 80), clock_text(left), size=48, bold=True,
                          align="center", resource_id=f"{pkg}:id/timer_remaining"))
        root.add(kit.text(kit.row(top + kit.dp(124), 28), app.t("of ", "共 ")
                          + clock_text(app.timer_duration), size=15, color=MUTED,
                          align="center", resource_id=f"{pkg}:id/timer_total"))
        running = app.timer_end is not None and left > 0
        first = (("pause", app.t("Pause", "暂停"), app.timer_pause) if running else
                 ("resume", app.t("Resume", "继续"), app.timer_resume))
        items = [first, ("timer_reset", app.t("Reset", "重置"), app.timer_reset)]
        if not left:
            items = items[1:]
        root.add(_buttons(kit, top + kit.dp(200), items, pkg))
        return
    root.add(kit.text(kit.row(top, 28), app.t("Hours : Minutes : Seconds", "时 : 分 : 秒"),
                      size=14, color=MUTED, align="center"))
    root.add(*time_columns(kit, top + kit.dp(36), app.fields, app.focus,
                           (("th", "hours", 23), ("tm", "minutes", 59),
                            ("ts", "seconds", 59))))
    y = top + kit.dp(224)
    if app.error:
        root.add(kit.text(kit.row(y, 28), app.error, size=14, color=(200, 60, 60),
                          align="center", resource_id=f"{pkg}:id/error"))
    root.add(_buttons(kit, y + kit.dp(36), [("timer_start", app.t("Start", "开始"),
                                             app.timer_start)], pkg))


def _stopwatch(app: ClockApp, kit: Kit, root: View, top: int) -> None:
    pkg = app.package
    root.add(kit.text(kit.row(top + kit.dp(24), 80), clock_text(app.elapsed(), centis=True),
                      size=48, bold=True, align="center", resource_id=f"{pkg}:id/sw_time"))
    running = app.sw_start is not None
    if running:
        items = [("lap", app.t("Lap", "计次"), app.sw_lap),
                 ("sw_stop", app.t("Stop", "停止"), app.sw_stop)]
    elif app.elapsed() > 0:
        items = [("sw_reset", app.t("Reset", "重置"), app.sw_reset),
                 ("sw_start", app.t("Resume", "继续"), app.sw_go)]
    else:
        items = [("sw_start", app.t("Start", "开始"), app.sw_go)]
    root.add(_buttons(kit, top + kit.dp(124), items, pkg))
    y = top + kit.dp(196)
    h = kit.dp(44)
    for n, total in reversed(list(enumerate(app.laps, 1))):
        split = total - (app.laps[n - 2] if n > 1 else 0.0)
        root.add(kit.text(kit.row(y, 44), f"{app.t('Lap', '计次')} {n}   "
                          f"{clock_text(split, True)}   {clock_text(total, True)}", size=16,
                          resource_id=f"{pkg}:id/lap_item"))
        y += h


def build_alarm_editor(app: ClockApp, kit: Kit, root: View) -> None:
    index = app.screen.params.get("index")
    root.add(kit.app_bar(app.t("Add alarm", "添加闹钟") if index is None
                         else app.t("Edit alarm", "编辑闹钟"), on_back=app.back))
    top = kit.content[1] + kit.dp(72)
    picker = kit.view("android.widget.TimePicker", (0, top, kit.width, top + kit.dp(176)),
                      resource_id=f"{app.package}:id/time_picker")
    picker.add(*time_columns(kit, top, app.fields, app.focus,
                             (("hour", "hour", 23), ("minute", "minute", 59))))
    root.add(picker)
    top += kit.dp(188)
    root.add(kit.edit(kit.row(top, 56), "label", app.field("label"),
                      hint=app.t("Label", "标签"), focused=app.focus == "label",
                      resource_id=f"{app.package}:id/label_input"))
    top += kit.dp(68)
    root.add(kit.text(kit.row(top, 28), app.t("Repeat", "重复"), size=14, color=MUTED))
    top += kit.dp(32)
    group = kit.view("com.google.android.material.chip.ChipGroup",
                     (0, top, kit.width, top + kit.dp(44)),
                     resource_id=f"{app.package}:id/days")
    w = (kit.width - kit.dp(16)) // 7
    for i, day in enumerate(DAYS):
        on = day in app.days
        x = kit.dp(8) + i * w
        group.add(kit.view("com.google.android.material.chip.Chip",
                           (x + kit.dp(2), top, x + w - kit.dp(2), top + kit.dp(44)),
                           text=app.t(day, DAYS_ZH[day]), kind="text", checkable=True,
                           checked=on, clickable=True, focusable=True,
                           on_click=partial(app.toggle_day, day),
                           resource_id=f"{app.package}:id/day_chip",
                           style={"bg": PRIMARY if on else (232, 234, 240),
                                  "fg": (255, 255, 255) if on else (40, 40, 48),
                                  "radius": kit.dp(16), "size": kit.dp(13),
                                  "align": "center", "bold": on}))
    root.add(group)
    y = top + kit.dp(68)
    half = (kit.width - kit.dp(48)) // 2
    root.add(kit.button((kit.dp(16), y, kit.dp(16) + half, y + kit.dp(52)),
                        app.t("Save", "保存"), app.save_alarm,
                        resource_id=f"{app.package}:id/save"))
    if index is not None:
        root.add(kit.button((kit.width - kit.dp(16) - half, y, kit.width - kit.dp(16),
                             y + kit.dp(52)), app.t("Delete", "删除"), app.delete_alarm,
                            color=(200, 60, 60), resource_id=f"{app.package}:id/delete"))
