"""The timekeeping family's table (Calendar and Clock, issue 36 family A): ids, tags, and
how each task's parameters are drawn from its seeded RNG."""

from __future__ import annotations

import random
from datetime import date, timedelta

from omg_agent.bench.suite.entry import Entry
from omg_agent.bench.suite.timekeeping_clock import (
    AlarmFromDialog,
    AlarmOff,
    ImpossibleAlarm,
    SetAlarm,
    StartTimer,
    StopwatchLaps,
)
from omg_agent.bench.suite.timekeeping_nav import event
from omg_agent.bench.suite.timekeeping_tasks import (
    DeleteEvent,
    EventTimeToNotes,
    MoveEvent,
    NewEvent,
)
from omg_agent.sim.expert.tasks import Task
from omg_agent.vphone.apps.calendar import BASE, hhmm
from omg_agent.vphone.apps.clock import SEED_ALARMS
from omg_agent.vphone.apps.clock_views import DAYS

TITLES = ("Dinner with Sam", "Parent meeting", "Gym session", "Flight to Berlin",
          "Car service", "Doctor appointment", "Movie night", "Coffee with Lee")
TITLES_ZH = ("牙医预约", "家长会", "团队聚餐", "看电影", "健身课")
LABELS = ("Pills", "Call Mom", "Laundry", "Run", "Meeting")
LABELS_ZH = ("吃药", "给妈妈打电话", "洗衣服", "跑步", "开会")
NOTE_TITLES = ("Reminder", "Schedule", "Times")


def _today(r: random.Random) -> date:
    return BASE + timedelta(days=r.randrange(21))


def _slot(r: random.Random) -> tuple[str, str]:
    start = r.randrange(8 * 60, 20 * 60, 15)
    return hhmm(start), hhmm(start + r.choice([30, 60, 90]))


def _new(r: random.Random, repeat: str = "none", zh: bool = False) -> Task:
    today = _today(r)
    day = today + timedelta(days=r.randrange(1, 25))
    title = r.choice(TITLES_ZH if zh else TITLES)
    return NewEvent(today=today, want=event(title, day, *_slot(r), repeat), zh=zh)


def _events(r: random.Random, today: date, n: int = 4) -> list[dict]:
    days = r.sample(range(0, 12), n)
    return [event(title, today + timedelta(days=d), *_slot(r))
            for title, d in zip(r.sample(TITLES, n), days, strict=True)]


def _move(r: random.Random) -> Task:
    today = _today(r)
    events = _events(r, today)
    index = r.randrange(len(events))
    taken = {e["date"] for e in events}
    to = r.choice([today + timedelta(days=d) for d in range(1, 22)
                   if (today + timedelta(days=d)).isoformat() not in taken])
    return MoveEvent(today=today, events=events, index=index, to=to)


def _delete(r: random.Random) -> Task:
    today = _today(r)
    events = _events(r, today)
    return DeleteEvent(today=today, events=events, index=r.randrange(len(events)))


def _to_notes(r: random.Random) -> Task:
    today = _today(r)
    events = _events(r, today)
    return EventTimeToNotes(today=today, events=events, index=r.randrange(len(events)),
                            title=r.choice(NOTE_TITLES))


def _time(r: random.Random) -> str:
    return f"{r.randrange(5, 23):02d}:{r.randrange(0, 60, 5):02d}"


def _alarm_off(r: random.Random) -> Task:
    alarms = [{"time": t, "label": label, "days": [], "on": True}
              for t, label in sorted(r.sample(SEED_ALARMS, 3))]
    return AlarmOff(alarms=alarms, index=r.randrange(3))


E = Entry
ENTRIES: tuple[Entry, ...] = (
    E("calendar.create_event", ("single-app", "picker"), _new),
    E("calendar.create_event.zh", ("single-app", "picker", "zh"),
      lambda r: _new(r, zh=True)),
    E("calendar.weekly_event", ("single-app", "picker"), lambda r: _new(r, "weekly")),
    E("calendar.move_event", ("single-app", "picker"), _move),
    E("calendar.delete_event", ("single-app", "sensitive"), _delete),
    E("calendar.time_to_notes", ("cross-app", "needs-memory"), _to_notes),
    E("clock.set_alarm", ("single-app", "picker"),
      lambda r: SetAlarm(time=_time(r), label=r.choice(LABELS))),
    E("clock.set_alarm.zh", ("single-app", "picker", "zh"),
      lambda r: SetAlarm(time=_time(r), label=r.choice(LABELS_ZH), zh=True)),
    E("clock.weekday_alarm", ("single-app", "picker"),
      lambda r: SetAlarm(time=_time(r), days=list(DAYS[:5]))),
    E("clock.alarm_off", ("single-app",), _alarm_off),
    E("clock.alarm_from_dialog", ("single-app", "picker", "non-home"),
      lambda r: AlarmFromDialog(time=_time(r), label=r.choice(LABELS))),
    E("clock.timer", ("single-app", "timed", "picker"),
      lambda r: StartTimer(minutes=r.choice([3, 5, 10, 15, 25]))),
    E("clock.stopwatch_laps", ("single-app", "timed"),
      lambda r: StopwatchLaps(laps=r.choice([2, 3]))),
    E("clock.impossible_alarm", ("single-app", "impossible"),
      lambda r: ImpossibleAlarm(time=r.choice(["25:70", "24:90", "31:15"]))),
)
