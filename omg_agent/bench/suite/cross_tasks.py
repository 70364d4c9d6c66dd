"""Cross-app tasks that carry a value in memory from one app to another: a Shop price into
Notes, an About-phone value into Notes, the last message of a contact into Notes, and a
Feed post's author as the recipient of a message.

The expert saves the value with ``mem_save from_screen`` (read off the element, so it cannot
be misremembered) and types ``$key``; when the noise makes it save a wrong value first, the
memory listing in the request no longer matches the truth and it reads the value again.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from omg_agent.bench.suite.nav import (
    POST_NUMBER,
    a_tap,
    back,
    front,
    note_route,
    open_thread,
    point,
    reply_in_thread,
    reply_route,
    saved,
    scroll_feed,
    visible_posts,
    wait,
    where,
    with_wrong,
    write_note,
)
from omg_agent.bench.suite.notes_tasks import LIST_BAR, listed
from omg_agent.bench.suite.social_tasks import in_thread, was_sent
from omg_agent.sim.expert.screen import Screen, launch, tap
from omg_agent.sim.expert.tasks import (
    FEED,
    MESSAGES,
    NOTES,
    SETTINGS,
    MoveContext,
    Moves,
    ShopPriceToNotes,
    Task,
)

log = logging.getLogger(__name__)


def read_then(element_id: int, key: str, package: str, route: Moves) -> Moves:
    """Save the element's text as ``$key``, open ``package`` and follow the anchored
    ``route`` there."""
    return [{"type": "mem_save", "key": key,
             "from_screen": {"target": {"kind": "element", "id": element_id}}},
            launch(package), *route]


def note_holds(phone: Any, title: str, value: str) -> bool:
    """A note titled ``title`` holds ``value`` as a whole (not inside a longer word or number):
    "save it in a note" does not say bare — a real model wrote "Android version: 14"."""
    pattern = re.compile(rf"(?<![\w.,]){re.escape(value)}(?![\w]|[.,]\w)")
    return any(n["title"].strip() == title and pattern.search(n["body"])
               for n in phone.apps[NOTES].notes)


@dataclass
class PriceToNotes(ShopPriceToNotes):
    """The original Shop → Notes task, with the price quoted in its criteria."""

    def setup(self, phone: Any) -> None:
        self.criteria = f'the "{LIST_BAR}" list shows "{self.price(phone)}"'


@dataclass
class AboutToNotes(Task):
    """Read one row of Settings > About phone into a new note."""

    row: str = "Build number"
    title: str = "Phone"

    def __post_init__(self) -> None:
        self.goal = (f"Find the {self.row} in Settings > About phone and save it in a note "
                     f"titled {self.title}")
        self.data_output = "about"
        self.criteria = f'a note titled "{self.title}" in the "{LIST_BAR}" list'
        self.value = ""

    def setup(self, phone: Any) -> None:
        self.value = phone.settings["_about"][self.row]
        self.criteria = listed(self.title, self.value)

    def check(self, phone: Any) -> bool:
        return note_holds(phone, self.title, self.value)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if saved(ctx, "about", self.value):
            return write_note(phone, screen, self.title, "$about", self.value)
        label = phone.apps[SETTINGS].t("About phone", "关于手机")
        moves = front(phone, screen, SETTINGS, [a_tap(text=label)])
        if moves:
            return with_wrong(ctx, "about", moves)
        name = where(phone, SETTINGS)
        if name == "main":
            row = screen.find(text=label)
            return with_wrong(ctx, "about", [tap(row)]) if row else [wait()]
        if name != "about":
            return [back()]
        value = screen.find(res="summary", text=self.value)
        route = note_route(self.title, "$about")
        return read_then(value.id, "about", NOTES, route) if value else [wait()]


@dataclass
class MessageToNotes(Task):
    """Copy the last message a contact sent into a new note."""

    contact: str = "Bob"
    text: str = ""  # the incoming message the setup adds
    title: str = "From Bob"

    def __post_init__(self) -> None:
        self.goal = (f"Copy the last message {self.contact} sent me in Messages into a new "
                     f"note titled {self.title}")
        self.data_output = "message"
        self.criteria = listed(self.title, self.text)

    def setup(self, phone: Any) -> None:
        phone.apps[MESSAGES].threads[self.contact].append({"from_me": False,
                                                          "text": self.text})

    def check(self, phone: Any) -> bool:
        return note_holds(phone, self.title, self.text)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if saved(ctx, "message", self.text):
            return write_note(phone, screen, self.title, "$message", self.text)
        moves = open_thread(phone, screen, self.contact)
        if moves:
            return with_wrong(ctx, "message", moves)
        bubble = [e for e in screen.all(res="message_text") if e.text == self.text]
        route = note_route(self.title, "$message")
        return read_then(bubble[-1].id, "message", NOTES, route) if bubble else [wait()]


def _author_of(screen: Screen, post: int) -> int | None:
    """The element id of post ``post``'s author name, when it is on screen."""
    elements = screen.elements
    for i, e in enumerate(elements):
        m = POST_NUMBER.search(e.text) if e.res == "meta" else None
        if m and int(m.group(1)) == post:
            before = elements[i - 1] if i else None
            return before.id if before is not None and before.res == "author" else None
    return None


@dataclass
class AuthorToMessage(Task):
    """Find who wrote a Feed post and send them a message."""

    post: int = 3
    author: str = "Alice"  # the setup makes this contact the post's author
    text: str = ""

    def __post_init__(self) -> None:
        self.goal = (f"Find who wrote post {self.post} in Feed and send them {self.text} in "
                     "Messages")
        self.data_output = "author"
        self.criteria = in_thread(self.author, self.text)

    def setup(self, phone: Any) -> None:
        phone.apps[FEED].posts[self.post - 1]["author"] = self.author

    def check(self, phone: Any) -> bool:
        return was_sent(phone, self.author, self.text)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        to_author = [a_tap(res="conversation", desc=self.author), *reply_route(self.text)]
        if saved(ctx, "author", self.author):
            return open_thread(phone, screen, self.author, to_author[1:]) or reply_in_thread(
                phone, screen, self.text)
        moves = front(phone, screen, FEED)
        if moves:
            return with_wrong(ctx, "author", moves)
        author = _author_of(screen, self.post)
        if author is not None:  # the name is on this screen: the route may use it
            return read_then(author, "author", MESSAGES, to_author)
        shown = visible_posts(screen)
        if self.post in shown:  # its header is cut off at the top: pull the list down a bit
            return [{"type": "swipe", "from": point(500, 400), "to": point(500, 600)}]
        return [scroll_feed(up=not shown or self.post > max(shown))]
