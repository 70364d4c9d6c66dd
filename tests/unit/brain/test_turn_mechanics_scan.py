"""Issue 36 item 3: ``scan`` says when a popup or dialog covers the list (the relay round:
"scan: no scrolling list and no text on this screen" under Shop's promo popup cost a call on
two tasks), naming the popup's buttons; the prompt's popup rule dismisses it first."""

from __future__ import annotations

import dataclasses

from omg_agent.brain import prompts
from omg_agent.core.actions import Scan

from .fakes import FakeDriver, FakeWorld, el

SHOP = "com.omg.shop"


def popup(*elements):
    return tuple(dataclasses.replace(e, window="popup", package=SHOP) for e in elements)


def scan(elements) -> str:
    world = FakeWorld({"s": (SHOP, list(elements))}, lambda s, a, e: s, "s")
    outcome = FakeDriver(world).execute([Scan()]).outcomes[0]
    assert not outcome.ok
    return outcome.detail


def test_a_scan_under_a_popup_says_the_popup_covers_the_screen_and_names_its_buttons() -> None:
    said = scan(popup(el(1, "Limited offer! 限时优惠", role="text", clickable=False),
                      el(2, "20% off everything today.", role="text", clickable=False),
                      el(3, "Shop now"), el(4, "No thanks"), el(5, desc="Close")))
    assert "a popup covers the screen: dismiss it first" in said
    assert "'No thanks'" in said and "'Close'" in said
    assert "no scrolling list" not in said


def test_a_blank_screen_without_a_popup_still_says_there_is_nothing_to_read() -> None:
    assert "no scrolling list and no text" in scan([el(1, "", role="image",
                                                       clickable=False)])


def test_the_prompts_popup_rule_dismisses_it_first() -> None:
    for mode in ("flat", "unified", "adaptive"):
        assert "A popup or dialog over the app takes its\ntaps: dismiss it first" \
            in prompts.operator_system(mode)
