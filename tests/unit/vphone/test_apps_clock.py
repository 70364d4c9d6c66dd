"""Clock on an in-process VirtualPhone with an injected clock: alarms through the time
picker and day chips, a timer and a stopwatch that read the clock (nothing sleeps)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from app_phone import Clock, started

from omg_agent.vphone.phone import VirtualPhone

CLOCK = "com.omg.clock"


@pytest.fixture
def clock() -> Clock:
    return Clock(5000.0)


@pytest.fixture
def phone(clock: Clock) -> Iterator[VirtualPhone]:
    with started(CLOCK, clock, seed=3) as p:
        yield p


def rid(name: str) -> str:
    return f"{CLOCK}:id/{name}"


def state(phone: VirtualPhone) -> dict:
    return phone.state()["apps"][CLOCK]


def type_into(phone: VirtualPhone, name: str, text: str) -> None:
    phone.tap_view(resource_id=rid(name))
    phone.clear_text()
    phone.input_text(text)


def test_an_alarm_with_a_label_on_weekdays(phone) -> None:
    before = len(state(phone)["alarms"])
    phone.tap_view(desc="Add alarm")
    type_into(phone, "hour_input", "6")
    type_into(phone, "minute_input", "45")
    type_into(phone, "label_input", "Run")
    for day in ("Mon", "Tue", "Wed", "Thu", "Fri"):
        phone.tap_view(text=day)
    chip = phone.find_view(text="Fri")
    assert chip is not None and chip.checked and chip.cls.endswith("Chip")
    phone.tap_view(resource_id=rid("save"))
    alarms = state(phone)["alarms"]
    assert len(alarms) == before + 1
    assert {"time": "06:45", "label": "Run", "on": True,
            "days": ["Mon", "Tue", "Wed", "Thu", "Fri"]} in alarms
    assert phone.find_view(text="Run · Weekdays") is not None


def test_the_plus_minus_buttons_wrap_and_a_bad_number_keeps_the_last_value(phone) -> None:
    phone.tap_view(desc="Add alarm")  # opens at 08:00
    for _ in range(9):
        phone.tap_view(desc="Decrease hour")  # 8 → 23
    type_into(phone, "minute_input", "70")
    phone.tap_view(resource_id=rid("save"))
    assert state(phone)["alarms"][-1]["time"] == "23:00"


def test_a_switch_turns_one_alarm_off(phone) -> None:
    first = state(phone)["alarms"][1]
    assert first["on"]
    name = f"{first['time']} {first['label']}"
    switch = phone.find_view(desc=name)
    assert switch is not None and switch.cls == "android.widget.Switch"
    phone.tap_view(desc=name)
    assert not state(phone)["alarms"][1]["on"]


def test_the_timer_counts_down_on_the_phone_clock_and_pauses(phone, clock) -> None:
    phone.tap_view(text="Timer")
    phone.tap_view(resource_id=rid("timer_start"))  # nothing set: refused
    assert state(phone)["timer"]["duration_s"] == 0
    assert phone.find_view(resource_id=rid("error")) is not None
    phone.tap_view(desc="Increase minutes")
    type_into(phone, "ts_input", "30")
    phone.tap_view(resource_id=rid("timer_start"))
    clock.now += 20
    assert state(phone)["timer"] == {"duration_s": 90, "remaining_s": 70.0, "running": True}
    assert phone.find_view(text="01:10") is not None
    phone.tap_view(resource_id=rid("pause"))
    clock.now += 50
    assert state(phone)["timer"]["remaining_s"] == 70.0
    phone.tap_view(resource_id=rid("resume"))
    clock.now += 100
    assert state(phone)["timer"] == {"duration_s": 90, "remaining_s": 0.0, "running": False}
    phone.tap_view(resource_id=rid("timer_reset"))
    assert state(phone)["timer"]["duration_s"] == 0


def test_the_stopwatch_takes_laps_and_stops(phone, clock) -> None:
    phone.tap_view(text="Stopwatch")
    phone.tap_view(resource_id=rid("sw_start"))
    clock.now += 1.5
    phone.tap_view(resource_id=rid("lap"))
    clock.now += 2.25
    phone.tap_view(resource_id=rid("lap"))
    phone.tap_view(resource_id=rid("sw_stop"))
    clock.now += 10
    sw = state(phone)["stopwatch"]
    assert sw == {"elapsed_s": 3.75, "running": False, "laps": [1.5, 3.75]}
    assert phone.find_view(text="Lap 2   00:02.25   00:03.75") is not None
    phone.tap_view(resource_id=rid("sw_reset"))
    assert state(phone)["stopwatch"] == {"elapsed_s": 0.0, "running": False, "laps": []}


def test_a_running_stopwatch_redraws_each_second(phone, clock) -> None:
    phone.tap_view(text="Stopwatch")
    phone.tap_view(resource_id=rid("sw_start"))
    first = phone.app.frame_key()
    clock.now += 1
    assert phone.app.frame_key() != first


def test_chinese_tabs(phone) -> None:
    phone.set_locale("zh-CN")
    for label in ("闹钟", "计时器", "秒表"):
        assert phone.find_view(text=label) is not None
