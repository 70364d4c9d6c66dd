"""What a turn's actions changed, in a few words for the model's history line.

Relay round 27: "tap … on [4] item '蓝牙' → ok" did not tell the model whether its tap turned
Bluetooth off, so it spent a turn looking. :func:`effect_note` compares the screen the turn
decided on with the next screen the run observes anyway (no extra device call) and says what
the model would otherwise have to work out: ``screen unchanged``, ``switch 'Bluetooth' now
off``, ``'Like post 4' now selected``, ``message 'Added to cart' shown`` (a toast or
snackbar the app put up: relay round 40's add-to-cart taps read no outcome beside it),
``opened com.omg.notes`` / ``opened 'Bluetooth'``. Nothing is said when nothing it can name
changed.
"""

from __future__ import annotations

from collections.abc import Sequence

from omg_agent.core.observation import Observation, UIElement
from omg_agent.perception.element_diff import changed_elements

MAX_NOTES = 3  # more flips than this in one turn read as a new page, not a toggle
MESSAGE_IDS = ("toast", "snackbar")  # a resource id naming an app's passing message


def effect_note(before: Observation, after: Observation,
                touched: Sequence[UIElement] = ()) -> str:
    """What changed from ``before`` to ``after`` (``""``: nothing worth naming);
    ``touched``: the elements the actions landed on, as they were then — a tap anchored on
    an item a scan read lands on what ``before`` did not show, and is reported the same
    way as a tap on a listed element (issue 40)."""
    if after.package and before.package and after.package != before.package:
        return f"opened {after.package}"
    flips = _flips(before.elements, after.elements, touched)
    notes = (flips if len(flips) <= MAX_NOTES else []) + _messages(before, after)
    if notes:
        return "; ".join(notes)
    # the hash misses one-character changes (a like count): the element list must agree too
    if (before.screen_hash and before.screen_hash == after.screen_hash
            and not changed_elements(before.elements, after.elements)):
        return "screen unchanged"
    if _new_page(before, after) and (title := _title(after)):
        return f"opened {title!r}"
    return ""


def _messages(before: Observation, after: Observation) -> list[str]:
    """The passing messages (a toast, a snackbar: a plain text whose resource id says so)
    ``after`` shows that ``before`` did not: what an action's outcome was ("Added to
    cart")."""
    was = {e.text for e in before.elements if e.text}
    return [f"message {e.text!r} shown" for e in after.elements
            if e.text and e.text not in was and not e.interactive
            and any(m in e.resource_id.rsplit("/", 1)[-1].lower() for m in MESSAGE_IDS)]


def _new_page(before: Observation, after: Observation) -> bool:
    """Most of what is named on ``after`` was not on ``before`` and the old title is gone (a
    scroll keeps the title, or most rows); the new title may be the row tapped to get here."""
    was = {e.label for e in before.elements if e.label}
    now = {e.label for e in after.elements if e.label}
    old, new = _title(before), _title(after)
    return (before.screen_hash != after.screen_hash and bool(now)
            and len(now & was) * 2 < len(now) and new != old and old not in now)


def _flips(before: Sequence[UIElement], after: Sequence[UIElement],
           touched: Sequence[UIElement] = ()) -> list[str]:
    """Switches and selectable elements whose state changed, named as a person would."""
    was = {k: e for e in before if any(k := _key(e, before))}
    for e in touched:  # what the screen decided on did not show (reached by scrolling)
        if any(k := _key(e, [e])):
            was.setdefault(k, e)
    out = []
    for e in after:
        old = was.get(_key(e, after))
        if old is None:
            continue
        if e.checkable and old.checkable and old.checked != e.checked:
            out.append(_flipped(e, _name(e, after)))
        elif old.selected != e.selected:
            out.append(f"{_name(e, after)!r} now {'selected' if e.selected else 'not selected'}")
    return out


def _flipped(e: UIElement, name: str) -> str:
    """A ticked control as it is called: ``switch 'Wi-Fi' now off``, ``checkbox 'Mon' now
    checked`` (a checkbox, chip or radio is no switch)."""
    if e.role in ("", "switch"):
        return f"switch {name!r} now {'on' if e.checked else 'off'}"
    return f"{e.role} {name!r} now {'checked' if e.checked else 'unchecked'}"


def _key(e: UIElement, elements: Sequence[UIElement]) -> tuple[str, str]:
    """Who an element is across two screens: its resource id and what it is called (its
    row's label for a switch without one), never its position or its changing text."""
    return e.resource_id, e.desc or (_row_label(e, elements) if e.checkable else "") or (
        "" if e.resource_id else e.text)


def _name(e: UIElement, elements: Sequence[UIElement]) -> str:
    return e.desc or _row_label(e, elements) or e.text or e.resource_id


def _row_label(e: UIElement, elements: Sequence[UIElement]) -> str:
    """The label on the same row as ``e`` (a settings row's title beside its switch)."""
    y = e.bounds.center.y
    row = [o for o in elements if o is not e and o.label and not o.checkable
           and o.bounds.top <= y <= o.bounds.bottom]
    best = min(row, key=lambda o: (o.bounds.top, o.bounds.left), default=None)
    return e.label if best is None else best.label


def _title(obs: Observation) -> str:
    """A page's title: its topmost plain text, when that is in the screen's top quarter (an
    app bar), else ``""``."""
    plain = [e for e in obs.elements if e.text and not e.interactive]
    top = min(plain, key=lambda e: (e.bounds.top, e.bounds.left), default=None)
    return top.text if top is not None and top.bounds.top * 4 < obs.screenshot.height else ""


__all__ = ["effect_note"]
