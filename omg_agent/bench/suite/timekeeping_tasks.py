"""Calendar and Clock tasks: events made through the date and time pickers (once or
weekly, in English or Chinese), an event moved or deleted (sensitive: the user confirms), an
event's time carried into Notes; alarms set with a label or on weekdays (chips), turned off,
set from inside another app's dialog, or asked for at a time no clock has (infeasible); a
timer started and a stopwatch run with laps (timed: the apps read the phone's clock).

Every date is absolute ("17 March 2026"): the setup sets Calendar's today, so a task reads
the same on any host on any day.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from omg_agent.bench.suite.cross_tasks import note_holds
from omg_agent.bench.suite.nav import (
    a_tap,
    a_type,
    confirm,
    note_route,
    saved,
    with_wrong,
    write_note,
)
from omg_agent.bench.suite.notes_tasks import listed
from omg_agent.bench.suite.settings_tasks import ZH_LOCALE
from omg_agent.bench.suite.timekeeping_nav import (
    CALENDAR,
    CLOCK,
    clock_tab,
    fill_event,
    form_want,
    open_day,
    open_event,
    set_alarm,
)
from omg_agent.sim.expert.screen import Screen, launch, report_infeasible, tap, wait
from omg_agent.sim.expert.tasks import NOTES, MoveContext, Moves, Task
from omg_agent.vphone.apps.clock_views import DAYS
from omg_agent.vphone.ui.pickers import full_date, read

log = logging.getLogger(__name__)

REPEAT_WORDS = {"none": "", "daily": " every day", "weekly": " every week",
                "monthly": " every month"}


def calendar_events(phone: Any) -> list[dict]:
    return phone.apps[CALENDAR].events


@dataclass
class CalendarTask(Task):
    """A task on a Calendar whose today is ``today`` and whose events are ``events``
    (None: the phone's own seeded events)."""

    today: date = date(2026, 3, 2)
    events: list[dict] | None = None

    def setup(self, phone: Any) -> None:
        app = phone.apps[CALENDAR]
        app.set_today(self.today)
        if self.events is not None:
            app.events = [dict(e) for e in self.events]
        self.before = [dict(e) for e in app.events]


@dataclass
class NewEvent(CalendarTask):
    """Create an event on a date at a time, once or repeating; ``zh``: asked in Chinese."""

    want: dict = field(default_factory=dict)
    zh: bool = False

    def __post_init__(self) -> None:
        w = self.want
        when = full_date(date.fromisoformat(w["date"]), self.zh)
        if self.zh:
            self.goal = (f"在日历中新建日程「{w['title']}」，日期{when}，"
                         f"{w['start']}开始，{w['end']}结束")
        else:
            self.goal = (f"In Calendar, add an event {w['title']} on {when} from {w['start']} "
                         f"to {w['end']}{REPEAT_WORDS[w['repeat']]}")
        self.criteria = f'the day\'s list shows "{w["title"]}" with "{w["start"]} – {w["end"]}"'

    def setup(self, phone: Any) -> None:
        if self.zh:
            phone.set_locale(ZH_LOCALE)
        super().setup(phone)

    def check(self, phone: Any) -> bool:
        return calendar_events(phone) == [*self.before, self.want]

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        app = phone.apps[CALENDAR]
        if phone.focus()[0] == CALENDAR and app.screen.name == "edit":
            if app.screen.params.get("index") is not None:
                return [wait()] if app.dialog else [a_tap(res="save")]
            return fill_event(phone, screen, form_want(self.want))
        # select the day in the month view first: the form opens on it, no date dialog
        new = [a_tap(res="fab_new")]
        day = date.fromisoformat(self.want["date"])
        return open_day(phone, screen, day, new) or new


@dataclass
class MoveEvent(CalendarTask):
    """Move one event to another day (same times)."""

    index: int = 0
    to: date = date(2026, 3, 2)

    def __post_init__(self) -> None:
        e = self.event
        self.goal = (f"In Calendar, move {e['title']} from {full_date(self.on, False)} to "
                     f"{full_date(self.to, False)}")
        self.criteria = f'the event form of "{e["title"]}" was saved with date ' \
                        f'"{full_date(self.to, False)}"'

    @property
    def event(self) -> dict:
        return (self.events or [])[self.index]

    @property
    def on(self) -> date:
        return date.fromisoformat(self.event["date"])

    def wanted(self) -> list[dict]:
        out = [dict(e) for e in self.events or []]
        out[self.index]["date"] = self.to.isoformat()
        return out

    def check(self, phone: Any) -> bool:
        return calendar_events(phone) == self.wanted()

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        moves = open_event(phone, screen, self.event["title"], self.on)
        if moves:
            return moves
        return fill_event(phone, screen, form_want(self.wanted()[self.index]))


@dataclass
class DeleteEvent(CalendarTask):
    """Delete one event — after the user confirms."""

    index: int = 0

    def __post_init__(self) -> None:
        e = (self.events or [])[self.index]
        when = full_date(date.fromisoformat(e["date"]), False)
        self.goal = f"Delete the event titled {e['title']} in Calendar; it is on {when}"
        self.criteria = 'the calendar says "Event deleted"'
        self.question = f"Delete the event {e['title']} on {when}? It cannot be undone."

    def check(self, phone: Any) -> bool:
        rest = [e for i, e in enumerate(self.events or []) if i != self.index]
        return calendar_events(phone) == rest

    def answer_user(self, question: str) -> str | None:
        return "Yes."

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        app = phone.apps[CALENDAR]
        e = (self.events or [])[self.index]
        if phone.focus()[0] == CALENDAR and app.dialog == "delete":
            return [a_tap(res="button1")]
        moves = open_event(phone, screen, e["title"], date.fromisoformat(e["date"]))
        if moves:
            return moves
        delete = screen.find(res="delete")
        if delete is None:
            return [wait()]
        moves = confirm(ctx, self.question, tap(delete))
        # the user said yes: delete, and answer the app's own "Delete event?" dialog
        return [*moves, a_tap(res="button1")] if moves[0]["type"] == "tap" else moves


@dataclass
class EventTimeToNotes(CalendarTask):
    """Read when an event starts and save it in a new note."""

    index: int = 0
    title: str = "Reminder"

    def __post_init__(self) -> None:
        e = (self.events or [])[self.index]
        self.day = date.fromisoformat(e["date"])
        self.start = e["start"]
        self.goal = (f"Find what time {e['title']} starts on {full_date(self.day, False)} in "
                     f"Calendar and save that time in a note titled {self.title}")
        self.data_output = "time"
        self.criteria = listed(self.title, self.start)

    def check(self, phone: Any) -> bool:
        return note_holds(phone, self.title, self.start)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if saved(ctx, "time", self.start):
            return write_note(phone, screen, self.title, "$time", self.start)
        moves = open_day(phone, screen, self.day)
        if moves:
            return with_wrong(ctx, "time", moves)
        # the row reads "Title" + "14:30 – 16:00" as one element: the start is said, as a
        # model reads it off the row
        e = (self.events or [])[self.index]
        row = screen.find(res="event_item", text=e["title"])
        if row is None:
            return [wait()]
        return [{"type": "mem_save", "key": "time", "value": self.start}, launch(NOTES),
                *note_route(self.title, "$time")]


# -- Clock -----------------------------------------------------------------------------
@dataclass
class ClockTask(Task):
    """A task on the Clock; ``alarms`` replace the seeded ones (None: keep them)."""

    alarms: list[dict] | None = None

    def setup(self, phone: Any) -> None:
        app = phone.apps[CLOCK]
        if self.alarms is not None:
            app.alarms = [dict(a, days=list(a["days"])) for a in self.alarms]
        self.before = [dict(a, days=list(a["days"])) for a in app.alarms]


@dataclass
class SetAlarm(ClockTask):
    """Add an alarm at ``time`` with ``label`` ringing on ``days`` (none: once)."""

    time: str = "07:00"
    label: str = ""
    days: list[str] = field(default_factory=list)
    zh: bool = False

    def __post_init__(self) -> None:
        when = " on weekdays only (Monday to Friday)" if self.days == list(DAYS[:5]) else ""
        named = f" labelled {self.label}" if self.label else ""
        self.goal = f"Set an alarm for {self.time}{named}{when} in Clock"
        if self.zh:
            self.goal = f"在时钟里设一个{self.time}的闹钟，标签为「{self.label}」"
        self.criteria = f'the alarm list shows "{self.time}"'

    def setup(self, phone: Any) -> None:
        if self.zh:
            phone.set_locale(ZH_LOCALE)
        super().setup(phone)

    def wanted(self) -> dict:
        return {"time": self.time, "label": self.label, "days": list(self.days), "on": True}

    def check(self, phone: Any) -> bool:
        alarms = phone.apps[CLOCK].alarms
        rest = [a for a in alarms if a != self.wanted()]
        return len(rest) == len(alarms) - 1 and sorted(
            rest, key=str) == sorted(self.before, key=str)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        return [] if self.check(phone) else set_alarm(phone, screen, self.time, self.label,
                                                      self.days)


@dataclass
class AlarmFromDialog(SetAlarm):
    """Set an alarm while Calendar is in front with an event's delete dialog open: the
    dialog must be left alone (no event deleted)."""

    events: list[dict] = field(default_factory=list)

    def setup(self, phone: Any) -> None:
        super().setup(phone)
        cal = phone.apps[CALENDAR]
        self.events = [dict(e) for e in cal.events]
        phone.start_activity(CALENDAR)
        cal.open_editor(0)
        cal.open_dialog("delete")

    def check(self, phone: Any) -> bool:
        return super().check(phone) and calendar_events(phone) == self.events


@dataclass
class AlarmOff(ClockTask):
    """Turn off one alarm; the others stay on."""

    index: int = 0

    def __post_init__(self) -> None:
        a = (self.alarms or [])[self.index]
        self.goal = f"Turn off my {a['time']} {a['label']} alarm in Clock"
        self.criteria = f'the switch of the {a["time"]} alarm is off'

    def evidence(self, phone: Any) -> list[dict[str, Any]]:
        a = (self.alarms or [])[self.index]
        return [{"kind": "element", "resource_id": "alarm_switch",
                 "desc": f"{a['time']} {a['label']}".strip(), "checked": False}]

    def check(self, phone: Any) -> bool:
        want = [dict(a, on=a["on"] and i != self.index)
                for i, a in enumerate(self.alarms or [])]
        return phone.apps[CLOCK].alarms == want

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        a = (self.alarms or [])[self.index]
        name = f"{a['time']} {a['label']}".strip()
        route = [a_tap(res="alarm_switch", desc=name)]
        moves = clock_tab(phone, screen, "alarm", route)
        if moves:
            return moves
        switch = screen.find(res="alarm_switch", desc=name)
        return [tap(switch)] if switch else [wait()]


@dataclass
class ImpossibleAlarm(ClockTask):
    """An alarm at a time no 24-hour clock has: the right end is infeasible, no alarm."""

    time: str = "25:70"

    def __post_init__(self) -> None:
        self.goal = f"Set an alarm for {self.time} in Clock"
        self.criteria = "no new alarm"

    def check(self, phone: Any) -> bool:
        return phone.apps[CLOCK].alarms == self.before

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        return [report_infeasible(f"{self.time} is not a time of day: hours go to 23 and "
                                  "minutes to 59")]


@dataclass
class StartTimer(ClockTask):
    """Start a timer of ``minutes``."""

    minutes: int = 5

    def __post_init__(self) -> None:
        self.goal = f"Start a {self.minutes}-minute timer in Clock"
        self.criteria = f'the Timer tab shows "of {self.minutes:02d}:00" and a Pause button'

    def check(self, phone: Any) -> bool:
        timer = phone.apps[CLOCK].state()["timer"]
        return timer["running"] and timer["duration_s"] == self.minutes * 60

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        app = phone.apps[CLOCK]
        want = {"th": 0, "tm": self.minutes, "ts": 0}
        start = a_tap(res="timer_start")
        fill = [*(a_type(f"{k}_input", f"{v:02d}") for k, v in want.items()), start]
        moves = clock_tab(phone, screen, "timer", fill)
        if moves:
            return moves
        if app.timer_duration:
            return [a_tap(res="timer_reset"), *fill]
        return [*(a_type(f"{k}_input", f"{v:02d}") for k, v in want.items()
                  if read(app.fields, k, 0, 59, 0) != v), start]


@dataclass
class StopwatchLaps(ClockTask):
    """Start the stopwatch, take ``laps`` laps and stop it."""

    laps: int = 2

    def __post_init__(self) -> None:
        self.goal = (f"In Clock's stopwatch, start it, record {self.laps} laps, then stop it")
        self.criteria = f'the stopwatch lists "Lap {self.laps}" and offers "Reset" (stopped)'

    def check(self, phone: Any) -> bool:
        sw = phone.apps[CLOCK].state()["stopwatch"]
        return not sw["running"] and len(sw["laps"]) == self.laps

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        app = phone.apps[CLOCK]
        stop = a_tap(res="sw_stop")
        laps = [a_tap(res="lap")] * max(0, self.laps - len(app.laps))
        run = [a_tap(res="sw_start"), *laps, stop]  # Start, or Resume after a stop
        moves = clock_tab(phone, screen, "stopwatch", run)
        if moves:
            return moves
        if app.sw_start is not None:
            return [*laps, stop]
        if len(app.laps) > self.laps:  # too many: start over (Reset clears the laps)
            return [a_tap(res="sw_reset"), a_tap(res="sw_start"),
                    *[a_tap(res="lap")] * self.laps, stop]
        return run
