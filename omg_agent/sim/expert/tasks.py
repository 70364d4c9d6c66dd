"""Vphone tasks the expert policy knows: goal text, setup, a check on the TRUE app state, and
the expert's next moves.

``moves(phone, screen, ctx)`` returns the actions a careful model would take next from this
screen, in order: the policy sends the first one (single-action bundling) or all of them up
to the first boundary (multi-action bundling). An empty list means "nothing left to do".
``check(phone)`` reads ``phone.apps[pkg]`` — never the agent's claim.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from omg_agent.core.geometry import ScreenGeometry
from omg_agent.sim.expert.screen import (
    Screen,
    anchor,
    back,
    fg,
    launch,
    tap,
    tap_at,
    type_at,
    type_into,
    wait,
    where,
)
from omg_agent.sim.replies import FEED, LOGIN, MESSAGES, NOTES, SETTINGS, SHOP
from omg_agent.vphone.apps.shop_catalog import BY_ID, format_price

log = logging.getLogger(__name__)

WRONG_PRICE = "¥1.00"
Moves = list[dict[str, Any]]


@dataclass
class MoveContext:
    """What a task may know beyond the screen: the memory listing, and noise switches."""

    request_text: str = ""
    wrong_memory: bool = False


@dataclass
class Task:
    """A goal on a fresh vphone. Subclasses set ``goal`` and implement the three hooks.

    Suite metadata: ``id`` (stable, unique in the suite), ``tags`` (difficulty tags such as
    single-app, cross-app, needs-memory, repetitive, has-hazard, needs-ask-user, sensitive,
    impossible, zh) and ``impossible``: the right outcome is the agent reporting the goal
    infeasible (status ``infeasible``) with ``check(phone)`` still true (nothing harmed).
    ``moves`` may return ``[report_infeasible(reason)]`` (see :mod:`.screen`).
    Moves after a boundary must target anchors (text / resource-id / desc), never element
    ids: the executor resolves them on the new screen or stops the bundle there.
    """

    goal: str = ""
    data_output: str = ""
    criteria: str = "the goal is visible on the screen"
    id: str = ""
    tags: tuple[str, ...] = ()
    impossible: bool = False

    def setup(self, phone: Any) -> None:
        """Make the run reproducible (e.g. Shop's promo popup); the default does nothing."""

    def evidence(self, phone: Any) -> list[dict[str, Any]]:
        """Checks a careful planner quotes as evidence of this task's end state, naming what
        the run changed (the default: none beyond the criteria's quotes)."""
        return []

    def check(self, phone: Any) -> bool:
        raise NotImplementedError

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        raise NotImplementedError


def _product_id(name: str) -> str:
    for pid, product in BY_ID.items():
        if product.name.lower() == name.lower():
            return pid
    raise ValueError(f"no product {name!r} in the Shop catalogue")


def _to_product(phone: Any, screen: Screen, pid: str, ctx: MoveContext) -> Moves:
    """Moves that bring the Shop to product ``pid``'s page (empty once there)."""
    shop = phone.apps[SHOP]
    name = BY_ID[pid].name
    search = [type_at(anchor(res="search_input"), name, submit=True),
              tap_at(anchor(res="product_item", desc=name))]
    if fg(phone) != SHOP:
        return [launch(SHOP), *search]
    if shop.popup_visible:
        no = screen.find(text="No thanks") or screen.find(res="close")
        return [tap(no) if no else back(), *search]  # back closes the popup too
    page = shop.screen.name
    if page == "product" and shop.screen.params.get("pid") == pid:
        return []
    if page == "main":
        box = screen.find(res="search_input")
        return [type_into(box, name, submit=True), search[1]] if box else [wait(1.0)]
    if page == "results":
        if screen.find(res="progress") is not None:
            return [wait(1.0)]
        row = screen.find(res="product_item", desc=name) or screen.find(text=name)
        if row is None:
            return [back()]
        extra = ([{"type": "mem_save", "key": "price", "value": WRONG_PRICE}]
                 if ctx.wrong_memory else [])
        return [*extra, tap(row)]
    return [back()]


@dataclass
class ShopPriceToNotes(Task):
    product: str = "MacBook Air 13"

    def __post_init__(self) -> None:
        self.product = BY_ID[_product_id(self.product)].name  # ValueError: not sold
        self.goal = f"Find the price of {self.product} in Shop and save it in Notes"
        self.data_output = "price"
        self.criteria = "a note shows the product's price"

    def price(self, phone: Any) -> str:
        return format_price(phone.apps[SHOP].prices[_product_id(self.product)])

    def check(self, phone: Any) -> bool:
        """A note holds the price (its body, or its title: "save it in Notes" does not say
        where; a real model wrote "Mate 60 price in Shop: ¥6,799.00")."""
        price = self.price(phone)
        return any(price in n["body"] or price in n["title"]
                   for n in phone.apps[NOTES].notes)

    def evidence(self, phone: Any) -> list[dict[str, Any]]:
        """The note the run wrote, as the notes list names it (its title)."""
        price = self.price(phone)
        titles = [n["title"] or "(untitled)" for n in phone.apps[NOTES].notes
                  if price in n["body"] or price in n["title"]]
        return [{"kind": "element", "text": titles[-1], "match": "contains"}] if titles else []

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        saved = f'$price = "{self.price(phone)}"' in ctx.request_text
        if not saved:
            pid = _product_id(self.product)
            moves = _to_product(phone, screen, pid, ctx)
            if moves:
                return [*moves, {"type": "mem_save", "key": "price", "from_screen": {
                    "target": anchor(res="price")}}, launch(NOTES), *_NEW_NOTE_BODY]
            price = screen.find(res="price")
            if price is None:
                return [wait(0.5)]
            return [{"type": "mem_save", "key": "price",
                     "from_screen": {"target": {"kind": "element", "id": price.id}}},
                    launch(NOTES), *_NEW_NOTE_BODY]
        return _write_note(phone, screen, None, "$price", shown=self.price(phone))


_NEW_NOTE_BODY = [tap_at(anchor(res="fab_new")), type_at(anchor(res="body_input"), "$price"),
                  tap_at(anchor(res="save"))]


def _write_note(phone: Any, screen: Screen, title: str | None, body: str,
                shown: str | None = None) -> Moves:
    fill = ([type_at(anchor(res="title_input"), title)] if title is not None else []) + [
        type_at(anchor(res="body_input"), body), tap_at(anchor(res="save"))]
    if fg(phone) != NOTES:
        return [launch(NOTES), tap_at(anchor(res="fab_new")), *fill]
    if where(phone, NOTES) != "editor":
        fab = screen.find(res="fab_new")
        return [tap(fab), *fill] if fab else [wait(0.5)]
    notes = phone.apps[NOTES]
    moves: Moves = []
    title_box, body_box = screen.find(res="title_input"), screen.find(res="body_input")
    if title is not None and title_box is not None and notes.field("title") != title:
        moves.append(type_into(title_box, title))
    if body_box is not None and notes.field("body") != (shown or body):
        moves.append(type_into(body_box, body))
    save = screen.find(res="save")
    return [*moves, tap(save)] if save else moves or [wait(0.5)]


@dataclass
class CreateNote(Task):
    title: str = "Groceries"
    body: str = "milk, eggs, bread"

    def __post_init__(self) -> None:
        self.goal = f"Create a note titled {self.title} with body {self.body}"
        self.criteria = "the note list shows the new note"

    def check(self, phone: Any) -> bool:
        return {"title": self.title, "body": self.body} in phone.apps[NOTES].notes

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        return [] if self.check(phone) else _write_note(phone, screen, self.title, self.body)


@dataclass
class Switch(Task):
    """Turn a Settings switch (``wifi`` / ``bluetooth``) on or off."""

    attr: str = "wifi"
    on: bool = False

    def __post_init__(self) -> None:
        name = {"wifi": "Wi-Fi", "bluetooth": "Bluetooth"}[self.attr]
        self.goal = f"Turn {'on' if self.on else 'off'} {name}"
        self.criteria = f"the {name} switch is {'on' if self.on else 'off'}"

    def setup(self, phone: Any) -> None:
        setattr(phone.apps[SETTINGS], self.attr, not self.on)

    def evidence(self, phone: Any) -> list[dict[str, Any]]:
        return [{"kind": "element", "resource_id": f"{self.attr}_switch", "checked": self.on}]

    def check(self, phone: Any) -> bool:
        return getattr(phone.apps[SETTINGS], self.attr) == self.on

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        flip = tap_at(anchor(res=f"{self.attr}_switch"))
        if fg(phone) != SETTINGS or where(phone, SETTINGS) != "main":
            return [launch(SETTINGS) if fg(phone) != SETTINGS else back(), flip]
        switch = screen.find(res=f"{self.attr}_switch")
        return [tap(switch)] if switch else [wait(0.5)]


@dataclass
class Brightness(Task):
    level: int = 30

    def __post_init__(self) -> None:
        self.goal = f"Set display brightness to about {self.level}%"
        self.criteria = f"the Display screen shows Brightness: about {self.level}%"

    def check(self, phone: Any) -> bool:
        return abs(phone.apps[SETTINGS].brightness - self.level) <= 5

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        if fg(phone) != SETTINGS:
            return [launch(SETTINGS), tap_at(anchor(text="Display"))]
        name = where(phone, SETTINGS)
        if name == "main":
            row = screen.find(text="Display")
            return [tap(row)] if row else [wait(0.5)]
        if name != "display":
            return [back()]
        bar = phone.find_view(resource_id=f"{SETTINGS}:id/brightness")
        if bar is None:
            return [wait(0.5)]
        left, top, right, bottom = bar.bounds
        prof = phone.profile
        x, y = ScreenGeometry(prof.width, prof.height).to_normalized(
            (left + (right - left) * self.level / 100, (top + bottom) / 2))
        return [{"type": "tap", "target": {"kind": "point", "x": x, "y": y}}]


@dataclass
class SendMessage(Task):
    contact: str = "Bob"
    text: str = "See you at 7"

    def __post_init__(self) -> None:
        self.goal = f"Send {self.text} to {self.contact} in Messages"
        self.criteria = f"the conversation with {self.contact} shows the message"

    def check(self, phone: Any) -> bool:
        return {"to": self.contact, "text": self.text} in phone.apps[MESSAGES].sent

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        fill = [type_at(anchor(res="recipient"), self.contact),
                type_at(anchor(res="body"), self.text), tap_at(anchor(res="send"))]
        if fg(phone) != MESSAGES:
            return [launch(MESSAGES), tap_at(anchor(res="fab_new")), *fill]
        name = where(phone, MESSAGES)
        if name == "main":
            fab = screen.find(res="fab_new")
            return [tap(fab), *fill] if fab else [wait(0.5)]
        if name != "new":
            return [back()]
        app = phone.apps[MESSAGES]
        to, body, send = (screen.find(res=r) for r in ("recipient", "body", "send"))
        moves = [type_into(to, self.contact)] if to and app.field("to") != self.contact else []
        moves += [type_into(body, self.text)] if body and app.field("body") != self.text else []
        return [*moves, tap(send)] if send else moves or [wait(0.5)]


@dataclass
class LikePosts(Task):
    count: int = 3

    def __post_init__(self) -> None:
        self.goal = f"Like the first {self.count} posts in Feed"
        self.criteria = f"posts 1 to {self.count} show Liked"

    def check(self, phone: Any) -> bool:
        return set(range(1, self.count + 1)) <= phone.apps[FEED].liked

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        liked = phone.apps[FEED].liked
        todo = [n for n in range(1, self.count + 1) if n not in liked]
        likes = [tap_at(anchor(res="like", desc=f"Like post {n}")) for n in todo]
        if fg(phone) != FEED:
            return [launch(FEED), *likes]
        for i, n in enumerate(todo):
            button = screen.find(res="like", desc=f"Like post {n}")
            if button is not None:
                return [tap(button), *likes[i + 1:]]
        feed = screen.find(res="feed")
        start = {"kind": "element", "id": feed.id} if feed else None
        swipe: dict[str, Any] = {"type": "swipe", "direction": "up", "distance": 400}
        return [{**swipe, "start": start} if start else swipe]


@dataclass
class AddToCart(Task):
    product: str = "AirPods Pro"

    def __post_init__(self) -> None:
        self.product = BY_ID[_product_id(self.product)].name  # ValueError: not sold
        self.goal = f"Add {self.product} to the cart in Shop"
        self.criteria = "the cart badge counts the product"

    def check(self, phone: Any) -> bool:
        return _product_id(self.product) in phone.apps[SHOP].cart

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        moves = _to_product(phone, screen, _product_id(self.product),
                            MoveContext(ctx.request_text))
        if moves:
            return [*moves, tap_at(anchor(res="add_to_cart"))]
        add = screen.find(res="add_to_cart")
        return [tap(add)] if add else [wait(0.5)]


@dataclass
class Login(Task):
    """Sign in; without a password given, the phone's valid one is put in the goal."""

    user: str = "demo"
    password: str | None = None

    def __post_init__(self) -> None:
        self._set_goal()
        self.criteria = "the app welcomes the user"

    def _set_goal(self) -> None:
        self.goal = (f"Sign in to Login as {self.user} with password "
                     f"{self.password or '<the valid password>'}")

    def setup(self, phone: Any) -> None:
        if self.password is None:
            self.password = phone.apps[LOGIN].valid_password
            self._set_goal()

    def check(self, phone: Any) -> bool:
        app = phone.apps[LOGIN]
        return bool(app.logged_in and app.user == self.user)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        app, password = phone.apps[LOGIN], self.password or ""
        if fg(phone) != LOGIN:
            return [launch(LOGIN), type_at(anchor(res="username"), self.user),
                    type_at(anchor(res="password"), password), tap_at(anchor(res="sign_in"))]
        if where(phone, LOGIN) != "main":
            return [back()]
        user_box, pass_box = screen.find(res="username"), screen.find(res="password")
        moves = [type_into(user_box, self.user)] if user_box and app.field(
            "username") != self.user else []
        moves += [type_into(pass_box, password)] if pass_box and app.field(
            "password") != password else []
        sign_in = screen.find(res="sign_in")
        return [*moves, tap(sign_in)] if sign_in else moves or [wait(0.5)]
