"""Perception on the system surfaces and the web form (issue 36, family D): what the model
reads must name them — the permission dialog's buttons in a popup group, the quick settings
tiles as checkboxes with their state, a notification as one row with its texts, the share
sheet's targets, and a web form whose inputs have no labels (the label is the text before
the input, the email has only its placeholder), a custom select and a Submit div."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from omg_agent.core.observation import UIElement
from omg_agent.perception.uitree import parse_elements
from omg_agent.vphone.apps.browser_forms import FORM_URL
from omg_agent.vphone.phone import VirtualPhone


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    p = VirtualPhone()
    yield p
    p.close()


def elements(phone: VirtualPhone) -> tuple[UIElement, ...]:
    return parse_elements(phone.dump_xml())


def named(els: tuple[UIElement, ...], text: str = "", desc: str = "") -> UIElement:
    return next(e for e in els if (not text or e.text == text) and (not desc or e.desc == desc))


def test_the_permission_dialog_is_a_popup_of_buttons(phone) -> None:
    phone.start_activity("com.omg.recorder")
    phone.tap_view(resource_id="com.omg.recorder:id/record_button")
    els = elements(phone)
    for label in ("While using the app", "Only this time", "Don't allow"):
        e = named(els, text=label)
        assert (e.role, e.window, e.clickable) == ("button", "popup", True)
    assert named(els, text="Allow Recorder to record audio?").window == "popup"


def test_quick_settings_tiles_and_a_notification_row(phone) -> None:
    phone.surfaces.post_notification("com.omg.messages", "Alice", "See you at 5?",
                                     {"contact": "Alice"})
    phone.surfaces.shade.expand()
    els = elements(phone)
    bt = named(els, desc="Bluetooth")
    assert (bt.role, bt.checkable, bt.checked, bt.text) == ("checkbox", True, False, "Off")
    row = named(els, desc="Messages notification: Alice")
    assert row.clickable and {"Alice", "See you at 5?"} <= set(row.extra_texts)
    assert named(els, text="Clear all").role == "button"


def test_share_sheet_targets_are_named_buttons(phone) -> None:
    phone.open_url("https://example.com")
    phone.surfaces.share("com.android.chrome", "Example Domain", "https://example.com/")
    els = elements(phone)
    for target in ("Notes", "Messages"):
        assert named(els, desc=target).clickable


def test_the_web_form_with_partial_accessibility(phone) -> None:
    phone.open_url(FORM_URL)
    els = list(elements(phone))
    label = named(tuple(els), text="Full name")
    after = els[els.index(label) + 1]
    assert (after.role, after.text, after.hint, after.resource_id) == ("input", "", "", "")
    email = next(e for e in els if e.hint == "you@example.com")
    assert email.role == "input" and email.text == ""
    select = named(tuple(els), text="Choose a plan ▼")
    assert select.clickable and select.resource_id == ""
    submit = named(tuple(els), text="Submit")
    assert submit.clickable and submit.cls == "android.view.View"


def test_under_the_keyboard_the_bottom_of_the_form_is_not_listed(phone) -> None:
    phone.open_url(FORM_URL)
    phone.tap_view(text="you@example.com")
    texts = {e.text for e in elements(phone)}
    assert "Choose a plan ▼" in texts and "Submit" not in texts
