"""Shop tasks: add a product (English or Chinese goal), add several of one product, add two
products past the promo popup, remove one from a filled cart, buy a product (sensitive:
the user confirms before Pay) and add the product the user names when asked.

Criteria quote the cart icon's description ("Cart, 2 items"), the "Added to cart" toast, the
cart total or the order page: texts that only show once the cart or order is right.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from omg_agent.bench.suite.nav import (
    a_tap,
    answer,
    ask,
    back,
    confirm,
    shop_cart,
    shop_front,
    wait,
    where,
)
from omg_agent.bench.suite.settings_tasks import ZH_LOCALE
from omg_agent.sim.expert.screen import Screen, tap
from omg_agent.sim.expert.tasks import (
    SHOP,
    AddToCart,
    MoveContext,
    Moves,
    Task,
    _product_id,
    _to_product,
)
from omg_agent.vphone.apps.shop_catalog import BY_ID, format_price

log = logging.getLogger(__name__)


def cart(phone: Any) -> dict[str, int]:
    return dict(phone.apps[SHOP].cart)


def set_popup(phone: Any, mode: str | None) -> None:
    if mode is not None:
        phone.apps[SHOP].promo_mode = mode


def fill_cart(phone: Any, screen: Screen, wanted: dict[str, int],
              ctx: MoveContext) -> Moves:
    """Moves that make the cart hold exactly ``wanted`` (product id → quantity)."""
    have = cart(phone)
    for pid, qty in have.items():
        if qty > wanted.get(pid, 0):  # too many: take one out in the cart
            how = {"res": "remove", "desc": f"Remove {BY_ID[pid].name}"}
            moves = shop_cart(phone, screen, [a_tap(**how)])
            if moves:
                return moves
            minus = screen.find(**how)
            return [tap(minus)] if minus else [wait()]
    for pid, qty in wanted.items():
        if have.get(pid, 0) < qty:
            moves = _to_product(phone, screen, pid, MoveContext(ctx.request_text))
            if moves:
                onto = moves[-1]["type"] == "tap"  # the tap that opens the product page
                return [*moves, a_tap(res="add_to_cart")] if onto else moves
            add = screen.find(res="add_to_cart")
            return [tap(add)] if add else [wait()]
    return []


def items(n: int, zh: bool) -> str:
    return f"购物车，{n} 件" if zh else f"Cart, {n} items"


@dataclass
class AddProduct(AddToCart):
    """Add one product; ``zh`` gives the goal in Chinese on a Chinese phone; ``popup``
    forces the promo popup ("always") or keeps the phone's seeded draw (None)."""

    zh: bool = False
    popup: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.zh:
            self.goal = f"在商城把「{self.product}」加入购物车"
            self.criteria = f'商品页显示 "已加入购物车" 和 "{items(1, True)}"'
        else:
            self.criteria = (f'the "{self.product}" page shows "Added to cart" and '
                             f'"{items(1, False)}"')

    def setup(self, phone: Any) -> None:
        set_popup(phone, self.popup)
        if self.zh:
            phone.set_locale(ZH_LOCALE)

    def check(self, phone: Any) -> bool:
        return cart(phone) == {_product_id(self.product): 1}

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        return fill_cart(phone, screen, {_product_id(self.product): 1}, ctx)


@dataclass
class AddProducts(Task):
    """Put exactly these products (name → quantity) in the empty cart."""

    wanted: dict[str, int] = field(default_factory=dict)
    popup: str | None = None

    def __post_init__(self) -> None:
        for name in self.wanted:
            _product_id(name)  # ValueError: not sold
        total = sum(self.wanted.values())
        if len(self.wanted) == 1:
            [(name, qty)] = self.wanted.items()
            self.goal = f"Add {qty} {name} to the cart in Shop"
        else:
            self.goal = f"Add {' and '.join(self.wanted)} to the cart in Shop"
        self.criteria = f'the Shop shows "{items(total, False)}" and "Added to cart"'

    def _ids(self) -> dict[str, int]:
        return {_product_id(name): qty for name, qty in self.wanted.items()}

    def setup(self, phone: Any) -> None:
        set_popup(phone, self.popup)

    def check(self, phone: Any) -> bool:
        return cart(phone) == self._ids()

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        return fill_cart(phone, screen, self._ids(), ctx)


@dataclass
class RemoveFromCart(Task):
    """The cart holds ``products``; take ``products[index]`` out and leave the rest."""

    products: list[str] = field(default_factory=list)
    index: int = 0

    def __post_init__(self) -> None:
        self.goal = f"Remove {self.products[self.index]} from the cart in Shop"
        self.criteria = "the cart shows the new total"

    def _left(self) -> dict[str, int]:
        return {_product_id(n): 1 for i, n in enumerate(self.products) if i != self.index}

    def setup(self, phone: Any) -> None:
        app = phone.apps[SHOP]
        app.cart = {_product_id(n): 1 for n in self.products}
        total = sum(app.prices[pid] for pid in self._left())
        self.criteria = f'the cart shows "Total: {format_price(total)}"'

    def check(self, phone: Any) -> bool:
        return cart(phone) == self._left()

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        return fill_cart(phone, screen, self._left(), ctx)


@dataclass
class BuyProduct(Task):
    """Buy one product: cart, checkout, and Pay once the user confirmed (sensitive)."""

    product: str = ""
    popup: str | None = "always"

    def __post_init__(self) -> None:
        _product_id(self.product)
        self.goal = f"Buy one {self.product} in Shop and pay for it"
        self.criteria = 'the Shop shows "Payment successful 支付成功"'
        self.question = f"Pay for one {self.product} now?"

    def setup(self, phone: Any) -> None:
        set_popup(phone, self.popup)
        app = phone.apps[SHOP]
        price = format_price(app.prices[_product_id(self.product)])
        self.question = f"Pay {price} for one {self.product} now?"
        self.criteria = f'the Shop shows "Payment successful 支付成功" and "{price}"'

    def check(self, phone: Any) -> bool:
        pid = _product_id(self.product)
        return any([(i["id"], i["qty"]) for i in o["items"]] == [(pid, 1)]
                   for o in phone.apps[SHOP].orders)

    def answer_user(self, question: str) -> str | None:
        return "Yes."

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        wanted = {_product_id(self.product): 1}
        if cart(phone) != wanted:
            if shop_front(phone, screen) or where(phone, SHOP) != "checkout":
                return fill_cart(phone, screen, wanted, ctx)
            return [back()]
        moves = shop_front(phone, screen)
        if moves:
            return moves
        if where(phone, SHOP) == "checkout":
            pay = screen.find(res="pay")
            return confirm(ctx, self.question, tap(pay)) if pay else [wait()]
        moves = shop_cart(phone, screen, [a_tap(res="checkout")])
        if moves:
            return moves
        checkout = screen.find(res="checkout")
        return [tap(checkout)] if checkout else [wait()]


@dataclass
class AskProduct(Task):
    """Add 'the one I want' of a kind of product: the user names it when asked."""

    kind: str = ""
    product: str = ""  # what the user answers

    def __post_init__(self) -> None:
        _product_id(self.product)
        self.goal = f"Add the {self.kind} I want to the cart in Shop; ask me which one"
        self.question = f"Which {self.kind} should I add to the cart?"
        self.criteria = f'the product page shows "Added to cart" and "{items(1, False)}"'

    def check(self, phone: Any) -> bool:
        return cart(phone) == {_product_id(self.product): 1}

    def answer_user(self, question: str) -> str | None:
        return self.product

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        name = answer(ctx, self.question)
        if name is None:
            return [ask(self.question)]
        try:
            pid = _product_id(name)
        except ValueError:
            return [ask(self.question)]
        return fill_cart(phone, screen, {pid: 1}, ctx)
