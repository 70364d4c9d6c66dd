"""The Shop's second checkout layout (``ShopApp.checkout_style = "savings"``), as many real
shops draw it: a "Pay now" button that shows no amount, a "You saved ¥50 in total" row and
the payable total on its own row ("Amount payable ¥1,079.00" / 实付款). The gate must read
the payable total there, never the saving (issue 34: it read ¥50 and paid ¥1,079.00).
"""

from __future__ import annotations

from collections.abc import Callable

from omg_agent.vphone.apps.shop_catalog import format_price
from omg_agent.vphone.ui.kit import MUTED, Kit
from omg_agent.vphone.ui.view import View

SAVED = 5000  # fen the savings row says were saved
PRICE_RED = (215, 45, 45)


def savings_checkout(kit: Kit, root: View, lines: list[tuple[str, int]], total: int,
                     on_pay: Callable[[], None], t: Callable[[str, str], str]) -> None:
    """``lines``: (label, price in fen) per cart line; ``total``: what Pay now charges."""
    y = kit.content[1] + kit.dp(72)
    for label, price in lines:
        root.add(kit.text(kit.row(y, 32), label))
        root.add(kit.text(kit.row(y, 32), format_price(price), align="right"))
        y += kit.dp(36)
    y += kit.dp(12)
    root.add(kit.text(kit.row(y, 28), t(f"You saved {format_price(SAVED)} in total",
                                        f"共节省 {format_price(SAVED)}"),
                      size=14, color=MUTED, resource_id=f"{kit.package}:id/saved"))
    root.add(kit.text(kit.row(y + kit.dp(32), 36), t(
        f"Amount payable {format_price(total)}", f"实付款 {format_price(total)}"),
        size=20, bold=True, resource_id=f"{kit.package}:id/payable"))
    root.add(kit.button(kit.row(y + kit.dp(88), 56), t("Pay now", "立即支付"), on_pay,
                        color=PRICE_RED, enabled=total > 0,
                        resource_id=f"{kit.package}:id/pay"))
