"""Swipe-to-delete (issue 36): a sideways swipe across a list row removes it in many apps
(Expenses, mail, to-do lists), so the gate judges it as that row's delete — asked, or let
through by a goal that names the row, and then recorded so honest done sees the delete.
A scroll and a short nudge are not deletes. Also: a yes is found again on a list whose
rows share one resource id (by the row's label), goals name expenses and to-dos as
objects to delete, and a checkable row of a popup (a Spinner's dropdown) is a boundary."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gate_screens import element, made_screen, observe

from omg_agent.core.actions import Tap, is_boundary
from omg_agent.core.geometry import Point
from omg_agent.drivers.ports import InputEffect, InputScene
from omg_agent.guards.approvals import refind
from omg_agent.guards.authorisation import parse_authorisations
from omg_agent.guards.landing import decide
from omg_agent.guards.sensitive import Gate
from omg_agent.guards.task_objects import deleted_names
from omg_agent.vphone.phone import VirtualPhone

EXPENSES = "com.omg.expenses"
SLOP = 28


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    p = VirtualPhone(seed=1)
    try:
        p.start_activity(EXPENSES)
        yield p
    finally:
        p.close()


def swipe(phone: VirtualPhone, label: str, x1: float, x2: float, dy: int = 0,
          gate: Gate | None = None):
    obs = observe(phone)
    row = element(obs, text=label)
    y = row.center.y
    w = phone.profile.width
    effect = InputEffect("swipe", Point(int(w * x1), y), Point(int(w * x2), y + dy), 300)
    return decide(gate or Gate(), effect, InputScene(obs, SLOP))


def test_a_sideways_swipe_across_a_row_is_that_rows_delete(phone) -> None:
    row, decision = swipe(phone, "Taxi home", 0.9, 0.1)
    assert decision.needs_confirmation and decision.sensitivity is not None
    found = decision.sensitivity
    assert found.cls == "delete" and found.objects == ("Taxi home",)
    assert found.describe.startswith('swipe away "Taxi home"'), found.describe
    assert row is not None and row.text == "Taxi home"
    _, rightwards = swipe(phone, "Groceries", 0.1, 0.7)
    assert rightwards.sensitivity is not None and rightwards.sensitivity.cls == "delete"


def test_a_goal_naming_the_row_lets_it_go_and_keeps_it_a_delete(phone) -> None:
    gate = Gate(tuple(parse_authorisations("Delete the expense Taxi home in Expenses")))
    _, decision = swipe(phone, "Taxi home", 0.9, 0.1, gate=gate)
    assert decision.allowed and decision.sensitivity is not None
    assert decision.sensitivity.cls == "delete"  # what honest done's ledger records
    _, other = swipe(phone, "Groceries", 0.9, 0.1, gate=gate)
    assert other.needs_confirmation  # that expense alone


@pytest.mark.parametrize(("x1", "x2", "dy"), [
    (0.5, 0.5, -600),  # a scroll up the list
    (0.6, 0.45, 0),  # a nudge: 15% of the width
    (0.8, 0.3, -700),  # diagonal, mostly down: a scroll
])
def test_a_scroll_or_a_nudge_is_no_delete(phone, x1, x2, dy) -> None:
    _, decision = swipe(phone, "Running shoes", x1, x2, dy)
    assert not decision.needs_confirmation
    assert decision.sensitivity is None or decision.sensitivity.cls != "delete"


def test_a_sideways_swipe_on_no_row_is_no_delete(phone) -> None:
    obs = observe(phone)
    total = element(obs, rid="month_total")
    y = total.center.y
    effect = InputEffect("swipe", Point(900, y), Point(100, y), 300)
    _, decision = decide(Gate(), effect, InputScene(obs, SLOP))
    assert decision.sensitivity is None


def test_a_yes_is_found_again_among_rows_that_share_an_id() -> None:
    rows = [{"text": name, "role": "item", "clickable": True, "resource_id": "x:id/row",
             "bounds": (0, 300 + 200 * i, 1080, 500 + 200 * i)}
            for i, name in enumerate(("Taxi home", "Groceries", "Phone bill"))]
    asked = made_screen("x", rows)
    now = made_screen("x", rows[1:])  # the first row went: the others moved up a place
    found = refind(asked.elements[1], now)
    assert found is not None and found.text == "Groceries"
    assert refind(asked.elements[0], now) is None


@pytest.mark.parametrize(("goal", "names"), [
    ("Delete the expense Taxi home in Expenses", ["Taxi home"]),
    ("Delete the to-do Renew passport", ["Renew passport"]),
    ("删除支出「早餐」", ["早餐"]),
    ("删除待办「交水电费」", ["交水电费"]),
    ("Delete all completed tasks in To-do", []),
])
def test_a_goal_names_an_expense_or_a_to_do_to_delete(goal, names) -> None:
    assert deleted_names(goal) == names


def test_choosing_a_dropdown_row_is_a_boundary_and_so_is_a_to_dos_tick(phone) -> None:
    phone.tap_view(resource_id=f"{EXPENSES}:id/fab_add")
    phone.tap_view(resource_id=f"{EXPENSES}:id/category_spinner")
    option = element(observe(phone), text="Bills")
    assert option.checkable and option.window == "popup"
    assert is_boundary(Tap(target={"kind": "element", "id": option.id}), option)
    phone.key(4)
    phone.key(4)
    phone.start_activity("com.omg.todo")
    # a ticked to-do moves into Completed: the next tap is found on the screen after it
    box = element(observe(phone), desc="Renew passport")
    assert box.checkable and is_boundary(Tap(target={"kind": "element", "id": box.id}), box)


def test_multi_selects_delete_names_the_picked_rows(phone) -> None:
    from omg_agent.core.actions import Tap
    from omg_agent.guards.sensitive import classify

    phone.start_activity("com.omg.todo")
    phone.long_press(*phone.find_view(text="Water the plants").center)
    phone.tap(*phone.find_view(text="Renew passport").center)
    obs = observe(phone)
    delete = element(obs, text="Delete")
    found = classify(Tap(target={"kind": "element", "id": delete.id}), delete, obs)
    assert found is not None and found.cls == "delete"
    assert found.objects == ("Water the plants", "Renew passport"), found.about
    assert '"Water the plants", "Renew passport"' in found.about
