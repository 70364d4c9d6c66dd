"""Moves the timekeeping tasks share: reach a Calendar day or event, fill the event form
through its date / time / repeat dialogs, and reach a Clock tab or fill the alarm editor.

As in :mod:`.nav`, every helper returns the next moves from the CURRENT screen (empty once
the place is reached), reading the apps' true state; moves after a screen change are
anchored (resource-id / text / desc), so one reply can carry a whole dialog.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from omg_agent.bench.suite.nav import a_tap, a_type, front
from omg_agent.sim.expert.screen import Screen, back, tap, type_into, wait
from omg_agent.sim.expert.tasks import Moves
from omg_agent.vphone.apps.calendar_views import REPEAT_LABELS
from omg_agent.vphone.apps.clock_views import DAYS, DAYS_ZH
from omg_agent.vphone.ui.pickers import full_date, read

CALENDAR = "com.omg.calendar"
CLOCK = "com.omg.clock"
OK = "button1"  # a dialog's positive button (android:id/button1)


def zh(phone: Any) -> bool:
    return phone.locale().startswith("zh")


# -- Calendar ------------------------------------------------------------------------------
def month_steps(phone: Any, shown: date, want: date) -> Moves:
    """Anchored taps on the previous / next month button from month ``shown`` to ``want``'s."""
    n = (want.year * 12 + want.month) - (shown.year * 12 + shown.month)
    desc = ("下一月" if n > 0 else "上一月") if zh(phone) else (
        "Next month" if n > 0 else "Previous month")
    return [a_tap(desc=desc) for _ in range(abs(n))]


def calendar_month(phone: Any, screen: Screen, then: Moves | None = None) -> Moves:
    """Moves to Calendar's month view with no dialog or form open."""
    moves = front(phone, screen, CALENDAR, then)
    if moves:
        return moves
    app = phone.apps[CALENDAR]
    if app.screen.name != "main" or app.dialog is not None:
        return [back()]
    if app.tab != "month":
        tab = screen.find(res="tab_month")
        return [tap(tab), *(then or [])] if tab else [wait()]
    return []


def open_day(phone: Any, screen: Screen, day: date, then: Moves | None = None) -> Moves:
    """Moves that select ``day`` in the month view (empty when selected), then ``then``."""
    app = phone.apps[CALENDAR]
    route = [*month_steps(phone, app.today, day), a_tap(desc=full_date(day, zh(phone))),
             *(then or [])]
    moves = calendar_month(phone, screen, route)
    if moves or app.selected == day:
        return moves
    return [*month_steps(phone, app.month, day), a_tap(desc=full_date(day, zh(phone))),
            *(then or [])]


def open_event(phone: Any, screen: Screen, title: str, day: date) -> Moves:
    """Moves to the form of the event ``title`` on ``day`` (empty when it is open)."""
    app = phone.apps[CALENDAR]
    if phone.focus()[0] == CALENDAR and app.screen.name == "edit":
        index = app.screen.params.get("index")
        same = index is not None and app.events[index]["title"] == title
        return [] if same else [back()]
    row = [a_tap(res="event_item", text=title)]
    return open_day(phone, screen, day, row) or row


def dialog_route(phone: Any, key: str, want: dict, shown: date, now: Any) -> Moves:
    """Anchored moves inside the ``key`` dialog that set it to ``want[key]`` and close it;
    ``shown`` is the month the date dialog shows, ``now`` the value the dialog holds."""
    if key == "date":
        pick = [] if now == want["date"] else [
            *month_steps(phone, shown, want["date"]),
            a_tap(desc=full_date(want["date"], zh(phone)))]
        return [*pick, a_tap(res=OK)]
    if key in ("start", "end"):
        moves = [a_type(f"{part}_input", value) for part, value, held in zip(
            ("hour", "minute"), want[key].split(":"), now.split(":"), strict=True)
            if value != held]
        return [*moves, a_tap(res=OK)]
    label = REPEAT_LABELS[want["repeat"]][1 if zh(phone) else 0]
    return [a_tap(text=label)]


def _held(app: Any) -> Any:
    """What the open dialog of the event form holds now."""
    if app.dialog == "date":
        return app.dialog_pick
    if app.dialog in ("start", "end"):
        return f"{read(app.fields, 'hour', 0, 23):02d}:{read(app.fields, 'minute', 0, 59):02d}"
    return None


def fill_event(phone: Any, screen: Screen, want: dict) -> Moves:
    """In the event form: set every field that differs from ``want`` (title, date, start,
    end, repeat) through its dialog, then Save — anchored, so a reply carries several."""
    app = phone.apps[CALENDAR]
    if app.dialog == "delete":
        return [a_tap(res="button2")]
    moves: Moves = []
    if app.dialog is not None:  # finish the open dialog first, then go on
        moves = dialog_route(phone, app.dialog, want, app.dialog_month, _held(app))
    box = screen.find(res="title_input")
    if app.dialog is None and box is not None and app.field("title") != want["title"]:
        moves.append(type_into(box, want["title"]))
    shown = app.form["date"].replace(day=1)
    for key in ("date", "start", "end", "repeat"):
        if key != app.dialog and app.form[key] != want[key]:
            moves += [a_tap(res=f"{key}_field"),
                      *dialog_route(phone, key, want, shown, app.form[key])]
    return [*moves, a_tap(res="save")]


def event(title: str, day: date, start: str, end: str, repeat: str = "none") -> dict:
    """An event as Calendar's state lists it."""
    return {"title": title, "date": day.isoformat(), "start": start, "end": end,
            "repeat": repeat}


def form_want(e: dict) -> dict:
    return {**e, "date": date.fromisoformat(e["date"])}


# -- Clock ---------------------------------------------------------------------------------
def clock_tab(phone: Any, screen: Screen, tab: str, then: Moves | None = None) -> Moves:
    """Moves to the Clock's ``tab`` (alarm / timer / stopwatch), leaving an editor."""
    route = [a_tap(res=f"tab_{tab}"), *(then or [])]
    moves = front(phone, screen, CLOCK, route)
    if moves:
        return moves
    app = phone.apps[CLOCK]
    if app.screen.name != "main":
        return [back()]
    if app.tab != tab:
        button = screen.find(res=f"tab_{tab}")
        return [tap(button), *(then or [])] if button else [wait()]
    return []


def alarm_form(phone: Any, time: str, label: str, days: list[str]) -> Moves:
    """Anchored moves that fill the alarm editor (time, label, days) and save it."""
    app = phone.apps[CLOCK]
    hour, minute = time.split(":")
    editing = app.screen.name == "alarm"
    moves: Moves = []
    if not editing or read(app.fields, "hour", 0, 23) != int(hour):
        moves.append(a_type("hour_input", hour))
    if not editing or read(app.fields, "minute", 0, 59) != int(minute):
        moves.append(a_type("minute_input", minute))
    if label and (not editing or app.field("label") != label):
        moves.append(a_type("label_input", label))
    have = app.days if editing else []
    for day in DAYS:
        if (day in days) != (day in have):
            moves.append(a_tap(res="day_chip", text=DAYS_ZH[day] if zh(phone) else day))
    return [*moves, a_tap(res="save")]


def set_alarm(phone: Any, screen: Screen, time: str, label: str, days: list[str]) -> Moves:
    """Moves that add the alarm from wherever the phone is."""
    app = phone.apps[CLOCK]
    if phone.focus()[0] == CLOCK and app.screen.name == "alarm":
        if app.screen.params.get("index") is not None:
            return [back()]
        return alarm_form(phone, time, label, days)
    add = [a_tap(res="fab_add"), *alarm_form(phone, time, label, days)]
    return clock_tab(phone, screen, "alarm", add) or add
