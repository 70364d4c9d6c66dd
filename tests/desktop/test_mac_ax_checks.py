"""Checks and end checks on a desktop's elements (issue 39 item 3): the verifier the phone
uses (:func:`omg_agent.brain.verify.verify_step`) judges the element lists the macOS AX
reader makes from recorded trees — a switch's state, a selected sidebar row, a radio
button, a calculator's display, a document's text (only ``in_field``), a Save sheet still
open, the foreground app by its name."""

from __future__ import annotations

from typing import Any

import pytest
from test_mac_ax import RecordedMac, driver_for

from omg_agent.brain.verify import verify_step
from omg_agent.core.contracts import TaskStep


def failure(fixture_name: str, *checks: dict[str, Any]) -> str:
    obs = driver_for(RecordedMac(fixture_name)).observe()
    step = TaskStep.model_validate({"description": "the end state", "success_criteria": "-",
                                    "checks": list(checks)})
    found = verify_step(step, obs, lambda key: None)
    return "" if found is None else found.message


@pytest.mark.parametrize(("fixture_name", "check"), [
    ("settings", {"kind": "element", "text": "Allow wallpaper tinting in windows",
                  "checked": True}),
    ("settings", {"kind": "element", "text": "Light", "checked": True}),
    ("settings", {"kind": "element", "text": "Appearance", "selected": True}),
    ("settings", {"kind": "element", "desc": "Accent colour", "shows": "Multicolour"}),
    ("settings", {"kind": "app", "app": "System Settings"}),
    ("calculator", {"kind": "element", "desc": "main display", "shows": "37"}),
    ("calculator", {"kind": "app", "app": "calculator"}),
    ("textedit", {"kind": "element", "resource_id": "First Text View", "shows": "牛奶 🥛",
                  "in_field": True}),
    ("textedit", {"kind": "element", "text": "Delete"}),  # the open menu's item
    ("save_sheet", {"kind": "element", "text": "Save"}),
    ("save_sheet", {"kind": "element", "text": "Helvetica", "present": False}),  # covered
])
def test_an_end_check_that_holds_on_a_desktop_passes(fixture_name, check) -> None:
    assert failure(fixture_name, check) == ""


@pytest.mark.parametrize(("fixture_name", "check", "says"), [
    ("settings", {"kind": "element", "text": "Dark", "checked": True}, "it is off"),
    ("settings", {"kind": "element", "text": "Wi-Fi", "selected": True}, "not selected"),
    ("settings", {"kind": "app", "app": "TextEdit"}, "foreground app is System Settings"),
    ("calculator", {"kind": "element", "desc": "main display", "shows": "444"},
     "it shows '37'"),
    # typed text in the document is no evidence unless the check says in_field
    ("textedit", {"kind": "element", "text": "milk", "match": "contains"},
     "found only in an edit field"),
    ("save_sheet", {"kind": "element", "text": "Save", "present": False},
     "it is on the screen"),
])
def test_an_end_check_that_does_not_hold_says_why(fixture_name, check, says) -> None:
    assert says in failure(fixture_name, check)
