"""Expenses across apps (issue 36, family B): a category's monthly total (read off the
filter spinner's total line) kept in a note, and the Shop cart's total recorded as an
expense (read in Shop, remembered, keyed in on Expenses' keypad)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omg_agent.bench.suite.cross_tasks import note_holds, read_then
from omg_agent.bench.suite.ledger_tasks import (
    EXPENSES,
    add_expense,
    form_route,
    ledger,
    money,
    rows,
    to_list,
)
from omg_agent.bench.suite.nav import (
    a_tap,
    back,
    front,
    note_route,
    saved,
    shop_cart,
    wait,
    with_wrong,
    write_note,
)
from omg_agent.sim.expert.screen import Screen, tap
from omg_agent.sim.expert.tasks import NOTES, SHOP, MoveContext, Moves, Task


@dataclass
class TotalToNotes(Task):
    """What was spent on a category this month (the filter spinner shows the total), kept
    in a new note."""

    category: str = "Food"
    title: str = "Spending"

    def __post_init__(self) -> None:
        self.goal = (f"How much did I spend on {self.category} this month? Look it up in "
                     f"Expenses and save the total in a note titled {self.title}")
        self.data_output = "total"
        self.criteria = f'a note titled "{self.title}" holds the total'
        self.amount = ""

    def line(self) -> str:
        return f"{self.category} this month: {self.amount}"

    def setup(self, phone: Any) -> None:
        self.amount = money(ledger(phone).total(self.category))
        self.criteria = f'the notes list shows "{self.title}" with "{self.line()}"'

    def check(self, phone: Any) -> bool:
        return note_holds(phone, self.title, self.amount)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if saved(ctx, "total", self.line()):
            return write_note(phone, screen, self.title, "$total", self.line())
        app = ledger(phone)
        pick = [a_tap(res="filter_spinner"), a_tap(text=self.category)]
        moves = front(phone, screen, EXPENSES, pick)
        if moves:
            return with_wrong(ctx, "total", moves)
        if app.menu == "filter":
            option = screen.find(text=self.category)
            return [tap(option)] if option else [back()]
        moves = to_list(phone, screen)
        if moves:
            return moves
        if app.filter != self.category:
            spinner = screen.find(res="filter_spinner")
            return [tap(spinner), pick[1]] if spinner else [wait()]
        total = screen.find(res="month_total", text=self.line())
        route = note_route(self.title, "$total")
        return read_then(total.id, "total", NOTES, route) if total else [wait()]


@dataclass
class CartToExpense(Task):
    """Record the Shop cart's total as a Shopping expense: the total is read in Shop,
    remembered, and keyed in on Expenses' keypad."""

    products: list[str] = field(default_factory=list)
    note: str = "Shop order"

    def __post_init__(self) -> None:
        self.goal = (f"Record my Shop cart's total as an expense in Expenses: category "
                     f"Shopping, note {self.note}")
        self.data_output = "total"
        self.criteria = f'the expense list shows "{self.note}"'
        self.cents = 0
        self.before: list[tuple[int, str, str]] = []

    def setup(self, phone: Any) -> None:
        from omg_agent.sim.expert.tasks import _product_id

        shop = phone.apps[SHOP]
        shop.cart = {_product_id(n): 1 for n in self.products}
        self.cents = shop.cart_total()
        self.before = rows(phone)
        self.criteria = f'the expense list shows "{self.note}" with "{money(self.cents)}"'

    def shown(self, phone: Any) -> str:
        return f"{phone.apps[SHOP].t('Total', '合计')}: {money(self.cents)}"

    def check(self, phone: Any) -> bool:
        return rows(phone) == [*self.before, (self.cents, "Shopping", self.note)]

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        if saved(ctx, "total", self.shown(phone)):
            return add_expense(phone, screen, self.cents, "Shopping", self.note)
        moves = shop_cart(phone, screen)
        if moves:
            return with_wrong(ctx, "total", moves)
        total = screen.find(res="total", text=self.shown(phone))
        route = form_route(ledger(phone), self.cents, "Shopping", self.note)
        return read_then(total.id, "total", EXPENSES, route) if total else [wait()]
