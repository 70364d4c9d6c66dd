"""Keys on a desktop: the action space's key names as desktop keys, and hotkey combos.

The action space (:mod:`omg_agent.core.actions`) names keys as Android does (``enter``,
``delete``, ``back``, …, or a keycode). :func:`desktop_key` gives the key a desktop presses
for one of them — in the neutral names backends map to their own codes (X keysyms, macOS
virtual key codes): ``return``, ``backspace``, ``escape``, arrows, ``pageup``… ``back`` is
Escape (what closes a dialog or leaves a field); ``home`` has no desktop meaning and is
refused. :func:`parse_combo` reads a hotkey written the way people write them
(``ctrl+l``, ``cmd+space``, ``Ctrl+Shift+T``) into modifiers and one key.
"""

from __future__ import annotations

from collections.abc import Sequence

from omg_agent.core.hotkeys import ANDROID_TO_DESKTOP, MODIFIERS, NAMED_KEYS, parse_combo
from omg_agent.core.keys import KEYCODES

__all__ = ["MODIFIERS", "NAMED_KEYS", "desktop_key", "parse_combo", "split_combo"]

_BY_CODE = {code: name for name, code in KEYCODES.items()}


def desktop_key(code: int) -> str:
    """The desktop key for an action-space keycode; ``ValueError`` names what is accepted."""
    name = _BY_CODE.get(code)
    key = ANDROID_TO_DESKTOP.get(name or "")
    if key is None:
        raise ValueError(f"key {name or code!r} has no desktop equivalent; desktop keys: "
                         + ", ".join(sorted(ANDROID_TO_DESKTOP)))
    return key


def split_combo(keys: Sequence[str]) -> tuple[list[str], str]:
    """Modifiers and the key of a parsed combo."""
    return list(keys[:-1]), keys[-1]
