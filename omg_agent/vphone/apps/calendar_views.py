"""Calendar's screens: the month grid or the week agenda with the day's events, and the
event form with its date, time and repeat dialogs (see calendar.py for the app)."""

from __future__ import annotations

from datetime import date, timedelta
from functools import partial
from typing import TYPE_CHECKING

from omg_agent.vphone.ui.kit import MUTED, PRIMARY, SURFACE, Kit
from omg_agent.vphone.ui.pickers import (
    choice_dialog,
    date_dialog,
    full_date,
    month_grid,
    month_title,
    time_dialog,
)
from omg_agent.vphone.ui.view import View

if TYPE_CHECKING:
    from omg_agent.vphone.apps.calendar import CalendarApp

TAB = "com.google.android.material.tabs.TabLayout$TabView"
REPEATS = ("none", "daily", "weekly", "monthly")
REPEAT_LABELS = {"none": ("Does not repeat", "不重复"), "daily": ("Every day", "每天"),
                 "weekly": ("Every week", "每周"), "monthly": ("Every month", "每月")}


def _zh(app: CalendarApp) -> bool:
    return app.env.locale().startswith("zh")


def tabs(kit: Kit, top: int, items: list[tuple[str, str, bool]], on_pick) -> View:
    """A TabLayout row: (key, label, selected) per tab; ``on_pick(key)``."""
    bar = kit.view("android.widget.HorizontalScrollView", (0, top, kit.width, top + kit.dp(48)),
                   resource_id=f"{kit.package}:id/tabs", style={"bg": SURFACE})
    w = kit.width // len(items)
    for i, (key, label, selected) in enumerate(items):
        bar.add(kit.view(TAB, (i * w, top, (i + 1) * w, top + kit.dp(48)),
                         text=label, desc=label, kind="text", clickable=True, focusable=True,
                         selected=selected, on_click=partial(on_pick, key),
                         resource_id=f"{kit.package}:id/tab_{key}",
                         style={"size": kit.dp(16), "bold": selected, "align": "center",
                                "fg": PRIMARY if selected else MUTED,
                                "divider": PRIMARY if selected else None}))
    return bar


def event_row(app: CalendarApp, kit: Kit, bounds, index: int, event: dict) -> View:
    repeat = "" if event["repeat"] == "none" else " · " + app.t(
        *_repeat_label(event["repeat"]))
    return kit.list_item(bounds, event["title"], f"{event['start']} – {event['end']}{repeat}",
                         on_click=partial(app.open_editor, index),
                         resource_id=f"{kit.package}:id/event_item")


def _repeat_label(rule: str) -> tuple[str, str]:
    return REPEAT_LABELS[rule]


def build_main(app: CalendarApp, kit: Kit, root: View) -> None:
    zh = _zh(app)
    root.add(kit.app_bar(app.title()))
    top = kit.content[1] + kit.dp(56)
    root.add(tabs(kit, top, [("month", app.t("Month", "月"), app.tab == "month"),
                             ("week", app.t("Week", "周"), app.tab == "week")], app.set_tab))
    top += kit.dp(52)
    root.add(kit.text(kit.row(top, 28), app.t("Today: ", "今天：") + full_date(app.today, zh),
                      size=14, color=MUTED, resource_id=f"{app.package}:id/today"))
    top += kit.dp(32)
    if app.tab == "week":
        _build_week(app, kit, root, top)
    else:
        _build_month(app, kit, root, top)
    size = kit.dp(64)
    bottom = kit.content[3]
    if app.toast:  # a snackbar
        root.add(kit.text(kit.row(bottom - size - kit.dp(72), 32), app.toast, color=MUTED,
                          align="center", resource_id=f"{app.package}:id/snackbar_text"))
    root.add(kit.fab(bottom, app.open_editor,
                     desc=app.t("New event", "新建日程"),
                     resource_id=f"{app.package}:id/fab_new"))


def _nav(app: CalendarApp, kit: Kit, top: int, title: str, step, what: tuple[str, str]
         ) -> list[View]:
    nav = kit.dp(48)
    prev_desc = app.t(f"Previous {what[0]}", f"上一{what[1]}")
    next_desc = app.t(f"Next {what[0]}", f"下一{what[1]}")
    return [_arrow(kit, (kit.dp(8), top, kit.dp(8) + nav, top + nav), prev_desc, "‹",
                   lambda: step(-1), f"{app.package}:id/prev"),
            kit.text((kit.dp(64), top, kit.width - kit.dp(64), top + nav), title, size=18,
                     bold=True, align="center", resource_id=f"{app.package}:id/period"),
            _arrow(kit, (kit.width - kit.dp(8) - nav, top, kit.width - kit.dp(8), top + nav),
                   next_desc, "›", lambda: step(1), f"{app.package}:id/next")]


def _arrow(kit: Kit, bounds, desc: str, glyph: str, on_click, rid: str) -> View:
    return kit.view("android.widget.ImageButton", bounds, desc=desc, kind="glyph",
                    clickable=True, focusable=True, on_click=on_click, resource_id=rid,
                    style={"glyph": glyph, "fg": PRIMARY})


def _build_month(app: CalendarApp, kit: Kit, root: View, top: int) -> None:
    zh = _zh(app)
    root.add(*_nav(app, kit, top, month_title(app.month, zh), app.shift, ("month", "月")))
    top += kit.dp(52)
    grid_bottom = top + kit.dp(330)
    root.add(month_grid(kit, (kit.dp(8), top, kit.width - kit.dp(8), grid_bottom), app.month,
                        zh, lambda d: {"selected": d == app.selected, "today": d == app.today,
                                       "dot": bool(app.day_events(d))}, app.pick_day))
    top = grid_bottom + kit.dp(8)
    root.add(kit.text(kit.row(top, 32), full_date(app.selected, zh), size=16, bold=True,
                      resource_id=f"{app.package}:id/day_title"))
    top += kit.dp(36)
    events = app.day_events(app.selected)
    if not events:
        root.add(kit.text(kit.row(top, 40), app.t("No events", "没有日程"), color=MUTED,
                          resource_id=f"{app.package}:id/empty"))
    h = kit.dp(68)
    for n, (i, event) in enumerate(events[:4]):
        root.add(event_row(app, kit, (0, top + n * h, kit.width - kit.dp(96),
                                      top + (n + 1) * h), i, event))


def _build_week(app: CalendarApp, kit: Kit, root: View, top: int) -> None:
    zh = _zh(app)
    monday = app.selected - timedelta(days=app.selected.weekday())

    def step(weeks: int) -> None:
        app.pick_day(app.selected + timedelta(days=7 * weeks))

    title = f"{full_date(monday, zh)} – {full_date(monday + timedelta(days=6), zh)}"
    root.add(*_nav(app, kit, top, title, step, ("week", "周")))
    top += kit.dp(52)
    days: list[date | None] = []  # a day's header row, or None for an event row
    found: list[tuple[int, dict]] = []
    for d in range(7):
        day = monday + timedelta(days=d)
        days.append(day)
        found.append((-1, {}))
        for pair in app.day_events(day):
            days.append(None)
            found.append(pair)
    heights = [kit.dp(36) if d is not None else kit.dp(64) for d in days]

    def build(i: int, bounds) -> View:
        day = days[i]
        if day is not None:
            return kit.text((bounds[0] + kit.dp(16), bounds[1], bounds[2], bounds[3]),
                            full_date(day, zh), size=14, bold=True, color=MUTED,
                            resource_id=f"{app.package}:id/agenda_day")
        return event_row(app, kit, bounds, *found[i])

    offset = int(app.fields.get("#agenda", "0"))

    def scroll(px: int) -> None:
        limit = max(0, sum(heights) - (kit.content[3] - top))
        app.fields["#agenda"] = str(max(0, min(limit, offset + px)))

    root.add(kit.scroll_list((0, top, kit.width, kit.content[3]), heights, offset, build,
                             scroll, resource_id=f"{app.package}:id/agenda"))


def build_edit(app: CalendarApp, kit: Kit, root: View) -> None:
    zh = _zh(app)
    index = app.screen.params.get("index")
    root.add(kit.app_bar(app.t("New event", "新建日程") if index is None
                         else app.t("Edit event", "编辑日程"), on_back=app.back))
    top = kit.content[1] + kit.dp(72)
    root.add(kit.edit(kit.row(top, 56), "title", app.field("title"),
                      hint=app.t("Title", "标题"), focused=app.focus == "title",
                      resource_id=f"{app.package}:id/title_input"))
    top += kit.dp(68)
    form = app.form
    rows = [("date", app.t("Date", "日期"), full_date(form["date"], zh)),
            ("start", app.t("Starts", "开始"), form["start"]),
            ("end", app.t("Ends", "结束"), form["end"]),
            ("repeat", app.t("Repeat", "重复"), app.t(*_repeat_label(form["repeat"])))]
    h = kit.dp(68)
    for i, (key, label, value) in enumerate(rows):
        y = top + i * h
        root.add(kit.list_item((0, y, kit.width, y + h), label, value,
                               on_click=partial(app.open_dialog, key),
                               resource_id=f"{app.package}:id/{key}_field"))
    y = top + 4 * h + kit.dp(16)
    if app.error:
        root.add(kit.text(kit.row(y, 28), app.error, size=14, color=(200, 60, 60),
                          resource_id=f"{app.package}:id/error"))
        y += kit.dp(32)
    half = (kit.width - kit.dp(48)) // 2
    root.add(kit.button((kit.dp(16), y, kit.dp(16) + half, y + kit.dp(52)),
                        app.t("Save", "保存"), app.save, resource_id=f"{app.package}:id/save"))
    if index is not None:
        root.add(kit.button((kit.width - kit.dp(16) - half, y, kit.width - kit.dp(16),
                             y + kit.dp(52)), app.t("Delete", "删除"),
                            partial(app.open_dialog, "delete"), color=(200, 60, 60),
                            resource_id=f"{app.package}:id/delete"))
    dialog = _dialog(app, kit)
    if dialog is not None:
        root.add(dialog)


def _dialog(app: CalendarApp, kit: Kit) -> View | None:
    zh = _zh(app)
    ok = (app.t("OK", "确定"), app.dialog_ok)
    cancel = (app.t("Cancel", "取消"), app.close_dialog)
    which = app.dialog
    if which == "date":
        return date_dialog(kit, app.dialog_month, app.dialog_pick, app.today, zh,
                           app.dialog_day, app.dialog_shift, ok, cancel)
    if which in ("start", "end"):
        title = app.t("Start time", "开始时间") if which == "start" else app.t("End time",
                                                                            "结束时间")
        return time_dialog(kit, title, app.fields, app.focus, ok, cancel)
    if which == "repeat":
        return choice_dialog(kit, app.t("Repeat", "重复"), [
            (app.t(*_repeat_label(r)), app.form["repeat"] == r, partial(app.set_repeat, r))
            for r in REPEATS], cancel)
    if which == "delete":
        title = app.field("title")
        return kit.dialog(app.t("Delete event?", "删除日程？"),
                          app.t(f'"{title}" will be deleted.', f"「{title}」将被删除。"),
                          [cancel, (app.t("Delete", "删除"), app.delete)])
    return None
