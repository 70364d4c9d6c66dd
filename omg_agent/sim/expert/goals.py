"""Goal text → expert task: which sentences ``--model sim`` and the bench understand."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from omg_agent.sim.expert.tasks import (
    AddToCart,
    Brightness,
    CreateNote,
    LikePosts,
    Login,
    SendMessage,
    ShopPriceToNotes,
    Switch,
    Task,
)

log = logging.getLogger(__name__)


@dataclass
class Recogniser:
    """Maps goal text to a task instance."""

    pattern: re.Pattern[str]
    build: Any
    example: str


RECOGNISERS = (
    Recogniser(re.compile(r"find the price of (.+?) in shop and save it in notes", re.I),
               lambda m: ShopPriceToNotes(product=m.group(1)),
               "Find the price of MacBook Air 13 in Shop and save it in Notes"),
    Recogniser(re.compile(r"turn (on|off) (wi-?fi|bluetooth)", re.I),
               lambda m: Switch(attr="bluetooth" if m.group(2).lower() == "bluetooth"
                                else "wifi", on=m.group(1).lower() == "on"),
               "Turn off Wi-Fi / Turn on Bluetooth"),
    Recogniser(re.compile(r"create a note titled (.+?) with body (.+)", re.I),
               lambda m: CreateNote(title=m.group(1), body=m.group(2)),
               "Create a note titled Groceries with body milk, eggs, bread"),
    Recogniser(re.compile(r"send (.+) to (\S+) in messages", re.I),
               lambda m: SendMessage(contact=m.group(2), text=m.group(1)),
               "Send See you at 7 to Bob in Messages"),
    Recogniser(re.compile(r"like the first (\d+) posts in feed", re.I),
               lambda m: LikePosts(count=int(m.group(1))),
               "Like the first 3 posts in Feed"),
    Recogniser(re.compile(r"add (.+?) to the cart in shop", re.I),
               lambda m: AddToCart(product=m.group(1)),
               "Add AirPods Pro to the cart in Shop"),
    Recogniser(re.compile(r"set (?:display )?brightness to about (\d+)\s*%", re.I),
               lambda m: Brightness(level=int(m.group(1))),
               "Set display brightness to about 30%"),
    Recogniser(re.compile(r"sign in to login as (\S+) with password (\S+)", re.I),
               lambda m: Login(user=m.group(1), password=m.group(2)),
               "Sign in to Login as demo with password <password>"),
)


def task_for_goal(goal: str) -> Task | None:
    """The task a goal's text names, or None."""
    for rec in RECOGNISERS:
        m = rec.pattern.search(goal.strip().rstrip("."))
        if m:
            try:
                return rec.build(m)
            except ValueError as exc:  # e.g. a product the Shop does not sell
                log.info("goal %r: %s", goal, exc)
                return None
    return None


def known_goals() -> list[str]:
    return [rec.example for rec in RECOGNISERS]


def bench_tasks() -> list[Task]:
    """The benchmark's tasks, in table order."""
    return [ShopPriceToNotes(), Switch(attr="wifi", on=False),
            Switch(attr="bluetooth", on=True), CreateNote(),
            SendMessage(), LikePosts(count=4), AddToCart(), Brightness(level=30), Login()]
