"""Messages and Feed tasks: send a message (English or Chinese), reply in a conversation,
text a new number (sensitive: the user confirms), text a contact the user names when asked;
like the first posts, one post (behind an ANR dialog), every post by one author, and a
post named in Chinese.

Feed criteria quote the like count of the last post to like, which the setup makes a
four-digit number no other post shows, so it is on screen only once that post is liked.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from omg_agent.bench.suite.nav import (
    answer,
    ask,
    like_exactly,
    new_message,
    open_thread,
    reply_in_thread,
    reply_route,
)
from omg_agent.bench.suite.settings_tasks import ZH_LOCALE
from omg_agent.sim.expert.screen import Screen
from omg_agent.sim.expert.tasks import FEED, MESSAGES, MoveContext, Moves, SendMessage, Task

log = logging.getLogger(__name__)


def in_thread(contact: str, text: str) -> str:
    return f'the conversation with "{contact}" shows "{text}"'


def was_sent(phone: Any, to: str, text: str) -> bool:
    return {"to": to, "text": text} in phone.apps[MESSAGES].sent


@dataclass
class SendTo(SendMessage):
    """Send a message from New message; ``zh`` gives the goal in Chinese on a Chinese
    phone."""

    zh: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.zh:
            self.goal = f"在信息里给{self.contact}发送：{self.text}"
        self.criteria = in_thread(self.contact, self.text)

    def setup(self, phone: Any) -> None:
        if self.zh:
            phone.set_locale(ZH_LOCALE)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        return [] if self.check(phone) else new_message(phone, screen, self.contact,
                                                        self.text)


@dataclass
class Reply(Task):
    """Answer inside the existing conversation with a contact."""

    contact: str = ""
    text: str = ""

    def __post_init__(self) -> None:
        self.goal = f"Reply {self.text} in the conversation with {self.contact} in Messages"
        self.criteria = in_thread(self.contact, self.text)

    def check(self, phone: Any) -> bool:
        return was_sent(phone, self.contact, self.text)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        return open_thread(phone, screen, self.contact, reply_route(self.text)) or \
            reply_in_thread(phone, screen, self.text)


@dataclass
class TextNewNumber(Task):
    """Text a number with no conversation yet — the user confirms before Send."""

    number: str = ""
    text: str = ""

    def __post_init__(self) -> None:
        self.goal = f"Send {self.text} to the new number {self.number} in Messages"
        self.criteria = in_thread(self.number, self.text)
        self.question = f"Send a message to {self.number}, a number you never texted?"

    def check(self, phone: Any) -> bool:
        return was_sent(phone, self.number, self.text)

    def answer_user(self, question: str) -> str | None:
        return "Yes."

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        return new_message(phone, screen, self.number, self.text, ctx, self.question)


@dataclass
class AskRecipient(Task):
    """Text 'my <relation>': the user names the contact when asked."""

    relation: str = ""
    contact: str = ""  # what the user answers
    text: str = ""

    def __post_init__(self) -> None:
        self.goal = (f"Send {self.text} to my {self.relation} in Messages; ask me who that "
                     "is")
        self.criteria = in_thread(self.contact, self.text)
        self.question = f"Who is your {self.relation}?"

    def check(self, phone: Any) -> bool:
        return was_sent(phone, self.contact, self.text)

    def answer_user(self, question: str) -> str | None:
        return self.contact

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        who = answer(ctx, self.question)
        if who is None:
            return [ask(self.question)]
        return open_thread(phone, screen, who, reply_route(self.text)) or reply_in_thread(
            phone, screen, self.text)


# -- Feed --------------------------------------------------------------------------------
def like_count_text(count: int, zh: bool) -> str:
    return f"{count} 人赞过" if zh else f"{count} likes"


@dataclass
class LikeSet(Task):
    """Leave exactly ``posts`` liked in Feed. ``marker`` (1000–1999) becomes the like count
    of the last of them; ``anr`` starts the run behind a "Feed isn't responding" dialog."""

    posts: list[int] = field(default_factory=list)
    marker: int = 1000
    zh: bool = False
    anr: bool = False
    author: str = ""  # set for "every post by <author> among the first <first> posts"
    first: int = 0

    def __post_init__(self) -> None:
        self.goal = self._goal()
        self.criteria = (f'post {max(self.posts)} shows '
                         f'"{like_count_text(self.marker + 1, self.zh)}"')

    def _goal(self) -> str:
        posts = sorted(self.posts)
        if self.author:
            return (f"Like every post by {self.author} among the first {self.first} posts "
                    "in Feed")
        if self.zh:
            return f"在动态里给第{posts[0]}条动态点赞" if len(posts) == 1 else (
                f"在动态里给前{len(posts)}条动态点赞")
        if len(posts) > 1 and posts == list(range(1, len(posts) + 1)):
            return f"Like the first {len(posts)} posts in Feed"
        return f"Like post {posts[0]} in Feed"

    def setup(self, phone: Any) -> None:
        app = phone.apps[FEED]
        if self.author:
            others = [a for a in dict.fromkeys(p["author"] for p in app.posts)
                      if a != self.author]
            for post in app.posts[: self.first]:
                if post["id"] in self.posts:
                    post["author"] = self.author
                elif post["author"] == self.author:
                    post["author"] = others[post["id"] % len(others)]
        app.posts[max(self.posts) - 1]["likes"] = self.marker
        if self.zh:
            phone.set_locale(ZH_LOCALE)
        if self.anr:
            phone.show_anr(FEED)

    def check(self, phone: Any) -> bool:
        return phone.apps[FEED].liked == set(self.posts)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        want = set(self.posts)
        return like_exactly(phone, screen, want, want)
