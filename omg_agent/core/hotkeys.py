"""Hotkeys as people write them (``ctrl+l``, ``cmd+space``, ``Ctrl+Shift+T``).

:func:`parse_combo` reads one into canonical modifiers (``ctrl``, ``shift``, ``alt``,
``cmd``) and one key — a single character or a named key in the neutral names desktop
backends map to their own codes. The ``key`` action accepts such a combo (it runs on a
desktop; a phone refuses it), and :func:`combo_keycode` gives the Android keycode of its
last key so the guards read ``ctrl+enter`` as the enter key it is.
"""

from __future__ import annotations

from omg_agent.core.keys import KEYCODES

MODIFIERS = {"ctrl": "ctrl", "control": "ctrl", "shift": "shift", "alt": "alt",
             "option": "alt", "opt": "alt", "cmd": "cmd", "command": "cmd", "meta": "cmd",
             "super": "cmd", "win": "cmd"}
NAMED_KEYS = frozenset({
    "return", "backspace", "delete", "tab", "escape", "space", "up", "down", "left",
    "right", "pageup", "pagedown", "home", "end", "insert",
    *(f"f{i}" for i in range(1, 13))})
_KEY_ALIASES = {"enter": "return", "esc": "escape", "del": "delete", "pgup": "pageup",
                "pgdn": "pagedown", "page_up": "pageup", "page_down": "pagedown",
                "arrowup": "up", "arrowdown": "down", "arrowleft": "left",
                "arrowright": "right"}


def parse_combo(text: str) -> tuple[str, ...]:
    """``"ctrl+l"`` as ``("ctrl", "l")``: canonical modifiers (in the order given), then one
    key — a named key or a single character. ``ValueError`` says what was wrong."""
    parts = [p.strip().lower() for p in text.replace(" ", "").split("+")]
    if not text.strip() or any(not p for p in parts):
        raise ValueError(f"bad hotkey {text!r}: write it like ctrl+l or cmd+shift+t")
    *mods, key = parts
    canon: list[str] = []
    for m in mods:
        if m not in MODIFIERS:
            raise ValueError(f"bad hotkey {text!r}: {m!r} is not a modifier (use "
                             + ", ".join(sorted(set(MODIFIERS.values()))) + ")")
        canon.append(MODIFIERS[m])
    key = _KEY_ALIASES.get(key, key)
    if key in MODIFIERS and not mods:
        return (MODIFIERS[key],)
    if len(key) != 1 and key not in NAMED_KEYS:
        raise ValueError(f"bad hotkey {text!r}: {key!r} is not a key (one character or "
                         + ", ".join(sorted(NAMED_KEYS)) + ")")
    return (*dict.fromkeys(canon), key)



# Android key names (core.keys.KEYCODES) -> the neutral desktop keys; read backwards (first
# name wins: enter, not dpad_center, for return) it gives a combo's last key its keycode
ANDROID_TO_DESKTOP = {"enter": "return", "delete": "backspace", "forward_delete": "delete",
                      "tab": "tab", "space": "space", "escape": "escape", "back": "escape",
                      "dpad_up": "up", "dpad_down": "down", "dpad_left": "left",
                      "dpad_right": "right", "dpad_center": "return", "page_up": "pageup",
                      "page_down": "pagedown", "move_home": "home", "move_end": "end"}
_TO_ANDROID: dict[str, str] = {}
for _android, _desktop in ANDROID_TO_DESKTOP.items():
    _TO_ANDROID.setdefault(_desktop, _android)


def combo_keycode(keys: tuple[str, ...]) -> int:
    """The Android keycode of the last key of a parsed combo (letters and digits as
    KEYCODE_A… and KEYCODE_0…; 0 when Android has no such key)."""
    key = keys[-1]
    if len(key) == 1 and "a" <= key <= "z":
        return 29 + ord(key) - ord("a")
    if len(key) == 1 and key.isdigit():
        return 7 + int(key)
    return KEYCODES.get(_TO_ANDROID.get(key, ""), 0)
