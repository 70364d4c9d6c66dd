"""Clock tasks of the timekeeping family: alarms set with a label, in Chinese or on
weekdays (chips), turned off, set from inside another app's dialog, or asked for at a time
no clock has (infeasible); a timer started and a stopwatch run with laps (timed: the app
reads the phone's clock)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omg_agent.bench.suite.nav import a_tap, a_type
from omg_agent.bench.suite.settings_tasks import ZH_LOCALE
from omg_agent.bench.suite.timekeeping_nav import CALENDAR, CLOCK, clock_tab, set_alarm
from omg_agent.bench.suite.timekeeping_tasks import calendar_events
from omg_agent.sim.expert.screen import Screen, report_infeasible, tap, wait
from omg_agent.sim.expert.tasks import MoveContext, Moves, Task
from omg_agent.vphone.apps.clock_views import DAYS
from omg_agent.vphone.ui.pickers import read


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
        phone.changed()

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
