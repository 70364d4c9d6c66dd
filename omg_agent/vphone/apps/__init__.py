"""The apps installed on every vphone (the launcher is added by the phone itself)."""

from __future__ import annotations

from omg_agent.vphone.apps.base import App, AppEnv
from omg_agent.vphone.apps.browser import BrowserApp
from omg_agent.vphone.apps.calendar import CalendarApp
from omg_agent.vphone.apps.clock import ClockApp
from omg_agent.vphone.apps.contacts import ContactsApp
from omg_agent.vphone.apps.expenses import ExpensesApp
from omg_agent.vphone.apps.feed import FeedApp
from omg_agent.vphone.apps.files import FilesApp
from omg_agent.vphone.apps.login import LoginApp
from omg_agent.vphone.apps.markor import MarkorApp
from omg_agent.vphone.apps.messages import MessagesApp
from omg_agent.vphone.apps.notes import NotesApp
from omg_agent.vphone.apps.settings import SettingsApp
from omg_agent.vphone.apps.shop import ShopApp
from omg_agent.vphone.apps.todo import TodoApp

APP_CLASSES: list[type[App]] = [SettingsApp, NotesApp, ShopApp, MessagesApp, FeedApp,
                                 LoginApp, BrowserApp,
                                 # issue 36: appended, so today's home-screen icons stay put
                                 CalendarApp, ClockApp, ContactsApp, FilesApp, MarkorApp,
                                 ExpensesApp, TodoApp]


def default_apps(env: AppEnv) -> list[App]:
    return [cls(env) for cls in APP_CLASSES]
