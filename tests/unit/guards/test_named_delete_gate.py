"""A delete the task names is let through on the real Notes editor (relay round, issue 35
item 4): "Delete the note titled Groceries in Notes" asked "May I tap "Delete" … deletes
the note "Groceries"?" because the gate matched the task's note only against the app bar,
the recipients and the button's label — never against the note the screen says the delete
removes. That note alone, named exactly, and never a title this run typed."""

from __future__ import annotations

from gate_screens import NOTES, element, observe, tap

from omg_agent.core.actions import parse_action
from omg_agent.guards.authorisation import Authorisation, parse_authorisations
from omg_agent.guards.batch import Scope, task_scopes
from omg_agent.guards.confirmation import ScriptedChannel
from omg_agent.guards.gatekeeper import GateKeeper
from omg_agent.guards.sensitive import Gate

TASK = "Delete the note titled Groceries in Notes"


def editor(make_phone, titles, opened, gate: Gate | None = None):
    """The note ``opened`` from the list — the tap judged by ``gate``, which so sees the
    titles listed (a title names a delete only as listed)."""
    phone = make_phone()
    phone.apps[NOTES].notes = [{"title": t, "body": f"{t} body"} for t in titles]
    phone.start_activity(NOTES)
    if gate is not None:
        listing = observe(phone)
        row = element(listing, text=opened)
        gate.check(parse_action({"type": "tap", "target": row.id}), row, listing)
    tap(phone, text=opened)
    obs = observe(phone)
    delete = element(obs, rid="delete")
    return obs, delete, parse_action({"type": "tap", "target": delete.id})


def test_the_named_note_is_deleted_without_a_question(make_phone):
    gate = Gate(parse_authorisations(TASK))
    obs, delete, action = editor(make_phone, ("Groceries", "Trip"), "Groceries", gate)
    decision = gate.check(action, delete, obs)
    assert decision.allowed and decision.authorisation is not None


def test_another_note_or_a_longer_title_is_still_asked(make_phone):
    for titles, opened in ((("Groceries", "Trip"), "Trip"),
                           (("Groceries list", "Trip"), "Groceries list")):
        obs, delete, action = editor(make_phone, titles, opened)
        assert Gate(parse_authorisations(TASK)).check(action, delete, obs).needs_confirmation


def test_a_title_the_run_typed_names_no_delete(make_phone):
    obs, delete, action = editor(make_phone, ("Groceries", "Trip"), "Groceries")
    gate = Gate(parse_authorisations(TASK))
    title = element(obs, rid="title_input")
    gate.check(parse_action({"type": "type", "target": title.id, "text": "Groceries"}),
               title, obs)
    assert gate.check(action, delete, obs).needs_confirmation
    assert gate.with_authorisations(()).check(action, delete, obs).needs_confirmation


def test_a_note_the_user_forbade_is_asked_whatever_else_allows_deleting(make_phone):
    rules = [Authorisation("delete", source="--allow"),
             Authorisation("delete", "Trip", grants=False, forbids=True)]
    for opened, allowed in (("Trip", False), ("Groceries", True)):
        gate = Gate(rules)
        obs, delete, action = editor(make_phone, ("Groceries", "Trip"), opened, gate)
        assert gate.check(action, delete, obs).allowed is allowed


def test_delete_all_but_trip_in_notes_never_lists_trip(make_phone):
    """The relay round's "Delete all notes except the one titled Trip in Notes" asked "May
    I delete 3 notes: "Groceries", "Trip", "Ideas"?": it read the kept note as "Trip in
    Notes", so a yes would have deleted the note the user kept."""
    task = "Delete all notes except the one titled Trip in Notes"
    assert task_scopes(task) == [Scope("delete", ("Trip",))]
    phone = make_phone()
    phone.apps[NOTES].notes = [{"title": t, "body": t} for t in ("Groceries", "Trip", "Ideas")]
    phone.start_activity(NOTES)
    human = ScriptedChannel([False])
    keeper = GateKeeper(Gate(parse_authorisations(task)), human, task)
    listing = observe(phone)
    row = element(listing, text="Groceries")
    assert keeper.review([parse_action({"type": "tap", "target": row.id})], listing) is None
    tap(phone, text="Groceries")
    obs = observe(phone)
    delete = parse_action({"type": "tap", "target": element(obs, rid="delete").id})
    assert keeper.review([delete], obs) is not None
    assert [r.describe for r in human.requests] == [
        'delete 2 notes: "Groceries", "Ideas" (com.omg.notes)']
