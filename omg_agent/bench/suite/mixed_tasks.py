"""Mixed tasks (issue 36): templates that join the new families' apps, reusing their
moves. Shop's search results load behind a spinner ("Searching…", ``search_delay``): a
price read after they load goes into Expenses or To-do (async, needs memory); a Calendar
event's start sets a Clock alarm 30 minutes before it, or its title becomes a to-do; a
contact is starred and texted in one goal (multi-goal; the send asks the user); and an
alarm before an event that is not on that date (infeasible: nothing is created).

Checks read the apps' state only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from omg_agent.bench.suite.contacts_tasks import StarContact
from omg_agent.bench.suite.cross_tasks import read_then
from omg_agent.bench.suite.ledger_tasks import EXPENSES, add_expense, form_route, ledger, money
from omg_agent.bench.suite.ledger_tasks import rows as expense_rows
from omg_agent.bench.suite.ledger_todo_tasks import AddTodo
from omg_agent.bench.suite.nav import new_message, saved, with_wrong
from omg_agent.bench.suite.shop_tasks import set_popup
from omg_agent.bench.suite.social_tasks import in_thread, was_sent
from omg_agent.bench.suite.timekeeping_nav import CLOCK, open_day, set_alarm
from omg_agent.bench.suite.timekeeping_tasks import CalendarTask, calendar_events
from omg_agent.sim.expert.screen import Screen, report_infeasible, wait
from omg_agent.sim.expert.tasks import SHOP, MoveContext, Moves, Task, _product_id, _to_product
from omg_agent.vphone.apps.calendar import hhmm
from omg_agent.vphone.ui.pickers import full_date

LEAD_MIN = 30  # how long before the event its alarm rings


SEARCH_S = 1.0  # the results spinner turns this long (phone clock): short expert runs


def short_search(phone: Any) -> None:
    phone.apps[SHOP].search_delay = SEARCH_S


def shop_price(phone: Any, product: str) -> int:
    return int(phone.apps[SHOP].prices[_product_id(product)])


def found_price(phone: Any, screen: Screen, product: str, ctx: MoveContext) -> Any:
    """(moves, None) that search Shop for ``product`` and wait out the results spinner onto
    its page, or ([], the price element) once the page shows."""
    moves = _to_product(phone, screen, _product_id(product), ctx)
    return (moves, None) if moves else ([], screen.find(res="price"))


@dataclass
class SearchPriceToExpense(Task):
    """Search Shop for a product (results load behind a spinner) and record its price as a
    Shopping expense noted with the product's name."""

    product: str = ""

    def __post_init__(self) -> None:
        _product_id(self.product)  # ValueError: not sold
        self.goal = (f"Search Shop for {self.product} and record its price as an expense in "
                     f"Expenses: category Shopping, note {self.product}")
        self.data_output = "price"
        self.criteria = f'the expense list shows "{self.product}"'
        self.cents = 0
        self.before: list[tuple[int, str, str]] = []

    def setup(self, phone: Any) -> None:
        short_search(phone)
        self.cents = shop_price(phone, self.product)
        self.before = expense_rows(phone)
        # the product and its price show in Shop too: the month's new total only in Expenses
        total = money(ledger(phone).total() + self.cents)
        self.criteria = f'the expense list shows "{self.product}" and "This month: {total}"'

    def check(self, phone: Any) -> bool:
        return expense_rows(phone) == [*self.before, (self.cents, "Shopping", self.product)]

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        if saved(ctx, "price", money(self.cents)):
            return add_expense(phone, screen, self.cents, "Shopping", self.product)
        moves, price = found_price(phone, screen, self.product, ctx)
        if moves or price is None:
            return moves or [wait()]
        route = form_route(ledger(phone), self.cents, "Shopping", self.product)
        return read_then(price.id, "price", EXPENSES, route)


def todo_title(product: str, price: str) -> str:
    # no "Buy …": a goal that names buying is done only once something was paid
    return f"Compare {product} at {price}"


@dataclass
class SearchPriceToTodo(Task):
    """Search Shop for a product and add a to-do naming it with the price the results show
    once loaded (due today, low priority), past the promo popup."""

    product: str = ""

    def __post_init__(self) -> None:
        _product_id(self.product)
        self.goal = (f"Search Shop for {self.product}, then add a to-do \"Compare "
                     f"{self.product} at <its price>\" (the price as Shop shows it), due "
                     "today with low priority")
        self.data_output = "price"
        self.criteria = f'the to-do list shows "Compare {self.product} at"'
        self.todo = AddTodo(title="", due="today", priority="low")

    def setup(self, phone: Any) -> None:
        set_popup(phone, "always")  # the promo popup covers the Shop at launch
        short_search(phone)
        price = money(shop_price(phone, self.product))
        self.todo = AddTodo(title=todo_title(self.product, price), due="today",
                            priority="low")
        self.todo.setup(phone)
        self.criteria = f'the to-do list shows "{self.todo.title}"'

    def check(self, phone: Any) -> bool:
        return self.todo.check(phone)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        price = money(shop_price(phone, self.product))
        if self.check(phone) or saved(ctx, "price", price):
            return self.todo.moves(phone, screen, ctx)
        moves, element = found_price(phone, screen, self.product, ctx)
        if moves or element is None:
            return moves or [wait()]
        save = read_then(element.id, "price", SHOP, [])[0]  # the mem_save alone
        return [save, *self.todo.moves(phone, screen, ctx)]  # AddTodo's launch and route


def minus(start: str, minutes: int) -> str:
    h, m = start.split(":")
    return hhmm((int(h) * 60 + int(m) - minutes) % (24 * 60))


def alarms(phone: Any) -> list[dict]:
    return [dict(a, days=list(a["days"])) for a in phone.apps[CLOCK].alarms]


@dataclass
class EventTask(CalendarTask):
    """A task about the event ``events[index]`` whose outcome lands in another app."""

    index: int = 0

    @property
    def event(self) -> dict:
        return (self.events or [])[self.index]

    @property
    def day(self) -> date:
        return date.fromisoformat(self.event["date"])

    def setup(self, phone: Any) -> None:
        super().setup(phone)
        self.alarms_before = alarms(phone)

    def read_event(self, phone: Any, screen: Screen, ctx: MoveContext, key: str,
                   value: str) -> Moves:
        """Moves that open the event's day; once its row shows: save ``value`` as ``$key``
        (read off the row, as a model reads it)."""
        moves = open_day(phone, screen, self.day)
        if moves:
            return with_wrong(ctx, key, moves)
        if screen.find(res="event_item", text=self.event["title"]) is None:
            return [wait()]
        return [{"type": "mem_save", "key": key, "value": value}]


@dataclass
class AlarmBeforeEvent(EventTask):
    """Set a Clock alarm ``LEAD_MIN`` minutes before a Calendar event starts: the start is
    read in Calendar, the alarm time computed and set with the picker."""

    def __post_init__(self) -> None:
        e = self.event
        self.time = minus(e["start"], LEAD_MIN)
        self.goal = (f"Set an alarm in Clock {LEAD_MIN} minutes before {e['title']} starts on "
                     f"{full_date(self.day, False)} (the event is in Calendar)")
        self.data_output = "time"
        self.criteria = f'the alarm list shows "{self.time}"'

    def check(self, phone: Any) -> bool:
        now = alarms(phone)
        new = [a for a in now if a not in self.alarms_before]
        return (calendar_events(phone) == self.before and len(now) == len(
            self.alarms_before) + 1 and len(new) == 1 and new[0]["time"] == self.time
                and new[0]["on"] and not new[0]["days"])

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        if saved(ctx, "time", self.event["start"]):
            return set_alarm(phone, screen, self.time, "", [])
        moves = self.read_event(phone, screen, ctx, "time", self.event["start"])
        if moves[0]["type"] != "mem_save":
            return moves
        return [*moves, *set_alarm(phone, screen, self.time, "", [])]


@dataclass
class EventToTodo(EventTask):
    """Add the event Calendar shows on a day as a to-do (its title, due tomorrow, high
    priority): the title is read in Calendar and typed in To-do."""

    def __post_init__(self) -> None:
        self.goal = (f"Look up the event I have on {full_date(self.day, False)} in Calendar "
                     "and add it to To-do with the event's title, due tomorrow, high priority")
        self.data_output = "event"
        self.todo = AddTodo(title=self.event["title"], due="tomorrow", priority="high")
        self.criteria = self.todo.criteria

    def setup(self, phone: Any) -> None:
        super().setup(phone)
        self.todo.setup(phone)

    def check(self, phone: Any) -> bool:
        return calendar_events(phone) == self.before and self.todo.check(phone)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone) or saved(ctx, "event", self.event["title"]):
            return self.todo.moves(phone, screen, ctx)
        moves = self.read_event(phone, screen, ctx, "event", self.event["title"])
        if moves[0]["type"] != "mem_save":
            return moves
        return [*moves, *self.todo.moves(phone, screen, ctx)]


@dataclass
class MissingEventAlarm(EventTask):
    """An alarm before an event that is not on the day named (it is on another day): the
    right end is infeasible, no alarm and no event created."""

    on: date = date(2026, 3, 2)  # a day with no event

    def __post_init__(self) -> None:
        e = self.event
        self.goal = (f"Set an alarm in Clock {LEAD_MIN} minutes before {e['title']} starts on "
                     f"{full_date(self.on, False)} (the event is in Calendar)")
        self.criteria = "no new alarm"

    def check(self, phone: Any) -> bool:
        return calendar_events(phone) == self.before and alarms(phone) == self.alarms_before

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        moves = open_day(phone, screen, self.on)
        if moves:
            return moves
        return [report_infeasible(f"Calendar has no {self.event['title']} on "
                                  f"{full_date(self.on, False)}")]


@dataclass
class StarAndText(Task):
    """Two goals in two apps: star a contact in Contacts and text them at the number their
    card shows (the send asks the user first)."""

    name: str = ""
    number: str = ""
    text: str = ""
    star: StarContact = field(default_factory=StarContact)

    def __post_init__(self) -> None:
        self.star = StarContact(name=self.name)
        self.goal = (f"Add {self.name} to favorites in Contacts and text them \"{self.text}\" "
                     f"in Messages at their number ({self.number})")
        # the star is done first (checked from state); the run ends on the sent message
        self.criteria = in_thread(self.number, self.text)
        self.question = f"Send \"{self.text}\" to {self.name} at {self.number}?"

    def check(self, phone: Any) -> bool:
        return self.star.check(phone) and was_sent(phone, self.number, self.text)

    def answer_user(self, question: str) -> str | None:
        return "Yes."

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        if not self.star.check(phone):
            return self.star.moves(phone, screen, ctx)
        return new_message(phone, screen, self.number, self.text, ctx, self.question)
