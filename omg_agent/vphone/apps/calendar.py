"""Calendar / 日历: a month grid and a week agenda over events that may repeat.

The phone's date is :attr:`CalendarApp.today`, fixed per phone seed (a base date drawn once
from the phone's RNG, so a task is reproducible whatever the host's clock says; a task's
setup may set it). The month view marks today, dots the days with events and lists the
selected day's events; the Week tab lists the selected day's week. "New event" opens a form:
title (a field), date (a DatePickerDialog), start and end (TimePickerDialogs), repeat (a
single-choice dialog: none / daily / weekly / monthly) and Save. Opening an event edits it;
Delete asks first. ``state()["events"]`` holds each saved event: title, date (ISO), start,
end (HH:MM) and repeat.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from omg_agent.vphone.apps.base import App, AppEnv
from omg_agent.vphone.apps.calendar_views import REPEATS, build_edit, build_main
from omg_agent.vphone.ui.kit import Kit
from omg_agent.vphone.ui.pickers import read
from omg_agent.vphone.ui.view import View

SEED_TITLES = ("Dentist", "Team meeting", "Yoga class", "Lunch with Anna", "Project review",
               "Piano lesson", "Book club", "Haircut")
BASE = date(2026, 3, 2)  # the earliest "today" a phone may have


def occurs(event: dict, day: date) -> bool:
    """Whether ``event`` (its first date and repeat rule) falls on ``day``."""
    first = date.fromisoformat(event["date"])
    if day < first:
        return False
    rule = event.get("repeat", "none")
    if rule == "daily":
        return True
    if rule == "weekly":
        return (day - first).days % 7 == 0
    if rule == "monthly":
        return day.day == first.day
    return day == first


def hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def minutes(text: str) -> int:
    h, m = text.split(":")
    return int(h) * 60 + int(m)


class CalendarApp(App):
    package = "com.omg.calendar"
    label = "Calendar"
    label_zh = "日历"
    glyph = "▦"
    color = (66, 133, 244)
    activities = {"main": ".AllInOneActivity", "edit": ".EditEventActivity"}

    def __init__(self, env: AppEnv) -> None:
        # one draw from the phone's RNG: this phone's date and seeded events
        self.seed = env.rng.randrange(1 << 30)
        super().__init__(env)

    def reset_data(self) -> None:
        rng = random.Random(self.seed)
        self.today = BASE + timedelta(days=rng.randrange(21))
        self.events: list[dict] = []
        for title in rng.sample(SEED_TITLES, 3):
            start = rng.choice(range(8 * 60, 18 * 60, 30))
            day = self.today + timedelta(days=rng.randrange(-3, 12))
            self.events.append({"title": title, "date": day.isoformat(), "start": hhmm(start),
                                "end": hhmm(start + 60), "repeat": "none"})
        self.deleted = 0

    def reset_ui(self) -> None:
        super().reset_ui()
        today = getattr(self, "today", BASE)
        self.selected = today
        self.month = today.replace(day=1)
        self.tab = "month"
        self.dialog: str | None = None
        self.dialog_month = self.month
        self.dialog_pick = today
        self.form: dict = {}
        self.error = ""
        self.toast = ""

    def set_today(self, day: date) -> None:
        """The phone's date (a task's setup sets it); the month view turns to it."""
        self.today = self.selected = day
        self.month = day.replace(day=1)

    def on_launch(self) -> None:
        if self.screen.name == "main" and self.dialog is None:
            self.selected, self.month = self.today, self.today.replace(day=1)

    # -- navigation ------------------------------------------------------------------
    def back(self) -> bool:
        if self.dialog is not None and not self.ime_shown:
            self.close_dialog()
            return True
        return super().back()

    def close_dialog(self) -> None:
        self.dialog = None
        self.focus = None

    def day_events(self, day: date) -> list[tuple[int, dict]]:
        """(index, event) of the events on ``day``, by start time."""
        found = [(i, e) for i, e in enumerate(self.events) if occurs(e, day)]
        return sorted(found, key=lambda p: p[1]["start"])

    def pick_day(self, day: date) -> None:
        self.toast = ""
        self.selected = day
        self.month = day.replace(day=1)

    def shift(self, months: int) -> None:
        y, m = divmod(self.month.year * 12 + self.month.month - 1 + months, 12)
        self.month = date(y, m + 1, 1)

    def set_tab(self, tab: str) -> None:
        self.tab = tab

    # -- the form --------------------------------------------------------------------
    def open_editor(self, index: int | None = None) -> None:
        self.push("edit", index=index)
        self.error, self.toast = "", ""
        if index is None:
            self.form = {"date": self.selected, "start": "09:00", "end": "10:00",
                         "repeat": "none"}
            self.fields = {"title": ""}
            self.focus = "title"
        else:
            event = self.events[index]
            self.form = {"date": date.fromisoformat(event["date"]), "start": event["start"],
                         "end": event["end"], "repeat": event["repeat"]}
            self.fields = {"title": event["title"]}

    def open_dialog(self, which: str) -> None:
        self.dialog = which
        self.focus = None
        if which == "date":
            self.dialog_pick = self.form["date"]
            self.dialog_month = self.dialog_pick.replace(day=1)
        elif which in ("start", "end"):
            h, m = self.form[which].split(":")
            self.fields.update({"hour": h, "minute": m, "hour#ok": str(int(h)),
                                "minute#ok": str(int(m))})

    def dialog_shift(self, months: int) -> None:
        y, m = divmod(self.dialog_month.year * 12 + self.dialog_month.month - 1 + months, 12)
        self.dialog_month = date(y, m + 1, 1)

    def dialog_day(self, day: date) -> None:
        self.dialog_pick = day

    def dialog_ok(self) -> None:
        which = self.dialog
        if which == "date":
            self.form["date"] = self.dialog_pick
        elif which in ("start", "end"):
            value = hhmm(read(self.fields, "hour", 0, 23) * 60 + read(self.fields, "minute",
                                                                      0, 59))
            self.form[which] = value
            if which == "start" and minutes(self.form["end"]) <= minutes(value):
                self.form["end"] = hhmm(min(minutes(value) + 60, 23 * 60 + 59))
        self.close_dialog()

    def set_repeat(self, rule: str) -> None:
        self.form["repeat"] = rule
        self.close_dialog()

    def save(self) -> None:
        title = self.field("title").strip()
        if not title:
            self.error = self.t("Add a title", "请输入标题")
            return
        if minutes(self.form["end"]) <= minutes(self.form["start"]):
            self.error = self.t("The end time must be after the start time",
                                "结束时间必须晚于开始时间")
            return
        event = {"title": title, "date": self.form["date"].isoformat(),
                 "start": self.form["start"], "end": self.form["end"],
                 "repeat": self.form["repeat"]}
        index = self.screen.params.get("index")
        if index is None:
            self.events.append(event)
        else:
            self.events[index] = event
        self.pick_day(self.form["date"])
        self.stack.pop()
        self.fields, self.focus, self.form = {}, None, {}

    def delete(self) -> None:
        index = self.screen.params.get("index")
        self.close_dialog()
        if index is not None:
            del self.events[index]
            self.deleted += 1
            self.toast = self.t("Event deleted", "日程已删除")
        self.stack.pop()
        self.fields, self.focus, self.form = {}, None, {}

    # -- views -----------------------------------------------------------------------
    def build(self, kit: Kit) -> View:
        root = kit.root()
        if self.screen.name == "edit":
            build_edit(self, kit, root)
        else:
            build_main(self, kit, root)
        return root

    def state(self) -> dict:
        draft = None
        if self.screen.name == "edit":
            draft = {"title": self.field("title"), "date": self.form["date"].isoformat(),
                     "start": self.form["start"], "end": self.form["end"],
                     "repeat": self.form["repeat"]}
        return {"today": self.today.isoformat(), "events": [dict(e) for e in self.events],
                "screen": self.screen.name, "tab": self.tab, "dialog": self.dialog,
                "selected": self.selected.isoformat(), "draft": draft, "toast": self.toast,
                "deleted": self.deleted}


__all__ = ["REPEATS", "CalendarApp", "occurs"]
