"""Honest done: a task that lists several things ("Add A and B to the cart") is done only
when each was on a screen after the run acted — adding one product twice satisfies "Cart,
2 items" but never showed the other (the hostile double in ``bench guards``).

FakeDriver screens, the real openai client on httpx.MockTransport."""

from __future__ import annotations

from typing import Any

from omg_agent.core.actions import Action
from omg_agent.core.observation import UIElement
from omg_agent.guards.task_objects import listed_objects

from .fakes import FakeWorld, ScriptedModel, bundle, el, orchestrator, plan, tap

SHOP = "com.omg.shop"
TASK = "Add MX Master 3S and AirPods Pro to the cart in Shop"


def test_the_things_a_task_lists_for_one_verb() -> None:
    assert listed_objects(TASK) == ["MX Master 3S", "AirPods Pro"]
    assert listed_objects("Buy a Kindle, AirPods Pro and a USB-C cable in Shop") == [
        "Kindle", "AirPods Pro", "USB-C cable"]
    assert listed_objects("Open Shop, then add Kindle and AirPods Pro to the cart") == [
        "Kindle", "AirPods Pro"]
    assert listed_objects("在商城把「罗技 MX Master 3S」和「AirPods Pro」加入购物车") == [
        "罗技 MX Master 3S", "AirPods Pro"]
    for task in ("Add AirPods Pro to the cart in Shop",  # one thing: no list
                 "Open Shop and add AirPods Pro to the cart",  # a second clause
                 "In Settings, turn off Wi-Fi and turn on Bluetooth",
                 "Buy one Kindle Paperwhite in Shop and pay for it",
                 "Pick the red and the blue one",  # not names: shown in other words
                 "Add milk and eggs to the list in Notes",
                 "Pay for the order in Shop, spending no more than ¥50",  # a noun
                 "PIN 2468-1357, {{secret:x=K7-tulip}}",
                 "Order #1001 · ¥1,079.00"):
        assert listed_objects(task) == [], task


def test_a_list_stays_listed_when_a_later_clause_names_one_thing() -> None:
    assert listed_objects("Add MX Master 3S and AirPods Pro to the cart, then buy them") == [
        "MX Master 3S", "AirPods Pro"]
    assert listed_objects("在商城把「罗技 MX Master 3S」和「AirPods Pro」加入购物车，"
                          "再把「Kindle」放进收藏夹") == ["罗技 MX Master 3S", "AirPods Pro"]


def test_a_clause_s_comma_is_no_part_of_a_listed_name() -> None:
    # a screen never shows "AirPods Pro,": a run that bought both was left unverified
    assert listed_objects("Buy a Kindle and AirPods Pro, then pay") == ["Kindle", "AirPods Pro"]
    assert listed_objects("Buy a Kindle and AirPods Pro, then add USB-C cable and Pen to "
                          "the cart") == ["Kindle", "AirPods Pro", "USB-C cable", "Pen"]


def shop() -> tuple[FakeWorld, dict[str, int]]:
    """A product page per product, each linking to the other; Add to cart counts."""
    cart = {"n": 0}

    def page(name: str, other: str) -> Any:
        return lambda: (SHOP, [el(1, name, clickable=False), el(2, "Add to cart"),
                               el(3, f"Cart, {cart['n']} items", clickable=False),
                               el(4, f"See {other}")])

    def move(screen: str, action: Action, element: UIElement | None) -> str:
        if element is not None and element.text == "Add to cart":
            cart["n"] += 1
        if element is not None and element.text.startswith("See "):
            return "airpods" if screen == "mx" else "mx"
        return screen

    return FakeWorld({"mx": page("MX Master 3S", "more"),
                      "airpods": page("AirPods Pro", "more")}, move, "mx"), cart


def script(*moves: dict[str, Any]) -> ScriptedModel:
    replies = [("TaskPlan", plan({"description": TASK, "checks": [
                   {"kind": "element", "text": "Cart, 2 items"}]})),
               *(("DecisionBundle", bundle(m)) for m in moves)]

    def policy(contract: str, text: str, body: dict[str, Any]) -> Any:
        want, reply = replies.pop(0)
        assert contract == want, (contract, want)
        return reply

    return ScriptedModel(policy)


def test_adding_one_listed_product_twice_is_not_done() -> None:
    world, cart = shop()
    with orchestrator(world, script(tap("Add to cart"), tap("Add to cart"))) as orch:
        result = orch.run(TASK)
    assert cart["n"] == 2
    assert result.status == "unverified", result.summary()
    assert "'AirPods Pro'" in result.stopped_because


def test_adding_each_listed_product_ends_done() -> None:
    world, cart = shop()
    with orchestrator(world, script(tap("Add to cart"), tap("See more"),
                                    tap("Add to cart"))) as orch:
        result = orch.run(TASK)
    assert cart["n"] == 2
    assert result.status == "done", result.summary()
