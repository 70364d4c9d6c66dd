"""The task suite: every task's check fails on a near-miss end state set directly on the
phone; seeded parameters; ``select``.

That the check passes after the expert runs the task end to end (real openai client, model
double, adb server, vphone) is an integration test:
``tests/integration/test_suite_expert_runs.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from suite_tools import task_named

from omg_agent.bench.suite import TAGS, select, suite_tasks
from omg_agent.bench.suite.entries import CORE
from omg_agent.sim.expert.tasks import (
    FEED,
    LOGIN,
    MESSAGES,
    NOTES,
    SETTINGS,
    SHOP,
    WRONG_PRICE,
    _product_id,
)

SEED = 0  # the suite's parameter seed
PHONE_SEED = 3  # the phone's seed in these tests
IDS = [t.id for t in suite_tasks(SEED)]
# the near misses of the first 38 tasks live here; each family of issue 36 tests its own
# templates in tests/unit/bench/test_suite_checks_<family>.py
CORE_IDS = [e.id for e in CORE]
CJK = re.compile(r"[\u4e00-\u9fff]")


# -- near misses: one wrong end state per task, set on the app state directly --------------
def _other(pool: list[Any] | tuple[Any, ...], value: Any) -> Any:
    return next(v for v in pool if v != value)


def _note(phone: Any, title: str, body: str) -> None:
    phone.apps[NOTES].notes.append({"title": title, "body": body})


def _send(phone: Any, to: str, text: str) -> None:
    phone.apps[MESSAGES]._record(to, text)


def _cart(phone: Any, **qty: int) -> None:
    phone.apps[SHOP].cart = {_product_id(name): n for name, n in qty.items()}


def _contacts(phone: Any) -> list[str]:
    return list(phone.apps[MESSAGES].threads)


def _flip(attr: str) -> Callable[[Any, Any], None]:
    def flip(phone: Any, task: Any) -> None:
        app = phone.apps[SETTINGS]
        setattr(app, attr, not getattr(app, attr))
    return flip


def _delete_other(phone: Any, t: Any) -> None:
    del phone.apps[NOTES].notes[(t.index + 1) % len(t.notes)]


def _remove_other(phone: Any, t: Any) -> None:
    left = [n for i, n in enumerate(t.products) if i != (t.index + 1) % 3]
    _cart(phone, **dict.fromkeys(left, 1))


def _unpaid(phone: Any, t: Any) -> None:
    _cart(phone, **{t.product: 1})
    phone.apps[SHOP].orders.append({"items": [{"id": _product_id(t.product), "qty": 2}]})


def _like(posts: Callable[[Any], set[int]]) -> Callable[[Any, Any], None]:
    def like(phone: Any, t: Any) -> None:
        phone.apps[FEED].liked = posts(t)
    return like


def _other_user(phone: Any, t: Any) -> None:
    app = phone.apps[LOGIN]
    app.logged_in, app.user = True, "guest"


def _wrong_body(phone: Any, t: Any) -> None:
    _note(phone, t.title, t.body + " (draft)")


NEAR_MISS: dict[str, Callable[[Any, Any], None]] = {
    "settings.wifi": lambda phone, t: None,  # the switch left as the setup put it
    "settings.bluetooth": _flip("wifi"),  # the other switch flipped instead
    "settings.bluetooth.zh": lambda phone, t: None,
    "settings.wifi_and_bluetooth": _flip("wifi"),  # only one of the two
    "settings.brightness": lambda phone, t: setattr(phone.apps[SETTINGS], "brightness",
                                                    t.level + 8),
    "notes.create": _wrong_body,
    "notes.create.zh": lambda phone, t: _note(phone, t.title + "草稿", t.body),
    "notes.edit_body": lambda phone, t: phone.apps[NOTES].notes.__setitem__(
        (t.index + 1) % 3, {**t.notes[(t.index + 1) % 3], "body": t.body}),
    "notes.delete": _delete_other,
    "notes.ask_body": _wrong_body,
    "shop.add_to_cart": lambda phone, t: _cart(phone, **{t.product: 2}),
    "shop.add_to_cart.zh": lambda phone, t: _cart(phone, **{
        _other(["小米 14", "华为 Mate 60"], t.product): 1}),
    "shop.add_quantity": lambda phone, t: _cart(phone, **{
        name: n - 1 for name, n in t.wanted.items()}),
    "shop.add_two": lambda phone, t: _cart(phone, **{next(iter(t.wanted)): 1}),
    "shop.remove_from_cart": _remove_other,
    "shop.buy": _unpaid,
    "shop.ask_product": lambda phone, t: _cart(phone, **{
        _other(["AirPods Pro", "iPhone 15"], t.product): 1}),
    "messages.send": lambda phone, t: _send(phone, _other(_contacts(phone), t.contact), t.text),
    "messages.send.zh": lambda phone, t: _send(phone, t.contact, t.text + "。"),
    "messages.reply": lambda phone, t: _send(phone, _other(_contacts(phone), t.contact), t.text),
    "messages.new_number": lambda phone, t: _send(phone, t.number[:-1] + "0", t.text),
    "messages.ask_recipient": lambda phone, t: _send(
        phone, _other(_contacts(phone), t.contact), t.text),
    "feed.like_first": _like(lambda t: set(t.posts[:-1])),
    "feed.like_post": _like(lambda t: {t.posts[0] + 1}),
    "feed.like_by_author": _like(lambda t: {*t.posts, 9}),  # one beyond the first eight
    "feed.like_post.zh": _like(lambda t: {t.posts[0], t.posts[0] + 1}),
    "login.sign_in": _other_user,
    "login.ask_password": _other_user,
    "shop.price_to_notes": lambda phone, t: _note(phone, "", WRONG_PRICE),
    "settings.about_to_notes": lambda phone, t: _note(
        phone, t.title, phone.settings["_about"][_other(list(phone.settings["_about"]), t.row)]),
    "messages.to_notes": lambda phone, t: _note(
        phone, t.title, phone.apps[MESSAGES].threads[t.contact][0]["text"]),
    "feed.author_to_messages": lambda phone, t: _send(
        phone, _other(_contacts(phone), t.author), t.text),
    # impossible tasks: the harm a careless agent would do
    "shop.not_sold": lambda phone, t: _cart(phone, **{"iPad Air": 1}),
    "notes.delete_missing": lambda phone, t: phone.apps[NOTES].notes.pop(),
    "messages.no_conversation": lambda phone, t: _send(phone, t.name, t.text),
    "feed.comment": _like(lambda t: {t.post}),
    "settings.missing_option": _flip("bluetooth"),
    "settings.missing_option.zh": lambda phone, t: setattr(phone.apps[SETTINGS], "brightness",
                                                           100),
}


def test_every_task_has_a_near_miss() -> None:
    assert sorted(NEAR_MISS) == sorted(CORE_IDS)


@pytest.mark.parametrize("task_id", CORE_IDS)
def test_a_near_miss_end_state_fails_the_check(phone, task_id) -> None:
    task = task_named(task_id)
    task.setup(phone)
    assert task.check(phone) == task.impossible  # untouched: only "nothing harmed" holds
    NEAR_MISS[task_id](phone, task)
    assert not task.check(phone)


# -- the suite's shape -------------------------------------------------------------------
def test_the_suite_is_large_tagged_and_has_impossible_and_chinese_tasks() -> None:
    tasks = suite_tasks(SEED)
    assert len(tasks) >= 30 and len(set(IDS)) == len(IDS)
    assert all(t.tags and set(t.tags) <= set(TAGS) for t in tasks)
    assert all(t.impossible == ("impossible" in t.tags) for t in tasks)
    assert sum(t.impossible for t in tasks) >= 4
    assert all(CJK.search(t.goal) for t in tasks if "zh" in t.tags)
    for tag in TAGS:
        assert any(tag in t.tags for t in tasks), tag


def test_tasks_that_ask_the_user_can_be_answered() -> None:
    asking = [t for t in suite_tasks(SEED) if {"needs-ask-user", "sensitive"} & set(t.tags)]
    assert len(asking) >= 6
    for task in asking:
        answer_user = getattr(task, "answer_user", None)
        assert callable(answer_user), task.id


def test_the_same_seed_gives_the_same_tasks_and_another_seed_other_ones() -> None:
    def described(seed: int) -> list[str]:
        return [f"{t.id}|{t.goal}|{t.criteria}|{t!r}" for t in suite_tasks(seed)]

    assert described(7) == described(7)
    changed = sum(a != b for a, b in zip(described(7), described(8), strict=True))
    assert changed >= len(IDS) // 2


def test_select_by_id_tag_and_app_keeps_suite_order() -> None:
    tasks = suite_tasks(SEED)
    assert [t.id for t in select(tasks, "notes.create")] == ["notes.create"]
    zh = select(tasks, "zh")
    assert zh and all("zh" in t.tags for t in zh)
    both = select(tasks, "zh, impossible")
    assert {t.id for t in both} == {t.id for t in tasks if {"zh", "impossible"} & set(t.tags)}
    assert [t.id for t in both] == [t.id for t in tasks if t in both]
    assert all(t.id.startswith("shop.") for t in select(tasks, "shop"))
    assert select(tasks, None) == tasks and select(tasks, "") == tasks


def test_select_names_what_it_does_not_know() -> None:
    with pytest.raises(ValueError, match="notes.teleport"):
        select(suite_tasks(SEED), "notes.create,notes.teleport")
    with pytest.raises(ValueError, match="very-hard"):
        select(suite_tasks(SEED), "very-hard")


@pytest.mark.parametrize(("body", "holds"), [
    ("{v}", True), ("Android version: {v}", True), ("{v}.", True),
    ("{v}0", False), ("1{v}", False), ("", False)])
def test_a_value_saved_in_a_note_counts_labelled_but_not_inside_a_longer_word(
        phone, body: str, holds: bool) -> None:
    task = task_named("settings.about_to_notes", 2)
    task.setup(phone)
    phone.apps[NOTES].notes.append({"title": task.title, "body": body.format(v=task.value)})
    assert task.check(phone) is holds
