"""A delete's own "Delete …?" dialog is that delete, asked once (guards/follow_through.py):
Contacts opens a menu Delete, then a dialog Delete, on a real in-process vphone. One yes to
the first lets the dialog's go; a Cancel and a trip to another contact ends it, so a yes to
one contact never deletes another."""

from __future__ import annotations

from gate_screens import element, observe, tap

from omg_agent.core.actions import Tap
from omg_agent.guards.sensitive import Gate
from omg_agent.vphone.phone import VirtualPhone

CONTACTS = "com.omg.contacts"


def _open(phone: VirtualPhone, name: str) -> None:
    obs = observe(phone)
    row = next(e for e in obs.elements if e.text.startswith(name))
    phone.tap(*row.center)
    tap(phone, desc="More options")


def _delete(gate: Gate, phone: VirtualPhone, *, yes: bool):
    """The gate's decision on the Delete the screen shows, then the tap (let through on a
    decision to allow, or on the user's ``yes``; it lands as the choke point records it)."""
    obs = observe(phone)
    target = element(obs, text="Delete")
    decision = gate.check(Tap(target=target.id), target, obs)
    if decision.allowed or yes:
        gate.paid(decision.sensitivity)
        gate.landed(decision.sensitivity)
        phone.tap(*target.center)
    return decision


def test_the_dialog_after_a_yes_to_the_menu_delete_is_not_asked_again() -> None:
    phone, gate = VirtualPhone(seed=3), Gate()
    phone.start_activity(CONTACTS)
    _open(phone, "Oliver Brown")
    assert _delete(gate, phone, yes=True).needs_confirmation  # the menu: the user is asked
    confirm = _delete(gate, phone, yes=False)  # the dialog: that delete's confirmation
    assert confirm.allowed and "confirms the delete" in confirm.sensitivity.reason
    names = [(c["first"], c["last"]) for c in phone.state()["apps"][CONTACTS]["contacts"]]
    assert ("Oliver", "Brown") not in names and ("Emma", "Wilson") in names


def test_a_cancel_and_another_contact_end_it() -> None:
    phone, gate = VirtualPhone(seed=3), Gate()
    phone.start_activity(CONTACTS)
    _open(phone, "Oliver Brown")
    assert _delete(gate, phone, yes=True).needs_confirmation
    tap(phone, text="Cancel")
    gate.check(Tap(target=1), None, observe(phone))  # the contact's page: no window over it
    tap(phone, desc="Navigate up")
    _open(phone, "Emma Wilson")
    assert _delete(gate, phone, yes=False).needs_confirmation  # Emma's menu: asked
