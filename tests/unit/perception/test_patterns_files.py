"""Perception on family C's patterns (issue 36): Compose-style trees without resource ids
(Contacts, Files), long-press multi-select, context menus — as the element list the model
reads and as anchors the executor resolves.

Screens are the real vphone apps, in-process; nothing is read from pixels.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from omg_agent.core.actions import AnchorTarget
from omg_agent.core.observation import UIElement
from omg_agent.perception.anchor import match_anchor
from omg_agent.perception.textmatch import TextQuery
from omg_agent.perception.uitree import parse_elements
from omg_agent.vphone.phone import VirtualPhone

CONTACTS, FILES, NOTES = "com.omg.contacts", "com.omg.files", "com.omg.notes"


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    p = VirtualPhone(seed=3)
    try:
        yield p
    finally:
        p.close()


def elements(phone: VirtualPhone) -> tuple[UIElement, ...]:
    return parse_elements(phone.dump_xml())


def anchored(phone: VirtualPhone, **how: str) -> UIElement:
    found = match_anchor(AnchorTarget(**how), elements(phone))
    assert found is not None, f"no element for {how}"
    assert not found.candidates, f"ambiguous: {found.candidates}"
    return found.target


def test_a_compose_tree_has_no_resource_ids(phone) -> None:
    phone.start_activity(CONTACTS)
    assert 'resource-id="com.omg.contacts' not in phone.dump_xml()
    assert all(not e.resource_id for e in elements(phone))


def test_a_merged_contact_row_is_one_item_named_by_its_joined_texts(phone) -> None:
    phone.start_activity(CONTACTS)
    rows = [e for e in elements(phone) if e.text.startswith("Kevin Park")]
    assert len(rows) == 1
    row = rows[0]
    assert row.role == "item" and row.clickable and row.cls == "android.view.View"
    assert row.text == "Kevin Park, +1 650-555-0119"


def test_a_merged_row_anchors_by_one_of_its_texts_exactly_as_an_id_row_does(phone) -> None:
    """Compose's merged label joins its texts with ", "; the name alone (what a model
    names) anchors the row at an exact tier, as Notes' id-bearing row does by its title."""
    phone.start_activity(CONTACTS)
    row = anchored(phone, text="Kevin Park")
    assert row.text.startswith("Kevin Park,") and row.clickable
    assert anchored(phone, text="+1 650-555-0119").id == row.id
    phone.apps[NOTES].notes = [{"title": "Kevin Park", "body": "x"}]
    phone.start_activity(NOTES)
    assert anchored(phone, text="Kevin Park").resource_id.endswith("note_item")


def test_a_clause_of_a_merged_label_matches_at_the_segment_tier() -> None:
    assert TextQuery("Kevin Park").score("Kevin Park, +1 650-555-0119") == 3
    assert TextQuery("Park, +1").score("Kevin Park, +1 650-555-0119") is None
    assert TextQuery("Kevin").score("Kevin Park, +1") == 3  # a word stays a segment


def test_a_compose_row_lends_its_text_children_to_the_row_and_keeps_its_menu_button(
        phone) -> None:
    """Files' rows keep their TextView children (no ids): the row is one element labelled
    by the file name with size · date as an extra, and its ⋮ is a button of its own."""
    phone.start_activity(FILES)
    phone.tap_view(text="Download")
    els = elements(phone)
    row = next(e for e in els if e.text == "budget.xlsx")
    assert row.clickable and row.long_clickable and "kB" in row.extra_texts[0]
    assert not any(e.text == "budget.xlsx" and e is not row for e in els)
    more = [e for e in els if e.desc == "More options"]
    assert len(more) == len([e for e in els if e.long_clickable])
    assert anchored(phone, text="budget.xlsx").id == row.id


def test_multi_select_shows_checked_rows_and_the_selection_bar(phone) -> None:
    phone.start_activity(FILES)
    phone.tap_view(text="Download")
    view = phone.find_view(text="budget.xlsx")
    assert view is not None
    phone.long_press(*view.center, hold=False)
    els = elements(phone)
    row = next(e for e in els if e.text == "budget.xlsx")
    assert row.role == "checkbox" and row.checked
    other = next(e for e in els if e.text == "scan_0042.jpg")
    assert other.checkable and not other.checked
    assert {"1 selected", "Move to", "Copy to", "Delete"} <= {e.text or e.desc for e in els}


def test_a_context_menu_is_a_popup_whose_items_anchor_and_hide_the_list(phone) -> None:
    phone.start_activity(FILES)
    phone.tap_view(text="Download")
    more = [e for e in elements(phone) if e.desc == "More options"][0]
    phone.tap(*more.bounds.center)
    els = elements(phone)
    assert [e.text for e in els] == ["Open", "Rename", "Move to…", "Copy to…", "Delete",
                                     "Share"]
    assert {e.window for e in els} == {"popup"}
    assert anchored(phone, text="Rename").role == "item"


def test_the_phone_field_reports_its_input_type(phone) -> None:
    phone.start_activity(CONTACTS)
    phone.tap_view(desc="Create contact")
    field = next(e for e in elements(phone) if e.hint == "Phone")
    phone.tap(*field.bounds.center)
    assert phone.state()["apps"][CONTACTS]["input_type"] == "phone"
