"""Family B of issue 36 — Expenses (记账) and To-do (待办): the table of their templates.

Parameters come from the entry's own RNG; notes and titles differ from what the apps seed
(a seeded row equal to the one to add would show before it is added).
"""

from __future__ import annotations

import random

from omg_agent.bench.suite import pools
from omg_agent.bench.suite.entry import Entry
from omg_agent.bench.suite.ledger_cross_tasks import CartToExpense, TotalToNotes
from omg_agent.bench.suite.ledger_tasks import (
    AddExpense,
    ChangeCategory,
    DeleteExpense,
    MissingCategory,
    UndoDelete,
)
from omg_agent.bench.suite.ledger_todo_tasks import (
    AddTodo,
    CompleteTodos,
    DeleteCompleted,
    ReopenHidden,
)
from omg_agent.sim.expert.tasks import Task
from omg_agent.vphone.apps.expenses import CATEGORIES, SEED
from omg_agent.vphone.apps.todo import SEED as TODO_SEED

EXPENSE_NOTES = ("Coffee beans", "Train ticket", "Cinema", "Electric bill", "Bike repair",
                 "Team lunch", "Haircut", "Bus pass")
EXPENSE_NOTES_ZH = ("早餐", "打车回家", "电影票", "水费", "买菜")
MISSING_CATEGORIES = ("Pets", "Travel", "Health", "Education")
# no "Buy …" or "Send …": a task that names paying or sending is done only once something was
# paid or sent (guards.ledger), and adding a to-do pays and sends nothing
TODO_TITLES = ("Fix the bike", "Prepare the invoice", "Pick up birthday cake",
               "Book a dentist visit", "Clean the fridge", "Water the lawn")
TODO_TITLES_ZH = ("交水电费", "给妈妈打电话", "预约体检", "整理衣柜")
SEEDED_NOTES = tuple(note for _, _, note, days in SEED if days >= 0)  # this month's
OPEN_TODOS = tuple(t for t, done, _, _ in TODO_SEED if not done)
DONE_TODOS = tuple(t for t, done, _, _ in TODO_SEED if done)


def _cents(r: random.Random) -> int:
    """An amount as people key it: whole yuan mostly, sometimes with decimals (few keys:
    each is a tap on the keypad)."""
    whole = r.randrange(5, 100)
    return whole * 100 + r.choice([0, 0, 50, r.randrange(1, 100)])


def _add(r: random.Random, zh: bool = False) -> Task:
    notes = EXPENSE_NOTES_ZH if zh else EXPENSE_NOTES
    return AddExpense(cents=_cents(r), category=r.choice(CATEGORIES), note=r.choice(notes),
                      zh=zh)


def _change(r: random.Random) -> Task:
    note = r.choice(SEEDED_NOTES)
    now = next(cat for _, cat, n, _ in SEED if n == note)
    return ChangeCategory(note=note, category=r.choice([c for c in CATEGORIES if c != now]))


def _add_todo(r: random.Random, zh: bool = False) -> Task:
    return AddTodo(title=r.choice(TODO_TITLES_ZH if zh else TODO_TITLES),
                   due=r.choice(["today", "tomorrow", "next_week"]),
                   priority=r.choice(["high", "medium", "low"]), zh=zh)


E = Entry
ENTRIES: tuple[Entry, ...] = (
    # -- Expenses
    E("expenses.add", ("single-app", "popup"), _add),
    E("expenses.add.zh", ("single-app", "popup", "zh"), lambda r: _add(r, zh=True)),
    E("expenses.delete_swipe", ("single-app", "sensitive"),
      lambda r: DeleteExpense(note=r.choice(SEEDED_NOTES))),
    E("expenses.undo_delete", ("single-app", "timed", "non-home"),
      lambda r: UndoDelete(note=r.choice(SEEDED_NOTES))),
    E("expenses.change_category", ("single-app", "popup"), _change),
    E("expenses.missing_category", ("single-app", "impossible", "popup"),
      lambda r: MissingCategory(category=r.choice(MISSING_CATEGORIES), cents=_cents(r))),
    E("expenses.total_to_notes", ("cross-app", "needs-memory", "popup"),
      lambda r: TotalToNotes(category=r.choice(["Food", "Transport"]),
                             title=r.choice(pools.NOTE_TITLES))),
    E("shop.cart_to_expense", ("cross-app", "needs-memory"),
      lambda r: CartToExpense(products=r.sample(pools.PRODUCTS, r.choice([1, 2])),
                              note=r.choice(["Shop order", "Online shopping", "Gadgets"]))),
    # -- To-do
    E("todo.add", ("single-app", "popup"), _add_todo),
    E("todo.add.zh", ("single-app", "popup", "zh"), lambda r: _add_todo(r, zh=True)),
    E("todo.complete_two", ("single-app", "multi-goal"),
      lambda r: CompleteTodos(titles=r.sample(OPEN_TODOS, 2))),
    E("todo.delete_completed", ("single-app", "sensitive", "multi-goal"),
      lambda r: DeleteCompleted(also_done=r.choice(OPEN_TODOS))),
    E("todo.reopen_hidden", ("single-app",), lambda r: ReopenHidden(title=r.choice(DONE_TODOS))),
)
