"""The Shop's cart, checkout and order-placed screens (the screens where money is spent);
the catalogue, search and product pages stay in :mod:`omg_agent.vphone.apps.shop`."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from omg_agent.vphone.apps.shop_catalog import BY_ID, format_price
from omg_agent.vphone.apps.shop_savings import savings_checkout
from omg_agent.vphone.apps.shop_views import ADDRESS, ORANGE, PRICE_RED
from omg_agent.vphone.apps.textfit import ellipsize
from omg_agent.vphone.ui.kit import MUTED, Kit
from omg_agent.vphone.ui.view import View

if TYPE_CHECKING:
    from omg_agent.vphone.apps.shop import ShopApp


def cart(app: ShopApp, kit: Kit, root: View) -> None:
    """The cart: a row per product with a − button, the total and Checkout."""
    root.add(app.bar(kit, app.t("Cart", "购物车"), cart=False))
    top = kit.content[1] + kit.dp(56)
    if not app.cart:
        root.add(kit.text(kit.row(top + kit.dp(48), 40), "Your cart is empty 购物车是空的",
                          color=MUTED, align="center",
                          resource_id=f"{app.package}:id/empty"))
        return
    h = kit.dp(76)
    for i, (pid, qty) in enumerate(app.cart.items()):
        p, y = BY_ID[pid], top + i * h
        side = kit.dp(44)
        x1 = kit.width - kit.dp(16)
        minus = kit.button((x1 - side, y + (h - side) // 2, x1, y + (h + side) // 2), "−",
                           partial(app.remove_one, pid), color=MUTED,
                           desc=f"Remove {p.name}",
                           resource_id=f"{app.package}:id/remove")
        root.add(kit.list_item((0, y, kit.width, y + h), p.name,
                               f"{format_price(app.prices[pid])} × {qty}",
                               resource_id=f"{app.package}:id/cart_item",
                               trailing=minus))
    y = top + len(app.cart) * h + kit.dp(16)
    root.add(kit.text(kit.row(y, 36), f"{app.t('Total', '合计')}: "
                      f"{format_price(app.cart_total())}", size=20, bold=True,
                      resource_id=f"{app.package}:id/total"))
    root.add(kit.button(kit.row(y + kit.dp(52), 52), app.t("Checkout", "去结算"),
                        lambda: app.push("checkout"), color=ORANGE,
                        resource_id=f"{app.package}:id/checkout"))


def checkout(app: ShopApp, kit: Kit, root: View) -> None:
    """The checkout: the address, a line per product, the total and the Pay button."""
    root.add(app.bar(kit, "Checkout 结算", cart=False))
    if app.checkout_style == "savings":
        lines = [(f"{BY_ID[pid].name} × {qty}", app.prices[pid] * qty)
                 for pid, qty in app.cart.items()]
        savings_checkout(kit, root, lines, app.cart_total(), app.pay, app.t)
        return
    y = kit.content[1] + kit.dp(72)
    root.add(kit.text(kit.row(y, 28), app.t("Ship to", "收货地址"), size=14, color=MUTED))
    root.add(kit.text(kit.row(y + kit.dp(28), 32), ellipsize(
        ADDRESS, kit.dp(16), kit.width - kit.dp(32)), resource_id=f"{app.package}:id/address"))
    y += kit.dp(76)
    for pid, qty in app.cart.items():
        label = ellipsize(f"{BY_ID[pid].name} × {qty}", kit.dp(16), kit.width // 2)
        root.add(kit.text(kit.row(y, 32), label))
        root.add(kit.text(kit.row(y, 32), format_price(app.prices[pid] * qty),
                          align="right"))
        y += kit.dp(36)
    y += kit.dp(12)
    root.add(kit.text(kit.row(y, 36), f"{app.t('Total', '合计')}: "
                      f"{format_price(app.cart_total())}", size=20, bold=True,
                      resource_id=f"{app.package}:id/total"))
    # A sensitive screen: this button spends money.
    root.add(kit.button(kit.row(y + kit.dp(56), 56),
                        f"{app.t('Pay', '支付')} {format_price(app.cart_total())}",
                        app.pay, color=PRICE_RED, enabled=bool(app.cart),
                        resource_id=f"{app.package}:id/pay"))


def paid(app: ShopApp, kit: Kit, root: View) -> None:
    """After paying: the order's number and total."""
    root.add(app.bar(kit, app.t("Order placed", "下单成功"), cart=False))
    y = kit.content[1] + kit.dp(120)
    order = app.orders[-1] if app.orders else {"id": 0, "total": 0}
    root.add(kit.text(kit.row(y, 40), "Payment successful 支付成功", size=22, bold=True,
                      align="center", resource_id=f"{app.package}:id/paid_title"))
    root.add(kit.text(kit.row(y + kit.dp(48), 32),
                      f"{app.t('Order', '订单')} #{order['id']} · "
                      f"{format_price(round(order['total'] * 100))}", color=MUTED,
                      align="center", resource_id=f"{app.package}:id/order_id"))
    root.add(kit.button(kit.row(y + kit.dp(112), 52), app.t("Back to home", "返回首页"),
                        app.home, color=ORANGE, resource_id=f"{app.package}:id/done"))
