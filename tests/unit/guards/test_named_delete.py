"""A delete the user named ("Delete the note titled Groceries") passes without a question
only on that note, read so that no input of the run can pass one note off as another
(issue 35 item 4; ``Gate.renamed``): the list seen, the note opened, Delete — as a model
does it on the vphone. On main @b2d785c the first case asked: the note's title is an
editable field, and the gate matched targets only against text no one can type into."""

from __future__ import annotations

import pytest
from gate_screens import NOTES, element, observe

from omg_agent.core.actions import parse_action
from omg_agent.guards.authorisation import parse_authorisations
from omg_agent.guards.sensitive import Gate

NAMED = "Delete the note titled Groceries in Notes"


@pytest.fixture
def notes(make_phone):
    phone = make_phone()
    phone.apps[NOTES].notes = [{"title": t, "body": f"{t} body"}
                               for t in ("Groceries", "Ideas", "Trip")]
    phone.start_activity(NOTES)
    return phone


def _open(phone, gate: Gate, title: str) -> None:
    """The list seen by the gate (the tap that opens ``title`` is judged on it), then the
    note opened."""
    obs = observe(phone)
    row = element(obs, text=title)
    assert gate.check(parse_action({"type": "tap", "target": row.id}), row, obs).allowed
    phone.tap(*row.center)


def _delete(phone, gate: Gate):
    obs = observe(phone)
    delete = element(obs, rid="delete")
    return gate.check(parse_action({"type": "tap", "target": delete.id}), delete, obs)


def test_the_named_note_is_deleted_without_a_question(notes) -> None:
    gate = Gate(parse_authorisations(NAMED))
    _open(notes, gate, "Groceries")
    assert _delete(notes, gate).allowed


@pytest.mark.parametrize("title", ["Ideas", "Trip"])
def test_another_note_is_asked_about_by_its_title(notes, title) -> None:
    gate = Gate(parse_authorisations(NAMED))
    _open(notes, gate, title)
    decision = _delete(notes, gate)
    assert decision.needs_confirmation
    assert decision.sensitivity.question.endswith(f'deletes the note "{title}" ({NOTES})')


def test_a_note_retitled_by_the_run_is_asked_about(notes) -> None:
    """The model opens Trip, types "Groceries" into its title and taps Delete (the typing
    judged by the same gate, as the segment review and the choke point judge it)."""
    gate = Gate(parse_authorisations(NAMED))
    _open(notes, gate, "Trip")
    obs = observe(notes)
    title = element(obs, rid="title_input")
    typing = parse_action({"type": "type", "text": "Groceries", "target": title.id,
                           "clear": True})
    assert gate.check(typing, title, obs).allowed  # typing a title is harmless by itself
    notes.apps[NOTES].fields["title"] = "Groceries"  # what that typing leaves on the phone
    notes.changed()
    decision = _delete(notes, gate)
    assert decision.needs_confirmation, decision
    assert decision.sensitivity.question.endswith(f'deletes the note "Groceries" ({NOTES})')


def test_an_editor_the_run_did_not_open_from_the_list_is_asked_about(notes) -> None:
    """A resumed run already in the editor (a stopped run could have retitled it): the
    title was never seen listed by this gate, so it is not taken as saved."""
    _open(notes, Gate(), "Groceries")
    assert _delete(notes, Gate(parse_authorisations(NAMED))).needs_confirmation


def test_delete_all_but_trip_still_grants_nothing(notes) -> None:
    gate = Gate(parse_authorisations("Delete all notes except the one titled Trip"))
    _open(notes, gate, "Groceries")
    assert _delete(notes, gate).needs_confirmation
