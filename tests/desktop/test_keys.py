"""Desktop keys: the action space's key names on a desktop, and hotkeys as people write them."""

from __future__ import annotations

import pytest

from omg_agent.core.actions import KEYCODES
from omg_agent.drivers.desktop.keys import desktop_key, parse_combo


@pytest.mark.parametrize(("text", "keys"), [
    ("ctrl+l", ("ctrl", "l")), ("Cmd+Space", ("cmd", "space")),
    ("ctrl + shift + T", ("ctrl", "shift", "t")), ("command+option+esc", ("cmd", "alt",
                                                                         "escape")),
    ("enter", ("return",)), ("F5", ("f5",)), ("super", ("cmd",)), ("ctrl+ctrl+a", ("ctrl",
                                                                                   "a"))])
def test_hotkeys_parse_into_canonical_modifiers_and_one_key(text, keys) -> None:
    assert parse_combo(text) == keys


@pytest.mark.parametrize(("text", "why"), [
    ("", "write it like"), ("ctrl+", "write it like"), ("hyper+a", "not a modifier"),
    ("ctrl+banana", "not a key")])
def test_bad_hotkeys_say_what_is_accepted(text, why) -> None:
    with pytest.raises(ValueError, match=why):
        parse_combo(text)


def test_action_keys_map_to_desktop_keys_and_home_is_refused() -> None:
    assert desktop_key(KEYCODES["enter"]) == "return"
    assert desktop_key(KEYCODES["delete"]) == "backspace"
    assert desktop_key(KEYCODES["back"]) == "escape"
    assert desktop_key(KEYCODES["dpad_down"]) == "down"
    with pytest.raises(ValueError, match="no desktop equivalent"):
        desktop_key(KEYCODES["home"])
