"""Clock / 时钟: alarms, a timer and a stopwatch, in three tabs.

Alarms: a list with an on/off switch each; "Add alarm" opens an editor with a 24-hour time
picker (hour and minute NumberPickers), a label field and repeat-day chips (Mon..Sun).
Timer: hours, minutes and seconds pickers, Start / Pause / Resume / Reset; the time left is
computed from the phone's clock (``AppEnv.clock``), never slept for. Stopwatch: Start, Lap,
Stop, Reset; laps are listed. ``state()`` reads the alarms, the timer (duration, remaining,
running) and the stopwatch (elapsed, running, laps) off the same clock.
"""

from __future__ import annotations

from omg_agent.vphone.apps.base import App
from omg_agent.vphone.apps.clock_views import DAYS, build_alarm_editor, build_main
from omg_agent.vphone.ui.kit import Kit
from omg_agent.vphone.ui.pickers import put, read
from omg_agent.vphone.ui.view import View

SEED_ALARMS = (("06:30", "Gym"), ("07:15", "Wake up"), ("08:00", "Work"),
               ("09:30", "Meds"), ("21:45", "Bedtime"))


class ClockApp(App):
    package = "com.omg.clock"
    label = "Clock"
    label_zh = "时钟"
    glyph = "🕒"
    color = (60, 64, 90)
    activities = {"main": ".DeskClock", "alarm": ".AlarmEditActivity"}

    def reset_data(self) -> None:
        self.alarms: list[dict] = [
            {"time": t, "label": label, "days": [], "on": i == 1}
            for i, (t, label) in enumerate(SEED_ALARMS[:3])]
        self.timer_duration = 0  # seconds the running (or paused) timer was set to
        self.timer_end: float | None = None  # clock time it rings at, while running
        self.timer_left = 0.0  # seconds left, while paused
        self.sw_start: float | None = None  # clock time the stopwatch last started
        self.sw_total = 0.0  # seconds counted before that
        self.laps: list[float] = []

    def reset_ui(self) -> None:
        super().reset_ui()
        self.tab = "alarm"
        self.days: list[str] = []
        self.error = ""

    def now(self) -> float:
        return self.env.clock()

    def frame_key(self) -> tuple:
        """A running timer or stopwatch changes the screen once a second."""
        running = self.timer_end is not None or self.sw_start is not None
        return (int(self.now()),) if running else ()

    def set_tab(self, tab: str) -> None:
        self.tab = tab
        self.focus = None
        if tab == "timer" and not self.timer_duration:
            for key in ("th", "tm", "ts"):
                self.fields.setdefault(key, "00")

    # -- alarms ----------------------------------------------------------------------
    def toggle_alarm(self, index: int) -> None:
        self.alarms[index]["on"] = not self.alarms[index]["on"]

    def open_alarm(self, index: int | None = None) -> None:
        alarm: dict = self.alarms[index] if index is not None else {
            "time": "08:00", "label": "", "days": []}
        self.push("alarm", index=index)
        h, m = alarm["time"].split(":")
        self.fields = {"label": alarm["label"]}
        put(self.fields, "hour", int(h))
        put(self.fields, "minute", int(m))
        self.days = list(alarm["days"])
        self.error = ""

    def toggle_day(self, day: str) -> None:
        self.days = [d for d in DAYS if (d in self.days) != (d == day)]

    def save_alarm(self) -> None:
        time = f"{read(self.fields, 'hour', 0, 23):02d}:{read(self.fields, 'minute', 0, 59):02d}"
        alarm = {"time": time, "label": self.field("label").strip(), "days": list(self.days),
                 "on": True}
        index = self.screen.params.get("index")
        if index is None:
            self.alarms.append(alarm)
        else:
            self.alarms[index] = alarm
        self.alarms.sort(key=lambda a: a["time"])
        self.stack.pop()
        self.fields, self.focus, self.days = {}, None, []

    def delete_alarm(self) -> None:
        index = self.screen.params.get("index")
        if index is not None:
            del self.alarms[index]
        self.stack.pop()
        self.fields, self.focus, self.days = {}, None, []

    # -- timer -----------------------------------------------------------------------
    def timer_remaining(self) -> float:
        if self.timer_end is not None:
            return max(0.0, self.timer_end - self.now())
        return self.timer_left

    def timer_start(self) -> None:
        total = (read(self.fields, "th", 0, 23) * 3600 + read(self.fields, "tm", 0, 59) * 60
                 + read(self.fields, "ts", 0, 59))
        if total <= 0:
            self.error = self.t("Set a time first", "请先设置时间")
            return
        self.error = ""
        self.focus = None
        self.timer_duration = total
        self.timer_end = self.now() + total

    def timer_pause(self) -> None:
        self.timer_left = self.timer_remaining()
        self.timer_end = None

    def timer_resume(self) -> None:
        self.timer_end = self.now() + self.timer_left

    def timer_reset(self) -> None:
        self.timer_duration, self.timer_end, self.timer_left = 0, None, 0.0

    # -- stopwatch -------------------------------------------------------------------
    def elapsed(self) -> float:
        running = self.now() - self.sw_start if self.sw_start is not None else 0.0
        return self.sw_total + running

    def sw_go(self) -> None:
        self.sw_start = self.now()

    def sw_stop(self) -> None:
        self.sw_total = self.elapsed()
        self.sw_start = None

    def sw_lap(self) -> None:
        if self.sw_start is not None:
            self.laps.append(round(self.elapsed(), 2))

    def sw_reset(self) -> None:
        self.sw_start, self.sw_total, self.laps = None, 0.0, []

    # -- views -----------------------------------------------------------------------
    def build(self, kit: Kit) -> View:
        root = kit.root()
        if self.screen.name == "alarm":
            build_alarm_editor(self, kit, root)
        else:
            build_main(self, kit, root)
        return root

    def state(self) -> dict:
        remaining = self.timer_remaining()
        return {"alarms": [dict(a, days=list(a["days"])) for a in self.alarms],
                "timer": {"duration_s": self.timer_duration,
                          "remaining_s": round(remaining, 2),
                          "running": self.timer_end is not None and remaining > 0},
                "stopwatch": {"elapsed_s": round(self.elapsed(), 2),
                              "running": self.sw_start is not None, "laps": list(self.laps)},
                "screen": self.screen.name, "tab": self.tab}
