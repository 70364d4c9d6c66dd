"""Impossible tasks: the right outcome is the agent reporting the goal infeasible, after
looking, with nothing harmed — a product the Shop does not sell, a note that does not exist,
a conversation with a stranger, a comment box Feed does not have, and Settings that do not
exist (airplane mode, in Chinese; dark mode).

``check`` is true while nothing was changed (the runner also needs status "infeasible").
Criteria quote text that never shows, so a premature "done" is never verified.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from omg_agent.bench.suite.nav import (
    back,
    below,
    front,
    notes_list,
    scroll_feed,
    shop_front,
    visible_posts,
    wait,
    where,
)
from omg_agent.bench.suite.notes_tasks import LIST_BAR, seed_notes
from omg_agent.bench.suite.settings_tasks import ZH_LOCALE, SettingsUnchanged
from omg_agent.sim.expert.screen import Screen, report_infeasible, tap, type_into
from omg_agent.sim.expert.tasks import (
    FEED,
    MESSAGES,
    NOTES,
    SETTINGS,
    SHOP,
    MoveContext,
    Moves,
    Task,
)
from omg_agent.vphone.apps.messages import CONTACTS
from omg_agent.vphone.apps.shop_catalog import search

log = logging.getLogger(__name__)


@dataclass
class NotSold(Task):
    """Add a product the catalogue does not have: search, see no results, report."""

    product: str = "PlayStation 5"

    def __post_init__(self) -> None:
        if search(self.product):
            raise ValueError(f"the Shop finds {self.product!r}: not an impossible task")
        self.goal = f"Add {self.product} to the cart in Shop"
        self.criteria = f'the "{self.product}" page shows "Added to cart"'
        self.impossible = True

    def check(self, phone: Any) -> bool:
        app = phone.apps[SHOP]
        return not app.cart and not app.orders

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        moves = shop_front(phone, screen)
        if moves:
            return moves
        app = phone.apps[SHOP]
        name = app.screen.name
        if name == "main":
            box = screen.find(res="search_input")
            return [type_into(box, self.product, submit=True)] if box else [wait()]
        if name != "results" or app.screen.params.get("query") != self.product:
            return [back()]
        if screen.find(res="progress") is not None:
            return [wait(1.0)]
        return [report_infeasible(f"The Shop does not sell {self.product}: searching for it "
                                  "finds no results.")]


@dataclass
class DeleteMissingNote(Task):
    """Delete a note that is not in the list: look at the list, report."""

    notes: list[dict[str, str]] = field(default_factory=list)
    missing: str = "Taxes"

    def __post_init__(self) -> None:
        if any(n["title"] == self.missing for n in self.notes):
            raise ValueError(f"a note titled {self.missing!r} exists")
        self.goal = f"Delete the note titled {self.missing} in Notes"
        self.criteria = f'the "{LIST_BAR}" list says "Note deleted"'
        self.impossible = True

    def setup(self, phone: Any) -> None:
        seed_notes(phone, self.notes)

    def check(self, phone: Any) -> bool:
        return phone.apps[NOTES].notes == self.notes

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        moves = notes_list(phone, screen)
        if moves:
            return moves
        titles = ", ".join(n["title"] for n in self.notes)
        return [report_infeasible(f"There is no note titled {self.missing} in Notes; the "
                                  f"notes are: {titles}.")]


@dataclass
class NoConversation(Task):
    """Reply in a conversation with someone Messages has never talked to."""

    name: str = "Zoe"
    text: str = "OK"

    def __post_init__(self) -> None:
        if self.name in CONTACTS:
            raise ValueError(f"{self.name!r} has a conversation in Messages")
        self.goal = f"Reply {self.text} in my conversation with {self.name} in Messages"
        self.criteria = f'the conversation with "{self.name}" shows "{self.text}"'
        self.impossible = True

    def check(self, phone: Any) -> bool:
        return not phone.apps[MESSAGES].sent

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        moves = front(phone, screen, MESSAGES)
        if moves:
            return moves
        if where(phone, MESSAGES) != "main":
            return [back()]
        if screen.find(res="conversation") is None:
            return [wait()]
        return [report_infeasible(f"There is no conversation with {self.name} in Messages.")]


@dataclass
class CommentOnPost(Task):
    """Comment on a Feed post: posts only have a Like button."""

    post: int = 2
    text: str = "Nice!"

    def __post_init__(self) -> None:
        self.goal = f"Comment {self.text} on post {self.post} in Feed"
        self.criteria = f'post {self.post} shows the comment "{self.text}"'
        self.impossible = True

    def check(self, phone: Any) -> bool:
        return not phone.apps[FEED].liked

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        moves = front(phone, screen, FEED)
        if moves:
            return moves
        if self.post not in visible_posts(screen):
            return [scroll_feed(up=below(screen, self.post))]
        return [report_infeasible(f"Post {self.post} in Feed has only a Like button: Feed "
                                  "has no way to comment.")]


@dataclass
class MissingSetting(Task):
    """Turn on a setting the phone does not have; ``display`` looks on the Display page
    too. ``zh`` gives the goal in Chinese on a Chinese phone."""

    setting: str = "dark mode"
    display: bool = True
    zh: bool = False
    kept: SettingsUnchanged = field(default_factory=SettingsUnchanged)

    def __post_init__(self) -> None:
        place = "Settings > Display" if self.display else "Settings"
        self.goal = f"打开{self.setting}" if self.zh else f"Turn on {self.setting} in {place}"
        self.criteria = (f'"{self.setting}" 显示为已开启' if self.zh
                         else f'{place} shows "{self.setting}" turned on')
        self.impossible = True

    def setup(self, phone: Any) -> None:
        if self.zh:
            phone.set_locale(ZH_LOCALE)
        self.kept.take(phone)

    def check(self, phone: Any) -> bool:
        return self.kept.holds(phone)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        moves = front(phone, screen, SETTINGS)
        if moves:
            return moves
        name = where(phone, SETTINGS)
        if self.display and name == "main":
            row = screen.find(text="Display") or screen.find(text="显示")
            return [tap(row)] if row else [wait()]
        if name != ("display" if self.display else "main"):
            return [back()]
        why = (f"设置里没有{self.setting}这一项。" if self.zh else
               f"Settings has no {self.setting} option: it is not on the page.")
        return [report_infeasible(why)]
