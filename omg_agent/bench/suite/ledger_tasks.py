"""Expenses tasks (issue 36, family B): add an expense on the amount keypad with the category
spinner, delete one by swiping it away, get back one deleted by mistake (the undo snackbar
times out: Recently deleted keeps it), change an expense's category, and an expense in a
category the app does not have (infeasible). Across apps: :mod:`.ledger_cross_tasks`.

Every check reads Expenses' state (amounts in cents); criteria quote what the list shows
only once the change is saved.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from omg_agent.bench.suite.nav import (
    a_tap,
    a_type,
    back,
    front,
    point,
    wait,
)
from omg_agent.bench.suite.settings_tasks import ZH_LOCALE
from omg_agent.sim.expert.screen import Screen, el, report_infeasible, tap, type_into
from omg_agent.sim.expert.tasks import MoveContext, Moves, Task
from omg_agent.vphone.apps.expenses import CATEGORIES, entry_of
from omg_agent.vphone.apps.shop_catalog import format_price

log = logging.getLogger(__name__)

EXPENSES = "com.omg.expenses"
KEY_IDS = {".": "key_dot", "⌫": "key_backspace"}


def ledger(phone: Any) -> Any:
    return phone.apps[EXPENSES]


def rows(phone: Any) -> list[tuple[int, str, str]]:
    """The expenses as (amount, category, note), in the app's order."""
    return [(e["amount"], e["category"], e["note"]) for e in ledger(phone).expenses]


def key_taps(entry: str, wanted: str) -> Moves:
    """Keypad taps that turn the amount ``entry`` into ``wanted`` (anchored: each key
    changes only the amount, the keypad stays)."""
    keep = 0
    while keep < min(len(entry), len(wanted)) and entry[keep] == wanted[keep]:
        keep += 1
    keys = ["⌫"] * (len(entry) - keep) + list(wanted[keep:])
    return [a_tap(res=KEY_IDS.get(k, f"key_{k}")) for k in keys]


def to_list(phone: Any, screen: Screen) -> Moves:
    """Moves to Expenses' list with no dropdown open (empty when there)."""
    moves = front(phone, screen, EXPENSES)
    if moves:
        return moves
    app = ledger(phone)
    return [back()] if app.menu or app.screen.name != "main" else []


def fill_form(phone: Any, screen: Screen, cents: int, category: str, note: str) -> Moves:
    """In the open Add / Edit form: write the note, choose the category, key the amount,
    Save — what is already right is left alone."""
    app = ledger(phone)
    name = app.cat(category)
    moves: Moves = []
    if app.menu == "category":
        option = screen.find(text=name)
        if option is None:
            return [back()]
        moves.append(tap(option))
    else:
        box = screen.find(res="note_input")
        if app.field("note") != note:
            moves.append(type_into(box, note) if box else a_type("note_input", note))
        if app.draft_category != category:
            moves += [a_tap(res="category_spinner"), a_tap(text=name)]
    return [*moves, *key_taps(app.entry, entry_of(cents)), a_tap(res="save")]


def form_route(app: Any, cents: int, category: str, note: str) -> Moves:
    """From the list: the Add form filled in and saved, all anchored."""
    return [a_tap(res="fab_add"), a_type("note_input", note), a_tap(res="category_spinner"),
            a_tap(text=app.cat(category)), *key_taps("", entry_of(cents)), a_tap(res="save")]


def add_expense(phone: Any, screen: Screen, cents: int, category: str, note: str) -> Moves:
    """Moves that add the expense from wherever the phone is."""
    app = ledger(phone)
    route = form_route(app, cents, category, note)
    moves = front(phone, screen, EXPENSES, route)
    if moves:
        return moves
    if app.screen.name == "edit" and app.screen.params.get("id") is None:
        return fill_form(phone, screen, cents, category, note)
    moves = to_list(phone, screen)
    if moves:
        return moves
    fab = screen.find(res="fab_add")
    return [tap(fab), *route[1:]] if fab else [wait()]


def money(cents: int) -> str:
    return format_price(cents)


@dataclass
class AddExpense(Task):
    """Add an expense: the amount on the keypad, the category from the spinner, a note;
    ``zh`` gives the goal in Chinese on a Chinese phone."""

    cents: int = 0
    category: str = "Food"
    note: str = ""
    zh: bool = False

    def __post_init__(self) -> None:
        if self.category not in CATEGORIES:
            raise ValueError(f"category must be one of {', '.join(CATEGORIES)}")
        if self.zh:
            from omg_agent.vphone.apps.expenses import CATEGORIES_ZH

            self.goal = (f"在记账里记一笔{money(self.cents)}的「{CATEGORIES_ZH[self.category]}」"
                         f"支出，备注「{self.note}」")
        else:
            self.goal = (f"In Expenses, add an expense of {money(self.cents)} in "
                         f"{self.category} with the note {self.note}")
        self.criteria = f'the expense list shows "{self.note}" with "{money(self.cents)}"'
        self.before: list[tuple[int, str, str]] = []

    def setup(self, phone: Any) -> None:
        if self.zh:
            phone.set_locale(ZH_LOCALE)
        self.before = rows(phone)

    def check(self, phone: Any) -> bool:
        return rows(phone) == [*self.before, (self.cents, self.category, self.note)]

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return to_list(phone, screen) if ledger(phone).screen.name != "main" else []
        return add_expense(phone, screen, self.cents, self.category, self.note)


def swipe_away(row: Any) -> dict[str, Any]:
    """A swipe from the row's right part to the left edge: 80% of its width."""
    return {"type": "swipe", "from": point(900, row.y), "to": point(100, row.y)}


@dataclass
class DeleteExpense(Task):
    """Delete one expense by swiping its row away: a delete to the gate (a sideways swipe
    across a list row, guards.landing) that the goal authorises by naming the expense, so
    the gate does not ask and neither does the expert."""

    note: str = ""

    def __post_init__(self) -> None:
        self.goal = f"Delete the expense {self.note} in Expenses"
        self.criteria = f'the expense list no longer shows "{self.note}"'
        self.before: list[tuple[int, str, str]] = []

    def answer_user(self, question: str) -> str | None:
        return "Yes."  # the goal names the expense: asked anyway, the user agrees

    def setup(self, phone: Any) -> None:
        self.before = rows(phone)
        app = ledger(phone)
        left = app.total() - next(e["amount"] for e in app.expenses if e["note"] == self.note)
        self.criteria = f'the expense list shows "This month: {money(left)}"'

    def check(self, phone: Any) -> bool:
        return rows(phone) == [r for r in self.before if r[2] != self.note]

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        moves = to_list(phone, screen)
        if moves:
            return moves
        row = screen.find(res="expense_item", text=self.note)
        return [swipe_away(row)] if row else [wait()]


@dataclass
class UndoDelete(Task):
    """The phone starts in Expenses right after an expense was swiped away: get it back —
    UNDO while the snackbar shows, else from Recently deleted."""

    note: str = ""

    def __post_init__(self) -> None:
        self.goal = f"I deleted the expense {self.note} in Expenses by mistake. Bring it back."
        self.criteria = f'the expense list shows "{self.note}"'
        self.before: list[tuple[int, str, str]] = []
        self.record: dict[str, Any] = {}

    def setup(self, phone: Any) -> None:
        self.before = rows(phone)
        # the total with it back: text the list shows only once it is restored (its name
        # shows in the snackbar before)
        self.criteria = f'the expense list shows "This month: {money(ledger(phone).total())}"'
        phone.start_activity(EXPENSES)
        app = ledger(phone)
        self.record = dict(next(e for e in app.expenses if e["note"] == self.note))
        app.delete(self.record["id"])
        phone.changed()

    def check(self, phone: Any) -> bool:
        """The very record is back (its date too: one typed again is dated today)."""
        return sorted(rows(phone)) == sorted(self.before) and \
            self.record in ledger(phone).expenses

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return to_list(phone, screen) if ledger(phone).screen.name == "trash" else []
        app = ledger(phone)
        restore = a_tap(res="restore", desc=f"Restore {self.note}")
        moves = front(phone, screen, EXPENSES, [a_tap(res="overflow"),
                                                a_tap(text="Recently deleted"), restore])
        if moves:
            return moves
        if app.screen.name == "trash":
            found = screen.find(res="restore", desc=f"Restore {self.note}")
            return [tap(found)] if found else [back()]
        undo = screen.find(res="snackbar_action")
        if undo is not None:
            return [tap(undo)]
        moves = to_list(phone, screen)
        if moves:
            return moves
        more = screen.find(res="overflow")
        return [tap(more), a_tap(text="Recently deleted"), restore] if more else [wait()]


@dataclass
class ChangeCategory(Task):
    """Move one expense to another category (open it, the spinner, Save)."""

    note: str = ""
    category: str = "Other"

    def __post_init__(self) -> None:
        self.goal = f"In Expenses, change the category of {self.note} to {self.category}"
        self.criteria = f'the list shows "{self.note}" under "{self.category}"'
        self.before: list[tuple[int, str, str]] = []

    def setup(self, phone: Any) -> None:
        self.before = rows(phone)

    def wanted(self) -> list[tuple[int, str, str]]:
        return [(a, self.category if n == self.note else c, n) for a, c, n in self.before]

    def check(self, phone: Any) -> bool:
        return rows(phone) == self.wanted()

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        app = ledger(phone)
        if self.check(phone):
            return to_list(phone, screen) if app.screen.name != "main" else []
        found = next(e for e in app.expenses if e["note"] == self.note)
        route = [a_tap(res="expense_item", text=self.note), a_tap(res="category_spinner"),
                 a_tap(text=app.cat(self.category)), a_tap(res="save")]
        moves = front(phone, screen, EXPENSES, route)
        if moves:
            return moves
        if app.screen.name == "edit" and app.screen.params.get("id") == found["id"]:
            return fill_form(phone, screen, found["amount"], self.category, self.note)
        moves = to_list(phone, screen)
        if moves:
            return moves
        row = screen.find(res="expense_item", text=self.note)
        return [tap(row), *route[1:]] if row else [wait()]


@dataclass
class MissingCategory(Task):
    """An expense in a category Expenses does not have: open the spinner, see, report."""

    category: str = "Pets"
    cents: int = 3000

    def __post_init__(self) -> None:
        if self.category in CATEGORIES:
            raise ValueError(f"Expenses has a {self.category} category")
        self.goal = (f"In Expenses, add an expense of {money(self.cents)} in the "
                     f"{self.category} category")
        self.criteria = f'the expense list shows "{self.category}" with "{money(self.cents)}"'
        self.before: list[tuple[int, str, str]] = []

    def setup(self, phone: Any) -> None:
        self.before = rows(phone)

    def check(self, phone: Any) -> bool:
        return rows(phone) == self.before

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        app = ledger(phone)
        look = [a_tap(res="fab_add"), a_tap(res="category_spinner")]
        moves = front(phone, screen, EXPENSES, look)
        if moves:
            return moves
        if app.menu == "category":
            names = ", ".join(CATEGORIES)
            return [report_infeasible(f"Expenses has no {self.category} category; its "
                                      f"categories are {names}.")]
        if app.screen.name == "edit":
            spinner = screen.find(res="category_spinner")
            return [{"type": "tap", "target": el(spinner)}] if spinner else [wait()]
        moves = to_list(phone, screen)
        if moves:
            return moves
        fab = screen.find(res="fab_add")
        return [tap(fab), look[1]] if fab else [wait()]
