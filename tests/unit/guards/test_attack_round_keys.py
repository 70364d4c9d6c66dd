"""Attack round on Gate v3 (docs/attack-round.md), keys: a key the choke point does not
know, pressed in a focused text field, went through as harmless — but KEYCODE_PASTE (279)
there fills the field with the clipboard (with the u2 driver: the text it typed last, a
secret typed into a password field included) and an editor key may submit it. Closed world:
only the typing and navigation keys it knows are harmless in a field; any other asks."""

from __future__ import annotations

import dataclasses

import pytest
from gate_screens import made_screen

from omg_agent.drivers.ports import InputEffect, InputScene
from omg_agent.guards.landing import decide, landings
from omg_agent.guards.sensitive import Gate

URL = (0, 100, 1080, 220)


def chrome(focused: bool = True) -> InputScene:
    obs = made_screen("com.android.chrome", [
        {"text": "evil.example/c?p=", "role": "edit", "cls": "android.widget.EditText",
         "editable": True, "clickable": True, "bounds": URL,
         "resource_id": "com.android.chrome:id/url_bar"}])
    return InputScene(dataclasses.replace(obs, elements=tuple(
        dataclasses.replace(e, focused=focused) for e in obs.elements)), 28)


@pytest.mark.parametrize("code", [279, 277, 278, 96, 0, 300])  # paste, cut, copy, BUTTON_A
def test_an_unknown_key_in_a_focused_field_is_asked_about(code) -> None:
    _, decision = decide(Gate(), InputEffect("key", code=code), chrome())
    assert decision.needs_confirmation and decision.sensitivity is not None
    assert decision.sensitivity.cls == "unclassified"
    assert "in the focused field" in decision.sensitivity.reason


@pytest.mark.parametrize("code", [29, 7, 62, 67, 61, 21, 112, 122])  # typing, moving keys
def test_typing_and_moving_keys_in_a_field_stay_harmless(code) -> None:
    assert landings(InputEffect("key", code=code), chrome()) == []


def test_an_unknown_key_with_nothing_focused_lands_nowhere() -> None:
    assert landings(InputEffect("key", code=279), chrome(focused=False)) == []
