"""A delete's own confirmation dialog is the same delete, asked once (issue 35: the gate asks
no one what they already said).

Apps confirm a delete twice: the Delete a user taps (a menu item, an editor's button) and
the "Delete …?" dialog it opens. When the first was let through — by the task's own words
or by the human's yes — the gate remembers it (:attr:`Gate.following`), and the Delete of
the dialog that comes next is allowed as that delete's confirmation.

What is carried is one consent, not a mode, so it is bound as tightly as a yes is
(attack round "follow-through", docs/attack-round-consent.md):

* it holds on exactly one screen: the first screen judged after the one the delete was let
  through on (what that delete opened). Any other screen judged after it — the list the
  delete returns to, a Cancel, another item's menu, a second dialog of the same shape —
  ends it; the screen it was let through on never confirms itself;
* that screen must show a window of the app itself over its screen (a dialog, a menu) — not
  the system's, not another app's overlay — and the Delete must sit in that window;
* the Delete must name no object other than the first one's;
* a confirmation carries nothing further: the Delete it lets go does not arm another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from omg_agent.core.observation import Observation, UIElement

if TYPE_CHECKING:
    from omg_agent.guards.sensitive import Sensitivity

APP_WINDOW = "popup"  # the app's own dialog or menu over its screen (perception/windows.py)
Look = tuple[tuple[object, ...], ...]


@dataclass(frozen=True)
class Following:
    """A delete let through: its app, its objects, the screen it was let through on, and the
    one screen after it (``None`` until one is judged) where its dialog may confirm it."""

    package: str
    objects: tuple[str, ...]
    armed_on: Look
    dialog: Look | None = None


def look(obs: Observation) -> Look:
    """What tells one screen from another here: every element's window, role, words and
    place (a field's typed text left out: the segment's own typing changes no screen)."""
    return tuple((e.window, e.package, e.role, "" if e.editable else e.text, e.desc,
                  e.bounds) for e in obs.elements)


def arm(found: Sensitivity, obs: Observation | None) -> Following | None:
    """The consent a delete let through (``found``, on ``obs``) carries to its dialog;
    ``None`` for anything else, for a confirmation itself, or with no screen to bind it."""
    if found.cls != "delete" or found.follows or obs is None:
        return None
    return Following(found.package or obs.package, found.objects, look(obs))


def still_following(following: Following | None, obs: Observation) -> Following | None:
    """``following`` as ``obs`` leaves it: kept on the screen it was let through on and on
    the first screen after it, while that one shows the app's own window over its screen;
    ended by anything else."""
    if following is None or obs.package != following.package:
        return None
    seen = look(obs)
    if seen == following.armed_on or seen == following.dialog:
        return following
    if following.dialog is not None or not any(_app_window(e, following) for e in obs.elements):
        return None
    return Following(following.package, following.objects, following.armed_on, seen)


def confirms(following: Following | None, found: Sensitivity, element: UIElement | None,
             obs: Observation) -> bool:
    """Whether ``found`` (on ``element`` of ``obs``) is the app's confirmation of
    ``following``: a delete in the app's own window on the screen after it, naming no
    other object."""
    return (found.cls == "delete" and following is not None and element is not None
            and following.dialog is not None and look(obs) == following.dialog
            and _app_window(element, following) and found.package == following.package
            and set(found.objects) <= set(following.objects))


def _app_window(e: UIElement, following: Following) -> bool:
    return e.window == APP_WINDOW and e.package in ("", following.package)
