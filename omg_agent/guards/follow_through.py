"""A delete's own confirmation dialog is the same delete, asked once (issue 35: the gate asks
no one what they already said).

Apps confirm a delete twice: the Delete a user taps (a menu item, an editor's button) and
the "Delete …?" dialog it opens. When the first was let through — by the task's own words
or by the human's yes — the gate remembers it (:attr:`Gate.following`: its app and its
objects), and the dialog's Delete that comes next is allowed as that delete's
confirmation: a delete in a window over the same app's screen (a dialog, a menu) naming no
other object. It lasts only while every screen judged since shows such a window: a Cancel
that closes the dialog, or a trip to another item, ends it, so a yes to one item never
deletes another.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from omg_agent.core.observation import Observation, UIElement
from omg_agent.perception.listpages import OVER_APP

if TYPE_CHECKING:
    from omg_agent.guards.sensitive import Sensitivity

Following = tuple[str, tuple[str, ...]] | None  # (the app's package, the delete's objects)


def still_following(following: Following, obs: Observation) -> Following:
    """``following`` while ``obs`` shows a window over the same app's screen, else None."""
    if following is None or obs.package != following[0]:
        return None
    return following if any(e.window in OVER_APP for e in obs.elements) else None


def confirms(following: Following, found: Sensitivity, element: UIElement | None) -> bool:
    """Whether ``found`` (on ``element``) is the app's confirmation of ``following``."""
    return (found.cls == "delete" and following is not None and element is not None
            and element.window in OVER_APP and found.package == following[0]
            and set(found.objects) <= set(following[1]))
