"""What a sensitive action is about, read from the screen it acts on, so the human asked can
judge it (issue 35): the note a delete removes, what a payment buys and what it costs, to
whom a send goes and the whole text it sends.

:func:`about` completes a :class:`~omg_agent.guards.sensitive.Sensitivity` made by
:func:`~omg_agent.guards.sensitive.classify` with ``about`` (one phrase for the question:
``deletes the note "Ideas" (com.omg.notes)``, ``pays ¥229.00 for 小米手环 8 × 1``, ``sends
"On my way" to Bob``) and ``target`` (the object alone, "Ideas": what a question about
several such actions lists and matches). Only the screen is read — the model's words never
are. Where the screen names no object the phrase says so: a question never pretends to know.
"""

from __future__ import annotations

import dataclasses
import re

from omg_agent.core.actions import TypeText
from omg_agent.core.observation import Observation, UIElement
from omg_agent.guards.amounts import priced
from omg_agent.guards.payable import total_rows
from omg_agent.guards.sensitive import Sensitivity, recipients, title_band

_NAME_FIELD = re.compile(r"title|subject|name|标题|主题|名称", re.IGNORECASE)
_NOUNS = {"notes": "note", "note": "note", "gallery": "photo", "photos": "photo",
          "contacts": "contact", "messages": "conversation", "files": "file",
          "calendar": "event", "mail": "mail", "email": "mail"}


def about(found: Sensitivity, e: UIElement | None, obs: Observation, *,
          row: bool = False) -> Sensitivity:
    """``found`` with what it is about (see the module docstring); ``row``: ``e`` is the
    list row the action removes (a swipe away), so it names itself."""
    match found.cls:
        case "payment":
            text, target = _paying(found, e, obs)
        case "delete":
            names = [e.text or e.desc] if row and e is not None else _named_object(e, obs)
            return dataclasses.replace(found, about=_deleting(found, names, obs, e),
                                       target=", ".join(names), objects=tuple(names))
        case "send":
            text, target = _sending(found, e, obs)
        case _:
            return found
    return dataclasses.replace(found, about=text, target=target)


def _paying(found: Sensitivity, e: UIElement | None, obs: Observation) -> tuple[str, str]:
    totals = set(total_rows(obs))
    items = [x.text for x in obs.elements
             if x is not e and x.text and not x.editable and x.text not in totals
             and (e is None or not e.bounds.contains(x.center))
             and any(priced(t) for t in (x.text, *x.extra_texts))]
    cost = " / ".join(dict.fromkeys(str(m) for m in found.amounts))
    what = ", ".join(dict.fromkeys(items))
    pays = f"pays {cost}" if cost else "pays an amount the screen does not show"
    return (f"{pays} for {what}" if what else f"{pays} (the screen lists no item)"), what


def _deleting(found: Sensitivity, names: list[str], obs: Observation,
              e: UIElement | None) -> str:
    app = found.package or obs.package
    noun = noun_of(app)
    said = window_words(e, obs)
    if not names and said:  # a dialog names its object in its own words
        return f"deletes what the dialog of {app} says: " + " ".join(f'"{t}"' for t in said)
    if not names:
        return f"deletes what this screen of {app} shows (it names no item)"
    listed = ", ".join(f'"{n}"' for n in names)
    plural = noun + "s" if len(names) > 1 and noun else noun
    return f"deletes the {plural} {listed} ({app})" if noun else f"deletes {listed} ({app})"


def window_words(e: UIElement | None, obs: Observation) -> list[str]:
    """The words of the dialog or menu ``e`` sits in (its title and message, not its
    controls): what a question about a control of a window over the app shows, and what a
    yes to it is bound to (:func:`~omg_agent.guards.approvals.fingerprint`)."""
    if e is None or not e.window or e.window in ("keyboard", "bar"):
        return []
    return [x.text for x in obs.elements if x is not e and x.window == e.window
            and x.package == e.package and x.text and not x.editable
            and not (x.clickable or x.long_clickable or x.checkable)]


def is_name_field(f: UIElement) -> bool:
    """Whether ``f`` is an item's editable name ("Title", 标题): what a delete in an open
    item's screen names as its object."""
    return f.editable and not f.password and bool(_NAME_FIELD.search(
        " ".join((f.resource_id.rpartition("/")[2], f.hint, f.desc))))


def names_an_item(action: object, element: UIElement | None, obs: Observation) -> bool:
    """Whether ``action`` types into an item's name field (``element``, else the focused
    field): from then on a title on the screen may be one the run wrote."""
    field_ = element if element is not None and element.editable else obs.focused
    return isinstance(action, TypeText) and field_ is not None and is_name_field(field_)


def _named_object(e: UIElement | None, obs: Observation) -> list[str]:
    """The item a delete removes: the open item's name field ("Title"), the list row the
    control sits in, or the rows picked (checked) for it."""
    fields = [f.text for f in obs.elements if f.text and is_name_field(f)]
    if fields:
        return fields[:1]
    if e is not None:
        rows = [r for r in obs.elements if r is not e and r.role == "item" and r.text
                and r.bounds.contains(e.center)]
        if rows:
            return [min(rows, key=lambda r: r.bounds.area).text]
    # rows picked in multi-select are checkable (a checkbox role) and selected
    return [r.text for r in obs.elements if r.text and (r.selected and r.checkable or (
        r.role == "item" and (r.checked or r.selected)))]


def noun_of(package: str) -> str:
    """What an app's items are called ("note" in com.omg.notes), or ''."""
    last = package.rpartition(".")[2].casefold()
    return _NOUNS.get(last, "")


def _sending(found: Sensitivity, e: UIElement | None, obs: Observation) -> tuple[str, str]:
    to = list(dict.fromkeys(recipients(obs) or [t for t in title_band(obs)
                                                 if e is None or t != e.text]))
    whom = ", ".join(to) if to else "a recipient the screen does not name"
    if found.text is None:
        said = "what the message box holds (it could not be read)"
    elif not found.text.strip():
        said = "an empty message"
    else:
        said = f'"{found.text}"'
    return f"sends {said} to {whom}", ", ".join(to)
