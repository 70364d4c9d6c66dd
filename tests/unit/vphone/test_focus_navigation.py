"""Keyboard focus on the vphone (issue 34): Tab and the D-pad move focus between controls
as on Android, the dump says which is focused, and ENTER / DPAD_CENTER / SPACE activate it."""

from __future__ import annotations

from typing import Any

import pytest

from omg_agent.vphone.phone import VirtualPhone

SHOP = "com.omg.shop"
KEY_TAB, KEY_DOWN, KEY_UP, KEY_CENTER, KEY_SPACE, KEY_ENTER = 61, 20, 19, 23, 62, 66


@pytest.fixture
def checkout() -> Any:
    phone = VirtualPhone("default", seed=0)
    shop = phone.apps[SHOP]
    shop.promo_mode = "never"
    shop.cart = {"p15": 1}
    phone.start_activity(SHOP)
    shop.push("cart")
    shop.push("checkout")
    phone.changed()
    yield phone
    phone.close()


def focused_id(phone: VirtualPhone) -> str:
    view = phone.focused_view()
    return view.resource_id.rpartition("/")[2] if view is not None else ""


def to_pay(phone: VirtualPhone, key: int) -> None:
    for _ in range(12):
        if focused_id(phone) == "pay":
            return
        phone.key(key)
    raise AssertionError("focus never reached Pay")


def orders(phone: VirtualPhone) -> list[Any]:
    return list(phone.state()["apps"][SHOP]["orders"])


def test_nothing_is_focused_until_a_key_moves_focus(checkout) -> None:
    assert checkout.focused_view() is None
    checkout.key(KEY_TAB)
    assert checkout.focused_view() is not None
    assert 'focused="true"' in checkout.dump_xml()


@pytest.mark.parametrize("move", [KEY_TAB, KEY_DOWN])
@pytest.mark.parametrize("press", [KEY_ENTER, KEY_CENTER, KEY_SPACE])
def test_a_focused_pay_button_is_activated_by_enter_center_and_space(checkout, move,
                                                                     press) -> None:
    to_pay(checkout, move)
    checkout.key(press)
    assert len(orders(checkout)) == 1


def test_the_d_pad_moves_back_up_and_a_touch_ends_focus_mode(checkout) -> None:
    to_pay(checkout, KEY_DOWN)
    checkout.key(KEY_UP)
    assert focused_id(checkout) != "pay"
    checkout.tap(5, 5)
    assert checkout.focused_view() is None
    checkout.key(KEY_ENTER)  # nothing focused: nothing happens
    assert orders(checkout) == []
