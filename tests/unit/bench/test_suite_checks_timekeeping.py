"""The timekeeping templates (Calendar and Clock): each check fails on the phone left as
the setup made it and on a near-miss end state set directly on the app state, and passes on
the right end state set the same way. (The expert's end-to-end runs are in
tests/integration/test_suite_expert_runs.py.)"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from suite_tools import task_named

from omg_agent.bench.suite import suite_tasks
from omg_agent.bench.suite.timekeeping_entries import ENTRIES
from omg_agent.bench.suite.timekeeping_nav import CALENDAR, CLOCK
from omg_agent.sim.expert.tasks import NOTES
from omg_agent.vphone.phone import VirtualPhone

SEED = 0
IDS = [e.id for e in ENTRIES]
Edit = Callable[[Any, Any], None]


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    ticks = itertools.count(1000.0, 0.25)  # each reading of the clock is 0.25 s later
    p = VirtualPhone(seed=3, clock=lambda: next(ticks))
    try:
        yield p
    finally:
        p.close()


def events(phone: Any) -> list[dict]:
    return phone.apps[CALENDAR].events


def alarms(phone: Any) -> list[dict]:
    return phone.apps[CLOCK].alarms


def _add_event(change: dict | None = None) -> Edit:
    return lambda phone, t: events(phone).append({**t.want, **(change or {})})


def _moved(phone: Any, t: Any, keep_old: bool = False) -> None:
    new = t.wanted()
    if keep_old:
        new.append(dict(t.events[t.index]))
    phone.apps[CALENDAR].events = new


def _delete(index: Callable[[Any], int]) -> Edit:
    def delete(phone: Any, t: Any) -> None:
        del events(phone)[index(t)]
    return delete


def _note(body: Callable[[Any], str]) -> Edit:
    return lambda phone, t: phone.apps[NOTES].notes.append({"title": t.title,
                                                            "body": body(t)})


def _alarm(change: dict | None = None) -> Edit:
    return lambda phone, t: alarms(phone).append({**t.wanted(), **(change or {})})


def _off(index: Callable[[Any], int]) -> Edit:
    def off(phone: Any, t: Any) -> None:
        alarms(phone)[index(t)]["on"] = False
    return off


def _timer(minutes: Callable[[Any], int], running: bool = True) -> Edit:
    def start(phone: Any, t: Any) -> None:
        app = phone.apps[CLOCK]
        app.fields.update({"th": "0", "tm": str(minutes(t)), "ts": "0"})
        app.timer_start()
        if not running:
            app.timer_pause()
    return start


def _laps(n: Callable[[Any], int], stop: bool = True) -> Edit:
    def run(phone: Any, t: Any) -> None:
        app = phone.apps[CLOCK]
        app.sw_go()
        for _ in range(n(t)):
            app.sw_lap()
        if stop:
            app.sw_stop()
    return run


def _then(*edits: Edit) -> Edit:
    def both(phone: Any, t: Any) -> None:
        for edit in edits:
            edit(phone, t)
    return both


def _other(t: Any) -> int:
    return (t.index + 1) % len(getattr(t, "events", None) or t.alarms)


def _shift_date(t: Any) -> dict:
    from datetime import date

    return {"date": (date.fromisoformat(t.want["date"]) + timedelta(days=1)).isoformat()}


RIGHT: dict[str, Edit] = {
    "calendar.create_event": _add_event(),
    "calendar.create_event.zh": _add_event(),
    "calendar.weekly_event": _add_event(),
    "calendar.move_event": _moved,
    "calendar.delete_event": _delete(lambda t: t.index),
    "calendar.time_to_notes": _note(lambda t: t.events[t.index]["start"]),
    "clock.set_alarm": _alarm(),
    "clock.set_alarm.zh": _alarm(),
    "clock.weekday_alarm": _alarm(),
    "clock.alarm_off": _off(lambda t: t.index),
    "clock.alarm_from_dialog": _alarm(),
    "clock.timer": _timer(lambda t: t.minutes),
    "clock.stopwatch_laps": _laps(lambda t: t.laps),
    "clock.impossible_alarm": lambda phone, t: None,
}
NEAR_MISS: dict[str, Edit] = {
    "calendar.create_event": lambda phone, t: _add_event({"start": t.want["end"]})(phone, t),
    "calendar.create_event.zh": lambda phone, t: _add_event(_shift_date(t))(phone, t),
    "calendar.weekly_event": _add_event({"repeat": "none"}),
    "calendar.move_event": lambda phone, t: _moved(phone, t, keep_old=True),  # a copy
    "calendar.delete_event": _delete(_other),
    "calendar.time_to_notes": _note(lambda t: t.events[_other(t)]["start"]),
    "clock.set_alarm": _alarm({"label": ""}),
    "clock.set_alarm.zh": _alarm({"time": "00:00"}),
    "clock.weekday_alarm": _alarm({"days": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat",
                                            "Sun"]}),
    "clock.alarm_off": _off(_other),
    "clock.alarm_from_dialog": _then(_alarm(), lambda phone, t: phone.apps[CALENDAR].delete()),
    "clock.timer": _timer(lambda t: t.minutes, running=False),
    "clock.stopwatch_laps": _laps(lambda t: t.laps, stop=False),
    "clock.impossible_alarm": lambda phone, t: alarms(phone).append(
        {"time": "23:59", "label": "", "days": [], "on": True}),
}


def test_every_template_has_a_right_and_a_near_miss_end_state() -> None:
    assert sorted(RIGHT) == sorted(NEAR_MISS) == sorted(IDS)


@pytest.mark.parametrize("task_id", IDS)
def test_untouched_and_near_miss_fail_the_right_end_state_passes(phone, task_id) -> None:
    task = task_named(task_id)
    task.setup(phone)
    assert task.check(phone) == task.impossible  # untouched: only "nothing harmed" holds
    NEAR_MISS[task_id](phone, task)
    assert not task.check(phone)


@pytest.mark.parametrize("task_id", IDS)
def test_the_right_end_state_passes(phone, task_id) -> None:
    task = task_named(task_id)
    task.setup(phone)
    RIGHT[task_id](phone, task)
    assert task.check(phone)


def test_templates_are_tagged_and_their_dates_absolute() -> None:
    tasks = {t.id: t for t in suite_tasks(SEED) if t.id in IDS}
    assert {"picker", "timed", "non-home", "impossible", "zh", "cross-app",
            "sensitive"} <= {tag for t in tasks.values() for tag in t.tags}
    assert "2026" in tasks["calendar.create_event"].goal
    assert "月" in tasks["calendar.create_event.zh"].goal


def test_the_non_home_template_starts_inside_calendar_with_a_dialog_open(phone) -> None:
    task = task_named("clock.alarm_from_dialog")
    task.setup(phone)
    state = phone.state()
    assert state["foreground"] == CALENDAR
    assert state["apps"][CALENDAR]["dialog"] == "delete"
