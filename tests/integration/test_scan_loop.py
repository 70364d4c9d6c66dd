"""A list question costs one scan turn, not one model call per screen (issue 27).

"Which two products are the cheapest?" on Shop's 24-product list and "which of the first 40
posts are by X?" on Feed, asked through the whole loop — vphone over the real adb server,
the real openai client, a model double that reads what the request shows: one double scans
and answers from the item list the next request carries; the other reads the list a screen
at a time, as a model without scan must. The answer is checked against the app's own data,
the cost in model requests.
"""

from __future__ import annotations

import json
import re
from contextlib import ExitStack
from typing import Any

from omg_agent.brain.agent import open_agent
from omg_agent.core.actions import AnchorTarget, Launch, Tap
from omg_agent.drivers.adb import AdbDriver
from omg_agent.sim.expert.runner import sim_settings, with_overrides
from omg_agent.sim.expert.screen import Screen, request_text
from omg_agent.sim.model_double import ModelDouble, contract_name
from omg_agent.vphone.apps.shop_catalog import CATALOGUE

SHOP = "com.omg.shop"
FEED = "com.omg.feed"
GOAL = "Which two products in Shop's All products list are the cheapest?"
ITEM = re.compile(r"^#\d+ ¥([\d,]+)\.\d\d \| (.+?) \[", re.M)


def bundle(actions: list[dict[str, Any]] | None = None, **flags: Any) -> str:
    return json.dumps({"thought": "reading the list", "last_action_result": "success",
                       "execute_now": {"intent": "read the list", "actions": actions}
                       if actions else None, **flags}, ensure_ascii=False)


def answer(prices: dict[str, int]) -> str:
    two = sorted(prices, key=prices.__getitem__)[:2]
    return bundle(goal_complete=True, step_complete=True, answer=" and ".join(two))


class Scanner:
    """Scans once, then answers from the item list the scan's report put in the request."""

    def reply(self, request: dict[str, Any]) -> str:
        assert contract_name(request) == "DecisionBundle"
        found = ITEM.findall(request_text(request))
        if not found:
            return bundle([{"type": "scan"}])
        return answer({name: int(price.replace(",", "")) for price, name in found})


class PageReader:
    """Reads each screen's rows, swipes on, and answers once a swipe shows nothing new."""

    def __init__(self) -> None:
        self.prices: dict[str, int] = {}

    def reply(self, request: dict[str, Any]) -> str:
        assert contract_name(request) == "DecisionBundle"
        rows = Screen(request_text(request)).all(res="product_item")
        new = {e.desc: int(e.text[1:].split(".")[0].replace(",", "")) for e in rows
               if e.desc not in self.prices}
        if self.prices and not new:
            return answer(self.prices)
        self.prices.update(new)
        return bundle([{"type": "swipe", "direction": "up", "distance": 600}])


def ask(vphone, tmp_path, policy, goal: str = GOAL) -> tuple[Any, int]:
    with ExitStack() as stack:
        driver = stack.enter_context(AdbDriver(vphone.serial))
        if goal == GOAL:
            driver.execute([Launch(app=SHOP)])
            if any(e.text == "No thanks" for e in driver.observe().elements):
                driver.execute([Tap(target=AnchorTarget(text="No thanks"))])
            driver.execute([Tap(target=AnchorTarget(text="All products 全部商品"))])
        else:
            driver.execute([Launch(app=FEED)])
        driver.observe()  # waits while the list loads
        double = stack.enter_context(ModelDouble(policy))
        settings = with_overrides(sim_settings(double.base_url, tmp_path, max_steps=30),
                                  {"planning": "unified", "confirm_done": "never"})
        result = open_agent(stack, driver, settings, goal, run_dir=tmp_path / "run").run(goal)
        return result, len(double.requests)


def cheapest_two(vphone) -> str:
    prices = vphone.phone.apps[SHOP].prices
    names = {p.pid: p.name for p in CATALOGUE}
    return " and ".join(names[pid] for pid in sorted(prices, key=prices.__getitem__)[:2])


def test_the_two_cheapest_products_take_one_scan_turn_and_the_answer(vphone, tmp_path):
    result, requests = ask(vphone, tmp_path, Scanner())
    assert (result.status, result.answer) == ("done", cheapest_two(vphone))
    assert requests == 2  # the scan, then the answer: no call per screen


def test_without_scan_the_same_question_costs_a_call_per_screen(vphone, tmp_path):
    result, requests = ask(vphone, tmp_path, PageReader())
    assert (result.status, result.answer) == ("done", cheapest_two(vphone))
    assert requests >= 4  # 24 rows, ~10 a screen: three screens, the end, the answer


AUTHOR = "张伟"
POSTS_GOAL = f"Which of the first 40 posts in Feed are by {AUTHOR}?"
POST = re.compile(r"^#\d+ (.+?) \| .*?Post (\d+) \|", re.M)


def by_author(pairs: list[tuple[str, int]]) -> str:
    return bundle(goal_complete=True, step_complete=True, answer=", ".join(
        f"post {n}" for author, n in sorted(set(pairs), key=lambda p: p[1])
        if author == AUTHOR and n <= 40))


class PostScanner:
    def reply(self, request: dict[str, Any]) -> str:
        found = POST.findall(request_text(request))
        if not found:
            return bundle([{"type": "scan", "count": 40}])
        return by_author([(a, int(n)) for a, n in found])


class PostReader:
    """Pairs each author with the post number under it, a screen at a time."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []

    def reply(self, request: dict[str, Any]) -> str:
        author, new = "", 0
        for e in Screen(request_text(request)).elements:
            if e.res == "author":
                author = e.text
            elif e.res == "meta" and author and (m := re.search(r"Post (\d+)", e.text)):
                pair = (author, int(m.group(1)))
                new += pair not in self.seen
                self.seen += [pair] if pair not in self.seen else []
        if max((n for _, n in self.seen), default=0) >= 40 or (self.seen and not new):
            return by_author(self.seen)
        return bundle([{"type": "swipe", "direction": "up", "distance": 600}])


def test_every_post_by_an_author_among_40_takes_one_scan_turn_not_one_per_screen(vphone,
                                                                                  tmp_path):
    posts = vphone.phone.apps[FEED].state()["posts"][:40]
    truth = ", ".join(f"post {p['id']}" for p in posts if p["author"] == AUTHOR)
    # the reader first: it reads from where the list is; the scan goes back to the top
    paged, page_requests = ask(vphone, tmp_path / "pages", PostReader(), POSTS_GOAL)
    scanned, scan_requests = ask(vphone, tmp_path / "scan", PostScanner(), POSTS_GOAL)
    assert scanned.answer == paged.answer == truth
    assert scan_requests == 2
    assert page_requests >= 10, page_requests  # 40 posts, ~3 a screen
