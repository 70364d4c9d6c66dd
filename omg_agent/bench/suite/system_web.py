"""Chrome tasks of the system family (issue 36, D): share the open page into Notes through
the share sheet, and fill the sign-up form whose inputs have no labels of their own (the
expert finds the name input as the input after the "Full name" text, as a model must), a
custom select, a Submit ``div``, and a promo field that the keyboard covers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from omg_agent.bench.suite.nav import a_tap, notes_list
from omg_agent.bench.suite.notes_tasks import listed
from omg_agent.bench.suite.settings_tasks import ZH_LOCALE
from omg_agent.perception.elementlist import ParsedElement
from omg_agent.sim.expert.screen import (
    Screen,
    anchor,
    back,
    fg,
    launch,
    tap,
    type_at,
    type_into,
    wait,
)
from omg_agent.sim.expert.tasks import NOTES, MoveContext, Moves, Task
from omg_agent.vphone.apps.browser import BrowserApp
from omg_agent.vphone.apps.browser_forms import FORM_URL, is_form

CHROME = BrowserApp.package
RESOLVER = "com.android.intentresolver"
EXAMPLE_TITLE = "Example Domain"
EXAMPLE_URL = "https://example.com/"
EMAIL_HINT = "you@example.com"


@dataclass
class SharePageToNotes(Task):
    """Share the page open in Chrome into a new note (Chrome → share sheet → Notes)."""

    def __post_init__(self) -> None:
        self.goal = ("Share the page open in Chrome to Notes with Chrome's Share, and save "
                     "the note")
        self.criteria = listed(EXAMPLE_TITLE, EXAMPLE_URL)

    def setup(self, phone: Any) -> None:
        phone.open_url(EXAMPLE_URL)

    def check(self, phone: Any) -> bool:
        return any(n["title"] == EXAMPLE_TITLE and EXAMPLE_URL.rstrip("/") in n["body"]
                   for n in phone.apps[NOTES].notes)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return notes_list(phone, screen)
        save = a_tap(res="save")
        if fg(phone) == RESOLVER:
            return [a_tap(desc="Notes"), save]
        if fg(phone) == NOTES and phone.apps[NOTES].field("title") == EXAMPLE_TITLE:
            return [save]
        if fg(phone) != CHROME or phone.apps[CHROME].url != EXAMPLE_URL:
            return [back()] if fg(phone) == NOTES else [launch(CHROME)]
        route = [a_tap(text="Share…"), a_tap(desc="Notes"), save]
        return route if phone.apps[CHROME].menu_open else [a_tap(res="menu_button"), *route]


def _input_after(screen: Screen, label: str) -> ParsedElement | None:
    """The first input listed after the text ``label`` (a label that is not the input's)."""
    seen = False
    for e in screen.elements:
        if e.text == label:
            seen = True
        elif seen and e.role == "input":
            return e
    return None


@dataclass
class WebSignup(Task):
    """Fill Chrome's sign-up form: name, email, a plan in the custom select, maybe a promo
    code (low on the page: under the keyboard once it is up), then the Submit div."""

    name: str = ""
    email: str = ""
    plan: str = "Pro"
    promo: str = ""
    zh: bool = False

    def __post_init__(self) -> None:
        url = FORM_URL.split("://", 1)[1]
        promo_en = f", with the promo code {self.promo}" if self.promo else ""
        promo_zh = f"，优惠码填{self.promo}" if self.promo else ""
        self.goal = (f"在Chrome打开 {url}，用姓名{self.name}、邮箱{self.email}注册{self.plan}套餐"
                     f"{promo_zh}" if self.zh else
                     f"In Chrome, open {url} and sign up {self.name} with the email "
                     f"{self.email} on the {self.plan} plan{promo_en}")
        self.criteria = f'the page shows "Welcome, {self.name}."'

    def wanted(self) -> dict[str, str]:
        return {"name": self.name, "email": self.email, "promo": self.promo, "plan": self.plan}

    def setup(self, phone: Any) -> None:
        if self.zh:
            phone.set_locale(ZH_LOCALE)

    def check(self, phone: Any) -> bool:
        return self.wanted() in phone.apps[CHROME].forms

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        app = phone.apps[CHROME]
        bar = screen.find(res="url_bar")
        if fg(phone) != CHROME:
            return [launch(CHROME), type_at(anchor(res="url_bar"), FORM_URL, submit=True)]
        if not is_form(app.url) or app.web_form.done:
            return [type_into(bar, FORM_URL, submit=True)] if bar else [wait()]
        return self._fill(app, screen)

    def _fill(self, app: Any, screen: Screen) -> Moves:
        form = app.web_form
        submit = [a_tap(text="Submit")]
        typing = [(key, value, el) for key, value, el in (
            ("web_name", self.name, _input_after(screen, "Full name")),
            ("web_email", self.email, next((e for e in screen.elements if e.hint == EMAIL_HINT
                                            or e.text == self.email), None)))
            if app.field(key) != value]
        if typing:
            found = [(value, el) for _, value, el in typing if el is not None]
            if len(found) < len(typing):
                return [back()] if app.ime_shown else [wait()]
            # a tap on the select (above the keyboard) blurs the input: the keyboard goes
            rest = [] if self.promo else submit  # the promo field waits for its own turn
            return [*(type_into(el, value) for value, el in found),
                    a_tap(text="Choose a plan ▼"), a_tap(text=self.plan), *rest]
        if form.plan != self.plan:
            select = next((e for e in screen.elements if e.text.endswith("▼")), None)
            if form.select_open:
                option = screen.find(text=self.plan)
                return [tap(option)] if option else [wait()]
            return [tap(select), a_tap(text=self.plan)] if select else [back()]
        if app.field("web_promo") != self.promo:
            promo = _input_after(screen, "Promo code (optional)")
            if promo is None:  # under the keyboard: hide it first
                return [back()] if app.ime_shown else [wait()]
            return [type_into(promo, self.promo), back(), *submit]
        return [back(), *submit] if app.ime_shown else submit
