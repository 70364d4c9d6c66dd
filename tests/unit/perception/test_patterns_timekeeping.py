"""The timekeeping widgets come out of perception as elements the model can name: a
NumberPicker's value (an input it can type into), its +/- buttons by desc and the column
as a scrollable list; a date picker's days by their full date; the repeat dialog's radios
with the checked one; the alarm editor's day chips as checkable elements. Read from the
vphone's real dump (in process), through the element list the model is shown."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pytest

from omg_agent.perception.elementlist import parse, render
from omg_agent.perception.uitree import parse_elements
from omg_agent.vphone.phone import VirtualPhone

CAL, CLOCK = "com.omg.calendar", "com.omg.clock"


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    p = VirtualPhone(seed=3)
    try:
        p.apps[CAL].set_today(date(2026, 3, 10))
        yield p
    finally:
        p.close()


def listed(phone: VirtualPhone) -> tuple[str, list]:
    text = render(parse_elements(phone.dump_xml()), (phone.profile.width,
                                                     phone.profile.height))
    return text, parse(text)


def test_a_time_picker_reads_as_two_named_columns_with_typeable_values(phone) -> None:
    phone.start_activity(CAL)
    phone.tap_view(desc="New event")
    phone.tap_view(resource_id=f"{CAL}:id/start_field")
    text, elements = listed(phone)
    assert text.startswith("-- popup: com.omg.calendar --")  # a dialog over the form
    hour = next(e for e in elements if e.res == "hour_input")
    assert hour.text == "09" and "editable" in hour.flags
    columns = [e for e in elements if e.res in ("hour", "minute")]
    assert [("scrollable" in e.flags) for e in columns] == [True, True]
    descs = {e.desc for e in elements if "clickable" in e.flags}
    assert {"Increase hour", "Decrease hour", "Increase minute", "Decrease minute"} <= descs
    assert {e.text for e in elements if e.res in ("button1", "button2")} == {"OK", "Cancel"}


def test_a_date_picker_names_each_day_by_its_full_date_and_marks_the_selected_one(
        phone) -> None:
    phone.start_activity(CAL)
    phone.tap_view(desc="New event")
    phone.tap_view(resource_id=f"{CAL}:id/date_field")
    _, elements = listed(phone)
    days = [e for e in elements if e.res == "day"]
    assert len(days) == 31 and all("clickable" in e.flags for e in days)
    picked = [e for e in days if "selected" in e.flags]
    assert [(e.text, e.desc) for e in picked] == [("10", "10 March 2026")]
    assert {e.desc for e in elements} >= {"Previous month", "Next month"}


def test_the_repeat_dialog_lists_radios_with_the_checked_one(phone) -> None:
    phone.start_activity(CAL)
    phone.tap_view(desc="New event")
    phone.tap_view(resource_id=f"{CAL}:id/repeat_field")
    _, elements = listed(phone)
    radios = [e for e in elements if e.role == "radio"]
    assert [e.text for e in radios] == ["Does not repeat", "Every day", "Every week",
                                        "Every month"]
    assert [e.text for e in radios if "checked" in e.flags] == ["Does not repeat"]


def test_day_chips_and_alarm_switches_are_checkable_and_named(phone) -> None:
    phone.start_activity(CLOCK)
    _, elements = listed(phone)
    switches = [e for e in elements if e.res == "alarm_switch"]
    assert switches and all(e.desc and "checkable" in e.flags for e in switches)
    phone.tap_view(desc="Add alarm")
    phone.tap_view(text="Wed")
    _, elements = listed(phone)
    chips = [e for e in elements if e.res == "day_chip"]
    assert [e.text for e in chips] == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    assert [e.text for e in chips if "checked" in e.flags] == ["Wed"]
