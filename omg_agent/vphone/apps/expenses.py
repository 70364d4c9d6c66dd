"""Expenses / 记账: an expense tracker with the controls real ones use.

The list shows this month's expenses (newest first) under a monthly total and a category
filter (a Spinner); a sideways swipe on a row deletes it and a snackbar offers UNDO for a
few seconds of the phone's clock; deleted expenses stay under "Recently deleted" (the ⋮
menu) where Restore puts them back. "+" opens the Add form: the amount is entered on the
app's own numeric keypad (the amount is a TextView — the keyboard cannot type into it, as
in many real apps), the category is a Spinner, the note an edit field. A tap on a row opens
the same form to edit it.

``state()`` holds every expense (amount in cents, category, note, date), the deleted ones
and the monthly total. The screens are built in :mod:`.expenses_views`.
"""

from __future__ import annotations

import datetime as dt

from omg_agent.vphone.apps.base import App, AppEnv
from omg_agent.vphone.ui.kit import Kit
from omg_agent.vphone.ui.lists import Undo
from omg_agent.vphone.ui.view import View

CATEGORIES = ("Food", "Transport", "Shopping", "Bills", "Other")
CATEGORIES_ZH = {"Food": "餐饮", "Transport": "交通", "Shopping": "购物", "Bills": "账单",
                 "Other": "其他"}
MAX_WHOLE_DIGITS = 7
# (amount in cents, category, note, days before today; a negative day: last month)
SEED = ((3250, "Food", "Lunch with Sam", 0), (1800, "Transport", "Taxi home", 1),
        (12999, "Shopping", "Running shoes", 2), (8600, "Bills", "Phone bill", 4),
        (2475, "Food", "Groceries", 5), (650, "Transport", "Metro card top-up", 7),
        (4200, "Food", "Pizza night", -3), (9900, "Other", "Gift for Mia", -8))


def today(clock_s: float) -> dt.date:
    return dt.date.fromtimestamp(clock_s)


def seed_date(now: dt.date, days: int) -> str:
    """A seeded expense's date: ``days`` before today but in this month (never before the
    1st); a negative ``days`` is that many days before the 1st (last month)."""
    if days < 0:
        return (now.replace(day=1) + dt.timedelta(days=days)).isoformat()
    return now.replace(day=max(1, now.day - days)).isoformat()


def parse_amount(text: str) -> int:
    """Cents of a keypad entry ("12.5" → 1250; "" → 0)."""
    if not text or text == ".":
        return 0
    whole, _, frac = text.partition(".")
    return int(whole or "0") * 100 + int((frac + "00")[:2])


def keyed(entry: str, key: str) -> str:
    """The keypad entry after pressing ``key`` (a digit, "." or "⌫"): at most two decimals,
    one point, :data:`MAX_WHOLE_DIGITS` whole digits, no leading zeros."""
    if key == "⌫":
        return entry[:-1]
    whole, point, frac = entry.partition(".")
    if key == ".":
        return entry if point else (entry or "0") + "."
    if point:
        return entry if len(frac) >= 2 else entry + key
    if whole == "0":
        return key
    return entry if len(whole) >= MAX_WHOLE_DIGITS else entry + key


class ExpensesApp(App):
    package = "com.omg.expenses"
    label = "Expenses"
    label_zh = "记账"
    glyph = "¥"
    color = (46, 160, 110)
    activities = {"main": ".ExpenseListActivity", "edit": ".EditExpenseActivity",
                  "trash": ".RecentlyDeletedActivity"}

    def __init__(self, env: AppEnv) -> None:
        self.undo = Undo(env.clock)
        super().__init__(env)

    def reset_data(self) -> None:
        now = self.today()
        self.expenses: list[dict] = [
            {"id": i + 1, "amount": amount, "category": cat, "note": note,
             "date": seed_date(now, days)}
            for i, (amount, cat, note, days) in enumerate(SEED)]
        self.deleted: list[dict] = []
        self.undo.dismiss()

    def reset_ui(self) -> None:
        super().reset_ui()
        self.filter = ""  # "" = all categories
        self.menu = ""  # the open dropdown: "filter", "category", "overflow" or ""
        self.offset = 0
        self.entry = ""  # the Add form's keypad entry
        self.draft_category = "Food"
        self.undo.dismiss()

    def today(self) -> dt.date:
        return today(self.env.clock())

    # -- helpers -------------------------------------------------------------------------
    def cat(self, key: str) -> str:
        """A category's name in the phone's language."""
        return self.t(key, CATEGORIES_ZH.get(key, key))

    def this_month(self, category: str = "") -> list[dict]:
        month = self.today().isoformat()[:7]
        return [e for e in self.expenses if e["date"][:7] == month
                and (not category or e["category"] == category)]

    def total(self, category: str = "") -> int:
        return sum(e["amount"] for e in self.this_month(category))

    def shown(self) -> list[dict]:
        """The list's rows: this month's expenses of the filter's category, newest first."""
        rows = self.this_month(self.filter)
        return sorted(rows, key=lambda e: (e["date"], e["id"]), reverse=True)

    def frame_key(self) -> tuple:
        return (self.undo.active(),)

    def back(self) -> bool:
        if self.menu and not self.ime_shown:
            self.menu = ""
            return True
        return super().back()

    # -- actions -------------------------------------------------------------------------
    def open_menu(self, name: str) -> None:
        self.menu = name
        self.focus = None

    def close_menu(self) -> None:
        self.menu = ""

    def pick_filter(self, i: int) -> None:
        self.filter = "" if i == 0 else CATEGORIES[i - 1]
        self.menu, self.offset = "", 0

    def pick_category(self, i: int) -> None:
        self.draft_category = CATEGORIES[i]
        self.menu = ""

    def pick_overflow(self, i: int) -> None:
        self.menu = ""
        self.push("trash")

    def press(self, key: str) -> None:
        self.entry = keyed(self.entry, key)

    def open_form(self, expense_id: int | None = None) -> None:
        self.undo.dismiss()
        self.push("edit", id=expense_id)
        found = self._by_id(expense_id)
        self.entry = entry_of(found["amount"]) if found else ""
        self.draft_category = found["category"] if found else (self.filter or "Food")
        self.fields = {"note": found["note"] if found else ""}

    def save(self) -> None:
        amount = parse_amount(self.entry)
        if amount <= 0:
            return
        found = self._by_id(self.screen.params.get("id"))
        if found is None:
            new_id = max((e["id"] for e in self.expenses + self.deleted), default=0) + 1
            self.expenses.append({"id": new_id, "amount": amount,
                                  "category": self.draft_category,
                                  "note": self.field("note").strip(),
                                  "date": self.today().isoformat()})
        else:
            found.update(amount=amount, category=self.draft_category,
                         note=self.field("note").strip())
        self.stack.pop()
        self.fields, self.focus, self.entry = {}, None, ""

    def delete(self, expense_id: int) -> None:
        """Swipe-to-delete: the row goes, the snackbar offers UNDO, Recently deleted keeps
        it."""
        found = self._by_id(expense_id)
        if found is None:
            return
        index = self.expenses.index(found)
        self.expenses.remove(found)
        self.deleted.append(found)
        self.undo.offer(found["note"] or self.cat(found["category"]),
                        lambda: self.restore(expense_id, index))

    def restore(self, expense_id: int, index: int | None = None) -> None:
        found = next((e for e in self.deleted if e["id"] == expense_id), None)
        if found is None:
            return
        self.deleted.remove(found)
        self.expenses.insert(len(self.expenses) if index is None else index, found)

    def scroll(self, delta: int) -> None:
        self.offset = max(0, self.offset + delta)

    def _by_id(self, expense_id: int | None) -> dict | None:
        return next((e for e in self.expenses if e["id"] == expense_id), None)

    # -- views and outcome ---------------------------------------------------------------
    def build(self, kit: Kit) -> View:
        from omg_agent.vphone.apps.expenses_views import build

        return build(self, kit)

    def state(self) -> dict:
        draft = None
        if self.screen.name == "edit":
            draft = {"amount": parse_amount(self.entry), "category": self.draft_category,
                     "note": self.field("note"), "id": self.screen.params.get("id")}
        return {"expenses": [dict(e) for e in self.expenses],
                "deleted": [dict(e) for e in self.deleted], "total": self.total(),
                "filter": self.filter, "screen": self.screen.name, "draft": draft,
                "snackbar": self.undo.label if self.undo.active() else "",
                "menu": self.menu}


def entry_of(cents: int) -> str:
    """The keypad entry that shows ``cents`` (1250 → "12.5", 1200 → "12")."""
    whole, frac = divmod(cents, 100)
    return f"{whole}" if not frac else f"{whole}.{frac:02d}".rstrip("0")
