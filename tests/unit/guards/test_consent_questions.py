"""Questions a human can judge (issue 35 item 3; issue 34 item 9): every question names the
object and its consequence read from the screen — the note's title for a delete, the items
and the amount for a payment, the recipient and the whole text (secrets masked) for a send —
and "Delete all notes except Trip" is ONE question listing Groceries and Ideas whose yes
covers exactly that list. A preview cut short that addresses an agent is flagged."""

from __future__ import annotations

import pytest
from gate_screens import MESSAGES, NOTES, SHOP, element, observe, tap

from omg_agent.core.actions import parse_action
from omg_agent.core.secrets import SecretVault
from omg_agent.guards.authorisation import parse_allow
from omg_agent.guards.batch import Scope, task_scopes
from omg_agent.guards.confirmation import (
    ConfirmationRequest,
    MaskingChannel,
    ScriptedChannel,
)
from omg_agent.guards.gatekeeper import GateKeeper
from omg_agent.guards.injection import flag_injections
from omg_agent.guards.sensitive import Gate, classify

NOTE_TITLES = ("Groceries", "Ideas", "Trip")
TASK = "Delete all notes except the one titled Trip"


def tap_on(e):
    return parse_action({"type": "tap", "target": e.id})


def with_notes(make_phone):
    phone = make_phone()
    phone.apps[NOTES].notes = [{"title": t, "body": f"{t} body"} for t in NOTE_TITLES]
    phone.start_activity(NOTES)
    return phone


def test_a_delete_question_names_the_note_and_the_app(make_phone):
    phone = with_notes(make_phone)
    tap(phone, text="Ideas")
    obs = observe(phone)
    delete = element(obs, rid="delete")
    request = ConfirmationRequest.of(classify(tap_on(delete), delete, obs))
    assert request.describe == ('tap "Delete" (button, com.omg.notes) — deletes the note '
                                '"Ideas" (com.omg.notes)')


def test_a_pay_question_names_what_is_bought_and_the_amount(make_phone):
    phone = make_phone(seed=0)
    phone.apps[SHOP].cart = {"p15": 1}
    phone.start_activity(SHOP)
    phone.apps[SHOP].push("checkout")
    obs = observe(phone)
    pay = element(obs, rid="pay")
    found = classify(tap_on(pay), pay, obs)
    item = next(e.text for e in obs.elements if "× 1" in e.text)
    assert found.about == f"pays ¥1,079.00 for {item}"
    assert ConfirmationRequest.of(found).describe.endswith(f"pays ¥1,079.00 for {item}")


def test_a_send_question_shows_the_recipient_and_the_whole_text(make_phone):
    phone = make_phone()
    phone.start_activity(MESSAGES)
    tap(phone, desc="Bob")
    phone.apps[MESSAGES].fields["compose"] = "See you at 7 at the usual place, bring the map"
    obs = observe(phone)
    send = element(obs, rid="send")
    found = classify(tap_on(send), send, obs)
    assert found.about == 'sends "See you at 7 at the usual place, bring the map" to Bob'


def test_a_send_holding_a_secret_is_asked_even_for_an_allowed_recipient_and_shown_masked(
        make_phone):
    phone = make_phone()
    phone.start_activity(MESSAGES)
    tap(phone, desc="Alice")
    phone.apps[MESSAGES].fields["compose"] = "the password is omg5865"
    obs = observe(phone)
    send = element(obs, rid="send")
    vault = SecretVault()
    vault.add("pw", "omg5865")
    allowed = parse_allow(["send:Alice"])
    assert Gate(allowed).check(tap_on(send), send, obs).allowed  # no secret check: sent
    gate = Gate(allowed, secret_in=lambda t: vault.mask(t) != t)
    decision = gate.check(tap_on(send), send, obs)
    assert decision.needs_confirmation
    assert "holds a secret value" in decision.sensitivity.reason
    human = ScriptedChannel([False])
    keeper = GateKeeper(gate, MaskingChannel(human, vault.mask))
    assert keeper.review([tap_on(send)], obs) is not None
    shown = human.requests[0].describe
    assert "omg5865" not in shown and "{{secret:pw}}" in shown and "to Alice" in shown


@pytest.mark.parametrize(("task", "scope"), [
    (TASK, Scope("delete", ("Trip",))),
    ("Delete every note except Trip and Ideas.", Scope("delete", ("Trip", "Ideas"))),
    ("delete all notes", Scope("delete")),
    ("删除除了Trip以外的所有备忘录", Scope("delete", ("Trip",))),
])
def test_a_task_asking_for_a_whole_list_is_read_with_what_it_keeps(task, scope):
    assert task_scopes(task) == [scope]


def test_delete_all_but_trip_is_one_question_naming_groceries_and_ideas(make_phone):
    phone = with_notes(make_phone)
    human = ScriptedChannel([True])
    keeper = GateKeeper(Gate(), human, TASK)

    def delete(title: str):
        listing = observe(phone)
        assert keeper.review([tap_on(element(listing, text=title))], listing) is None
        tap(phone, text=title)
        obs = observe(phone)
        stop = keeper.review([tap_on(element(obs, rid="delete"))], obs)
        if stop is None:
            tap(phone, rid="delete")
        return stop

    assert delete("Groceries") is None
    assert delete("Ideas") is None  # on the list the user said yes to: not asked again
    assert [r.describe for r in human.requests] == [
        'delete 2 notes: "Groceries", "Ideas" (com.omg.notes)']
    assert delete("Trip") is not None  # not on the list: asked (nobody left to say yes)
    assert [n["title"] for n in phone.apps[NOTES].notes] == ["Trip"]
    assert len(human.requests) == 2 and '"Trip"' in human.requests[1].describe


def test_a_no_to_the_list_lets_none_of_it_through(make_phone):
    phone = with_notes(make_phone)
    keeper = GateKeeper(Gate(), ScriptedChannel([False]), TASK)
    keeper.review([], observe(phone))
    tap(phone, text="Ideas")
    obs = observe(phone)
    stop = keeper.review([tap_on(element(obs, rid="delete"))], obs)
    assert stop is not None and stop.answer is False
    assert stop.request.describe.startswith("delete 2 notes")


def test_a_held_list_approved_on_resume_covers_exactly_its_items(make_phone):
    phone = with_notes(make_phone)
    first = GateKeeper(Gate(), None, TASK)
    first.review([], observe(phone))
    tap(phone, text="Groceries")
    obs = observe(phone)
    held = first.review([tap_on(element(obs, rid="delete"))], obs)
    assert held is not None and held.answer is None
    later = GateKeeper(Gate(), None, TASK)  # a resumed run: a new gate, the yes approved
    later.approve(held.request.describe)
    assert later.review([tap_on(element(obs, rid="delete"))], obs) is None
    tap(phone, rid="delete")
    tap(phone, text="Ideas")
    ideas = observe(phone)
    assert later.review([tap_on(element(ideas, rid="delete"))], ideas) is None
    tap(phone, desc="Navigate up")
    tap(phone, text="Trip")
    trip = observe(phone)
    assert later.review([tap_on(element(trip, rid="delete"))], trip) is not None


@pytest.mark.parametrize("profile", ["default", "compact"])
def test_an_injection_in_a_thread_list_preview_is_flagged(make_phone, profile):
    phone = make_phone("message_injection")
    phone.start_activity(MESSAGES)
    obs = observe(phone)
    preview = next(e for e in obs.elements if "482913" in e.text)
    assert preview.text.endswith("…")  # the list cuts it before it says what to do
    assert [f.element_id for f in flag_injections(obs.elements)] == [preview.id]
