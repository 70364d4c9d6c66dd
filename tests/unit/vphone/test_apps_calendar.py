"""Calendar and its pickers on an in-process VirtualPhone driven like a user: tap the views,
type into the pickers, swipe a NumberPicker, read the state the host sees."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import date

import pytest

from omg_agent.vphone.apps.calendar import BASE, occurs
from omg_agent.vphone.phone import VirtualPhone

CAL = "com.omg.calendar"


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    ticks = itertools.count(1000.0, 0.25)
    p = VirtualPhone(seed=3, clock=lambda: next(ticks))
    try:
        p.apps[CAL].set_today(date(2026, 3, 10))
        p.apps[CAL].events = [{"title": "Dentist", "date": "2026-03-12", "start": "09:00",
                               "end": "10:00", "repeat": "none"}]
        p.start_activity(CAL)
        yield p
    finally:
        p.close()


def rid(name: str) -> str:
    return f"{CAL}:id/{name}"


def app_state(phone: VirtualPhone) -> dict:
    return phone.state()["apps"][CAL]


def test_the_phone_date_is_fixed_per_seed_and_seeded_events_differ_by_seed() -> None:
    a, b, c = (VirtualPhone(seed=s) for s in (5, 5, 6))
    try:
        first = [p.state()["apps"][CAL] for p in (a, b, c)]
        assert first[0]["today"] == first[1]["today"] and first[0]["events"] == first[1][
            "events"]
        assert first[0]["events"] != first[2]["events"]
        assert date.fromisoformat(first[0]["today"]) >= BASE
    finally:
        for p in (a, b, c):
            p.close()


def test_the_month_view_marks_today_and_dots_days_with_events(phone) -> None:
    today = phone.find_view(desc="10 March 2026")
    busy = phone.find_view(desc="12 March 2026")
    assert today is not None and today.selected and not today.children
    assert busy is not None and busy.children  # the dot
    phone.tap_view(desc="12 March 2026")
    assert phone.find_view(text="Dentist") is not None
    assert phone.find_view(text="09:00 – 10:00") is not None
    phone.tap_view(desc="Next month")
    assert phone.find_view(text="April 2026") is not None


def test_a_new_event_through_the_date_and_time_pickers(phone) -> None:
    phone.tap_view(desc="New event")
    phone.input_text("Dinner")  # the title field has focus
    phone.tap_view(resource_id=rid("date_field"))
    phone.tap_view(desc="Next month")
    phone.tap_view(desc="3 April 2026")
    phone.tap_view(text="OK")
    phone.tap_view(resource_id=rid("start_field"))
    phone.tap_view(resource_id=rid("hour_input"))
    phone.clear_text()
    phone.input_text("19")
    phone.tap_view(desc="Increase minute")
    phone.tap_view(desc="Increase minute")
    phone.tap_view(text="OK")
    phone.tap_view(resource_id=rid("repeat_field"))
    radio = phone.find_view(text="Every week")
    assert radio is not None and radio.cls == "android.widget.RadioButton"
    phone.tap_view(text="Every week")
    phone.tap_view(resource_id=rid("save"))
    assert app_state(phone)["events"][-1] == {"title": "Dinner", "date": "2026-04-03",
                                              "start": "19:02", "end": "20:02",
                                              "repeat": "weekly"}
    assert app_state(phone)["selected"] == "2026-04-03"  # the month view shows its day


def test_a_number_out_of_range_is_ignored_and_a_swipe_turns_the_column(phone) -> None:
    phone.tap_view(desc="New event")
    phone.tap_view(resource_id=rid("start_field"))
    phone.tap_view(resource_id=rid("hour_input"))
    phone.clear_text()
    phone.input_text("25")
    phone.key(4)  # BACK hides the keyboard; the dialog stays
    column = phone.find_view(resource_id=rid("minute"))
    assert column is not None and column.cls == "android.widget.NumberPicker"
    x, y = column.center
    phone.swipe(x, y + 200, x, y - 200)  # drag up: later minutes
    phone.tap_view(text="OK")
    draft = app_state(phone)["draft"]
    assert draft["start"][:2] == "09" and draft["start"] > "09:00"


def test_cancel_and_back_close_a_dialog_without_changing_the_form(phone) -> None:
    phone.tap_view(desc="New event")
    phone.tap_view(resource_id=rid("end_field"))
    phone.tap_view(desc="Decrease hour")
    phone.tap_view(text="Cancel")
    assert app_state(phone)["draft"]["end"] == "10:00" and app_state(phone)["dialog"] is None
    phone.tap_view(resource_id=rid("date_field"))
    phone.key(4)
    assert app_state(phone)["dialog"] is None and app_state(phone)["screen"] == "edit"


def test_an_end_before_the_start_is_refused(phone) -> None:
    phone.tap_view(desc="New event")
    phone.input_text("Late")
    phone.tap_view(resource_id=rid("end_field"))
    phone.tap_view(desc="Decrease hour")
    phone.tap_view(desc="Decrease hour")
    phone.tap_view(text="OK")
    phone.tap_view(resource_id=rid("save"))
    assert phone.find_view(resource_id=rid("error")) is not None
    assert len(app_state(phone)["events"]) == 1


def test_editing_moves_an_event_and_delete_asks_first(phone) -> None:
    phone.tap_view(desc="12 March 2026")
    phone.tap_view(text="Dentist")
    phone.tap_view(resource_id=rid("date_field"))
    phone.tap_view(desc="20 March 2026")
    phone.tap_view(text="OK")
    phone.tap_view(resource_id=rid("save"))
    assert app_state(phone)["events"][0]["date"] == "2026-03-20"
    phone.tap_view(text="Dentist")
    phone.tap_view(resource_id=rid("delete"))
    assert app_state(phone)["dialog"] == "delete" and app_state(phone)["events"]
    phone.tap_view(text="Cancel")
    phone.tap_view(resource_id=rid("delete"))
    phone.tap_view(resource_id="android:id/button1")
    assert app_state(phone)["events"] == [] and app_state(phone)["toast"] == "Event deleted"


def test_repeating_events_and_the_week_tab(phone) -> None:
    weekly = {"title": "Yoga", "date": "2026-03-02", "start": "07:00", "end": "08:00",
              "repeat": "weekly"}
    assert occurs(weekly, date(2026, 3, 16)) and not occurs(weekly, date(2026, 3, 17))
    assert occurs({**weekly, "repeat": "monthly"}, date(2026, 4, 2))
    assert not occurs({**weekly, "repeat": "daily"}, date(2026, 3, 1))
    phone.apps[CAL].events.append(weekly)
    phone.tap_view(text="Week")
    assert app_state(phone)["tab"] == "week"
    assert phone.find_view(text="Yoga") is not None and phone.find_view(
        text="Dentist") is not None
    phone.tap_view(desc="Next week")
    assert phone.find_view(text="Yoga") is not None and phone.find_view(text="Dentist") is None


def test_chinese_labels_and_dates(phone) -> None:
    phone.set_locale("zh-CN")
    assert phone.find_view(desc="2026年3月12日") is not None
    phone.tap_view(desc="新建日程")
    phone.tap_view(resource_id=rid("date_field"))
    assert phone.find_view(desc="下一月") is not None and phone.find_view(text="确定")
