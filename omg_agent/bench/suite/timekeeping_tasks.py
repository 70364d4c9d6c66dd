"""Calendar tasks of the timekeeping family: events made through the date and time pickers
(once or weekly, in English or Chinese), an event moved or deleted (sensitive: the user
confirms), an event's time carried into Notes. The Clock's are in timekeeping_clock.py.

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
    fill_event,
    form_want,
    open_day,
    open_event,
)
from omg_agent.sim.expert.screen import Screen, launch, tap, wait
from omg_agent.sim.expert.tasks import NOTES, MoveContext, Moves, Task
from omg_agent.vphone.ui.pickers import full_date

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
        phone.changed()


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
