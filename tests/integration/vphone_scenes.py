"""Scenes the integration tests set up on a vphone host-side (no agent, no adb)."""

from __future__ import annotations

from typing import Any

SHOP = "com.omg.shop"


def at_checkout(phone: Any, product: str = "p15", count: int = 1) -> Any:
    """Shop open at Checkout (through the cart, as a user gets there) with ``count`` of
    ``product`` in the cart and no promo popup; gives the Shop app."""
    shop = phone.apps[SHOP]
    with phone.lock:
        shop.promo_mode = "never"
        shop.cart = {product: count}
        phone.start_activity(SHOP)
        shop.push("cart")
        shop.push("checkout")
        phone.changed()
    return shop


def orders(phone: Any) -> list[dict[str, Any]]:
    """Shop's orders, read from the phone's state (never from a run's claim)."""
    return list(phone.state()["apps"][SHOP]["orders"])
