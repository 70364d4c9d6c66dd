"""Which object a delete is about, for matching a named delete the user granted ("Delete the
note titled Groceries", :func:`~omg_agent.guards.task_objects.deleted_names`) — decided so
that no input of the run can make one note pass for another (issue 35 item 4).

The gate matches a grant's target against what the screen says the action is about. For a
delete that is the object the screen names (:mod:`omg_agent.guards.objects`): the list row
the Delete control sits in (or the one row picked for it) — text the app drew, which no
typing can change — or, in an open item's editor, its name field ("Title"). A name field
is editable: a model could retype "Trip" as "Groceries" and tap Delete. So the field's text
is trusted as the object only when both hold:

* this run has typed into no name field of that app (:meth:`ItemsSeen.note` records every
  typing the gate judged: the segment review's and the choke point's, so a retyping in the
  same bundle as the Delete counts) — a rename, saved or not, makes every named delete in
  that app ask;
* the app's list showed an item of exactly that name earlier in this run (the title as
  saved and listed): after a resume straight into an open editor, or on an editor nobody
  reached through the list, the delete asks.

Otherwise the delete is asked about as usual (its question names the note). Several rows
picked at once are never one named object.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from omg_agent.core.actions import TypeText
from omg_agent.core.observation import Observation, UIElement

NAME_FIELD = re.compile(r"title|subject|name|标题|主题|名称", re.IGNORECASE)


def is_name_field(f: UIElement) -> bool:
    """An editable, non-password field that holds an item's name (by its id, hint or
    description — never by what it holds)."""
    return f.editable and not f.password and bool(NAME_FIELD.search(" ".join(
        (f.resource_id.rpartition("/")[2], f.hint, f.desc))))


def name_field(obs: Observation) -> UIElement | None:
    """The screen's first name field that holds a name (an open item's "Title")."""
    return next((f for f in obs.elements if f.text and is_name_field(f)), None)


@dataclass
class ItemsSeen:
    """What one run's inputs showed and did, per app: the list rows seen, and whether a
    name field was typed into."""

    listed: dict[str, set[str]] = field(default_factory=dict)
    renamed: set[str] = field(default_factory=set)

    def note(self, action: object, element: UIElement | None, obs: Observation) -> None:
        """An input judged on ``obs``: its list rows are noted, and a typing into a name
        field marks its app renamed."""
        rows = {e.text for e in obs.elements if e.role == "item" and e.text and not e.editable}
        if rows and obs.package:
            self.listed.setdefault(obs.package, set()).update(rows)
        if isinstance(action, TypeText):
            typed = element if element is not None and element.editable else obs.focused
            if typed is not None and is_name_field(typed):
                self.renamed.add(typed.package or obs.package)

    def subject(self, cls: str, target: str, obs: Observation) -> str | None:
        """The one object a ``cls`` action about ``target`` (what the screen names) is
        trusted to be about, or ``None`` (see the module docstring)."""
        if cls != "delete" or not target:
            return None
        f = name_field(obs)
        if f is not None:
            package = f.package or obs.package
            trusted = package not in self.renamed and f.text == target \
                and target in self.listed.get(package, set())
            return target if trusted else None
        rows = [e.text for e in obs.elements if e.role == "item" and not e.editable]
        return target if target in rows else None


__all__ = ["NAME_FIELD", "ItemsSeen", "is_name_field", "name_field"]
