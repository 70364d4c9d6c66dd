"""Key names and keycodes: the one table the ``key`` action and ``omg-agent key`` read.

Plain data and one function, free of pydantic, so the CLI's ``key`` command can name a key
without loading the action models (:mod:`omg_agent.core.actions` validates ``Key`` with
:func:`key_value`).
"""

from __future__ import annotations

from typing import Literal

KEYCODES: dict[str, int] = {
    "home": 3, "back": 4, "call": 5, "endcall": 6, "dpad_up": 19, "dpad_down": 20,
    "dpad_left": 21, "dpad_right": 22, "dpad_center": 23, "volume_up": 24,
    "volume_down": 25, "power": 26, "camera": 27, "tab": 61, "space": 62, "enter": 66,
    "delete": 67, "menu": 82, "search": 84, "media_play_pause": 85, "page_up": 92,
    "page_down": 93, "escape": 111, "forward_delete": 112, "move_home": 122,
    "move_end": 123, "recents": 187, "wakeup": 224, "sleep": 223,
}
KeyName = Literal[
    "home", "back", "call", "endcall", "dpad_up", "dpad_down", "dpad_left", "dpad_right",
    "dpad_center", "volume_up", "volume_down", "power", "camera", "tab", "space", "enter",
    "delete", "menu", "search", "media_play_pause", "page_up", "page_down", "escape",
    "forward_delete", "move_home", "move_end", "recents", "wakeup", "sleep",
]
KEY_ALIASES = {"del": "delete", "backspace": "delete", "return": "enter",
               "app_switch": "recents", "esc": "escape"}
# What a key does to a focused control (the choke point, guards/landing.py): these activate
# it as a tap would; these move, go back or home, type a character or change the volume and
# activate nothing; any other key on a focused control cannot be classified.
ACTIVATING_KEYCODES = {66: "ENTER", 23: "DPAD_CENTER", 62: "SPACE", 160: "NUMPAD_ENTER"}
HARMLESS_KEYCODES = frozenset({
    3, 4, 6, 19, 20, 21, 22, 24, 25, 26, 57, 58, 59, 60, 61, 67, 82, 84, 92, 93, 111, 112,
    113, 114, 115, 122, 123, 126, 127, 164, 187, 220, 221, 223, 224,
    *range(7, 19), *range(27, 57), *range(68, 82), *range(85, 91), *range(144, 160)})
# Keys after which the screen may be anything: navigation, submit, system UI — and every key
# that activates a focused control as a tap would (SPACE and NUMPAD_ENTER, as ENTER and
# DPAD_CENTER; attack round "follow-through": [Tab, Space] paid with no question).
BOUNDARY_KEYCODES = frozenset({3, 4, 5, 6, 23, 26, 62, 66, 82, 84, 111, 160, 187, 223, 224})
# Keys that move the focus (Tab, the D-pad): what an activating key after them lands on is
# no longer what the screen before them shows as focused (a focus ring may draw nothing).
FOCUS_KEYCODES = frozenset({19, 20, 21, 22, 61})


def key_value(value: str | int) -> str | int:
    """A key as given (name, alias, ``KEYCODE_…``, digits or an int) as a known name or a
    keycode in 1–399; ``ValueError`` naming the accepted forms otherwise."""
    if isinstance(value, str):
        name = value.strip().lower().removeprefix("keycode_")
        if name.isdigit():
            value = int(name)
        else:
            name = KEY_ALIASES.get(name, name)
            if name not in KEYCODES:
                raise ValueError(f"unknown key {value!r}; use a keycode or one of: "
                                 + ", ".join(KEYCODES))
            return name
    if not 0 < value < 400:
        raise ValueError(f"keycode {value} is out of range 1–399")
    return value


def keycode(value: str | int) -> int:
    """The keycode of a key as :func:`key_value` accepts it."""
    key = key_value(value)
    return key if isinstance(key, int) else KEYCODES[key]
