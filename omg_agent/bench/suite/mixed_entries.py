"""Mixed templates of issue 36: the families' apps joined — Shop's async search into
Expenses and To-do, Calendar into Clock and To-do, Contacts and Messages in one goal, and
an infeasible alarm before an event that is not on the day named."""

from __future__ import annotations

import random
from datetime import timedelta

from omg_agent.bench.suite import pools
from omg_agent.bench.suite.entry import Entry
from omg_agent.bench.suite.files_entries import LATIN
from omg_agent.bench.suite.mixed_tasks import (
    AlarmBeforeEvent,
    EventToTodo,
    MissingEventAlarm,
    SearchPriceToExpense,
    SearchPriceToTodo,
    StarAndText,
)
from omg_agent.bench.suite.timekeeping_entries import _events, _today
from omg_agent.sim.expert.tasks import Task
from omg_agent.vphone.apps.contacts import SEED, full_name


def _alarm_before(r: random.Random) -> Task:
    today = _today(r)
    events = _events(r, today)
    return AlarmBeforeEvent(today=today, events=events, index=r.randrange(len(events)))


def _event_to_todo(r: random.Random) -> Task:
    today = _today(r)
    events = [e for e in _events(r, today) if e["date"] != (today + timedelta(days=1))
              .isoformat()][:3]
    index = r.randrange(len(events))
    events[index]["date"] = (today + timedelta(days=1)).isoformat()
    return EventToTodo(today=today, events=events, index=index)


def _missing_event(r: random.Random) -> Task:
    today = _today(r)
    events = _events(r, today)
    taken = {e["date"] for e in events}
    free = [today + timedelta(days=d) for d in range(1, 12)
            if (today + timedelta(days=d)).isoformat() not in taken]
    return MissingEventAlarm(today=today, events=events, index=r.randrange(len(events)),
                             on=r.choice(free))


def _star_and_text(r: random.Random) -> Task:
    name = r.choice(LATIN)
    card = next(c for c in SEED if full_name(c) == name)
    return StarAndText(name=name, number=card["phones"][0], text=r.choice(pools.MESSAGES_EN))


E = Entry
ENTRIES: tuple[Entry, ...] = (
    E("shop.search_price_to_expense", ("cross-app", "needs-memory", "async"),
      lambda r: SearchPriceToExpense(product=r.choice(pools.PRODUCTS))),
    E("shop.search_price_to_todo", ("cross-app", "needs-memory", "async", "popup"),
      lambda r: SearchPriceToTodo(product=r.choice(pools.PRODUCTS))),
    E("calendar.alarm_before_event", ("cross-app", "needs-memory", "picker"), _alarm_before),
    E("calendar.event_to_todo", ("cross-app", "needs-memory"), _event_to_todo),
    E("contacts.star_and_text", ("cross-app", "multi-goal", "sensitive", "compose"),
      _star_and_text),
    E("calendar.missing_event_alarm", ("cross-app", "impossible"), _missing_event),
)
