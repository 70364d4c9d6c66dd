"""Family B's templates (Expenses, To-do): every check fails on the phone left as the setup
left it and on a near-miss end state set directly on the apps' state, and passes on the
right end state set the same way. That the expert reaches the right end state through the
real stack is ``tests/integration/test_suite_expert_runs.py`` (``-k "expenses or todo or
cart_to_expense"``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from suite_tools import task_named

from omg_agent.bench.suite import suite_tasks
from omg_agent.bench.suite.ledger_entries import ENTRIES
from omg_agent.sim.expert.tasks import NOTES, SHOP
from omg_agent.vphone.apps.expenses import CATEGORIES
from omg_agent.vphone.apps.todo import task as todo_task
from omg_agent.vphone.phone import VirtualPhone

SEED, PHONE_SEED = 0, 3
IDS = [e.id for e in ENTRIES]
EXPENSES, TODO = "com.omg.expenses", "com.omg.todo"
Change = Callable[[Any, Any], None]


# -- end states set on the apps' state -----------------------------------------------------
def _expense(cents: int, category: str, note: str) -> Change:
    def add(phone: Any, t: Any) -> None:
        app = phone.apps[EXPENSES]
        app.expenses.append({"id": 99, "amount": cents, "category": category, "note": note,
                             "date": app.today().isoformat()})
    return add


def _added(phone: Any, t: Any, *, cents: int = 0, category: str = "", note: str = "") -> None:
    _expense(cents or t.cents, category or t.category, note or t.note)(phone, t)


def _drop(note_of: Callable[[Any], str]) -> Change:
    def drop(phone: Any, t: Any) -> None:
        app = phone.apps[EXPENSES]
        found = next(e for e in app.expenses if e["note"] == note_of(t))
        app.delete(found["id"])
    return drop


def _other_note(t: Any) -> str:
    return next(n for _, _, n in t.before if n != t.note)


def _restore(phone: Any, t: Any) -> None:
    app = phone.apps[EXPENSES]
    for e in list(app.deleted):
        app.restore(e["id"])


def _recategorise(note: Callable[[Any], str], category: Callable[[Any], str]) -> Change:
    def change(phone: Any, t: Any) -> None:
        for e in phone.apps[EXPENSES].expenses:
            if e["note"] == note(t):
                e["category"] = category(t)
    return change


def _other_category(t: Any) -> str:
    return next(c for c in CATEGORIES if c != t.category)


def _note(body: Callable[[Any], str]) -> Change:
    def write(phone: Any, t: Any) -> None:
        phone.apps[NOTES].notes.append({"title": t.title, "body": body(t)})
    return write


def _cart_total(phone: Any, t: Any, delta: int = 0) -> None:
    _expense(t.cents + delta, "Shopping", t.note)(phone, t)


def _todo(phone: Any, t: Any, **changed: Any) -> None:
    row = {"title": t.title, "due": t.due, "priority": t.priority, **changed}
    phone.apps[TODO].tasks.append(todo_task(row["title"], False, row["due"], row["priority"]))


def _tick(titles: Callable[[Any], list[str]], done: bool = True) -> Change:
    def tick(phone: Any, t: Any) -> None:
        for row in phone.apps[TODO].tasks:
            if row["title"] in titles(t):
                row["done"] = done
    return tick


def _drop_done(keep: int = 0) -> Change:
    def drop(phone: Any, t: Any) -> None:
        app = phone.apps[TODO]
        done = [r for r in app.tasks if r["done"]]
        app.tasks = [r for r in app.tasks if not r["done"]] + done[:keep]
    return drop


def _drop_one_open(phone: Any, t: Any) -> None:
    _drop_done()(phone, t)
    phone.apps[TODO].tasks.pop(0)


NOTHING: Change = lambda phone, t: None  # noqa: E731

# task id -> (the right end state, a near miss)
CASES: dict[str, tuple[Change, Change]] = {
    "expenses.add": (_added, lambda p, t: _added(p, t, category=_other_category(t))),
    "expenses.add.zh": (_added, lambda p, t: _added(p, t, cents=t.cents + 1)),
    "expenses.delete_swipe": (_drop(lambda t: t.note), _drop(_other_note)),
    "expenses.undo_delete": (_restore, lambda p, t: _expense(  # typed again, dated today
        *next((a, c, n) for a, c, n in t.before if n == t.note))(p, t)),
    "expenses.change_category": (_recategorise(lambda t: t.note, lambda t: t.category),
                                 _recategorise(_other_note, lambda t: t.category)),
    "expenses.missing_category": (NOTHING, lambda p, t: _added(p, t, category="Other",
                                                                note=t.category)),
    "expenses.total_to_notes": (_note(lambda t: f"{t.category} total: {t.amount}"),
                                _note(lambda t: f"{t.category} total: {t.amount}9")),
    "shop.cart_to_expense": (_cart_total, lambda p, t: _cart_total(p, t, delta=-100)),
    "todo.add": (_todo, lambda p, t: _todo(p, t, due="")),
    "todo.add.zh": (_todo, lambda p, t: _todo(p, t, priority="medium" if t.priority != "medium"
                                              else "low")),
    "todo.complete_two": (_tick(lambda t: t.titles), _tick(lambda t: t.titles[:1])),
    "todo.delete_completed": (_drop_done(), _drop_done(keep=1)),
    "todo.reopen_hidden": (_tick(lambda t: [t.title], done=False),
                           _tick(lambda t: [r for r, d, _, _ in t.before if d and r != t.title],
                                 done=False)),
}


def test_every_template_has_a_right_and_a_near_miss_end_state() -> None:
    assert sorted(CASES) == sorted(IDS)


@pytest.mark.parametrize("task_id", IDS)
def test_the_check_fails_untouched_and_on_a_near_miss(phone, task_id) -> None:
    task = task_named(task_id)
    task.setup(phone)
    assert task.check(phone) == task.impossible  # untouched: only "nothing harmed" holds
    CASES[task_id][1](phone, task)
    assert not task.check(phone)


@pytest.mark.parametrize("task_id", IDS)
def test_the_check_passes_on_the_right_end_state(phone, task_id) -> None:
    task = task_named(task_id)
    task.setup(phone)
    CASES[task_id][0](phone, task)
    assert task.check(phone)


def test_the_cart_task_fills_the_cart_and_quotes_its_total(phone) -> None:
    task = task_named("shop.cart_to_expense")
    task.setup(phone)
    assert phone.apps[SHOP].cart and task.cents == phone.apps[SHOP].cart_total()
    assert task.criteria.endswith(f'"¥{task.cents // 100:,}.{task.cents % 100:02d}"')


def test_the_undo_task_starts_in_expenses_with_the_snackbar_up(phone) -> None:
    task = task_named("expenses.undo_delete")
    task.setup(phone)
    state = phone.state()
    assert state["foreground"] == EXPENSES
    assert state["apps"][EXPENSES]["snackbar"] == task.note


@pytest.mark.parametrize("seed", range(6))
def test_parameters_are_drawn_per_seed_and_stay_valid(seed) -> None:
    tasks = [t for t in suite_tasks(seed) if t.id in CASES]
    assert [t.id for t in tasks] == IDS
    for t in tasks:
        phone = VirtualPhone(seed=PHONE_SEED)
        try:
            t.setup(phone)  # a drawn title or note the apps do not have raises here
        finally:
            phone.close()
