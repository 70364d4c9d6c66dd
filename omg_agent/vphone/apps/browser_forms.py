"""A sign-up form in Chrome's WebView, with the partial accessibility real web forms have.

``https://forms.omg.example/signup`` lays out as a page author wrote it: the name input has
no label of its own (its label is a separate text node above it, as a ``<label>`` without
``for`` is), the email input only a placeholder, the plan a custom select (a ``div`` that
opens a list of ``div`` options, not a Spinner), a promo-code field low on the page and a
Submit that is a ``div`` with text. The page is a scrollable WebView; while the soft keyboard
is up the window is resized (adjustResize), so the page ends at the keyboard and the bottom
of the form (the promo field, Submit) is out of view until the page is scrolled or the
keyboard hidden, and Chrome scrolls a focused field into view, as on a phone. A submitted
form is recorded in the browser's ``state()["forms"]``; a form missing its name or a valid
email shows an error and records nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from omg_agent.vphone.apps.browser_pages import EXAMPLE, FLASH_SALE
from omg_agent.vphone.system_surfaces import keyboard, keyboard_top
from omg_agent.vphone.ui.kit import DIVIDER, MUTED, PRIMARY, Kit
from omg_agent.vphone.ui.view import Bounds, View

if TYPE_CHECKING:
    from omg_agent.vphone.apps.browser import BrowserApp

FORM_URL = "https://forms.omg.example/signup"
PLANS = ("Free", "Plus", "Pro", "Team")
FIELDS = ("name", "email", "promo")  # the app's field keys are "web_" + these
ERROR_RED = (200, 50, 50)
# each row: (key, top dp, height dp) in page coordinates (0 = the top of the page)
LAYOUT = {"title": (16, 40), "intro": (60, 40), "name_label": (112, 24), "name": (140, 52),
          "email": (212, 52), "plan_label": (284, 24), "plan": (312, 52), "error": (384, 28),
          "promo_label": (560, 24), "promo": (588, 52), "submit": (668, 52)}
PAGE_DP = 760


def is_form(url: str) -> bool:
    return url.split("?", 1)[0].rstrip("/") == FORM_URL


def page_title(url: str) -> str:
    """The document title Chrome shares for ``url``."""
    if is_form(url):
        return "Sign up – OMG Newsletter"
    if url.rstrip("/") == EXAMPLE.rstrip("/"):
        return "Example Domain"
    if url.split("?", 1)[0].rstrip("/") == FLASH_SALE:
        return "Flash Sale"
    return urlsplit(url).netloc or url


class WebForm:
    """The form page's own state: the select, the scroll offset, what was submitted."""

    def __init__(self, app: BrowserApp) -> None:
        self.app = app
        self.plan = ""
        self.select_open = False
        self.offset = 0  # px the page is scrolled
        self.error = ""
        self.done = False

    def _pick(self, plan: str) -> None:
        self.plan, self.select_open = plan, False

    def _toggle_select(self) -> None:
        self.select_open = not self.select_open
        self.app.focus = None  # a tap outside an input blurs it (the keyboard goes)

    def _submit(self) -> None:
        values = {k: self.app.field("web_" + k).strip() for k in FIELDS}
        if not values["name"] or "@" not in values["email"] or not self.plan:
            self.error = "Please fill in your name, a valid email and a plan."
            return
        self.error = ""
        self.app.forms.append({**values, "plan": self.plan})
        self.done = True
        self.app.focus = None

    def _scroll(self, delta: int, limit: int) -> None:
        self.offset = max(0, min(limit, self.offset + delta))

    def build(self, kit: Kit, bounds: Bounds) -> View:
        left, top, right, bottom = bounds
        ime = self.app.ime_shown and (self.app.focus or "").startswith("web_")
        if ime:
            bottom = min(bottom, keyboard_top(kit))  # adjustResize: the window ends there
        page_h = kit.dp(PAGE_DP)
        limit = max(0, page_h - (bottom - top))
        focus = (self.app.focus or "").removeprefix("web_")
        if ime and focus in LAYOUT:  # Chrome scrolls the focused input into view
            f_top, f_h = LAYOUT[focus]
            f_bottom = kit.dp(f_top + f_h + 16)
            if f_bottom - self.offset > bottom - top:
                self.offset = f_bottom - (bottom - top)
        self.offset = min(self.offset, limit)
        web = kit.view("android.webkit.WebView", (left, top, right, bottom), scrollable=True,
                       focusable=True, clips=True, desc="Sign up – OMG Newsletter",
                       on_scroll=partial(self._scroll, limit=limit),
                       style={"bg": (255, 255, 255)})
        y0 = top - self.offset

        def row(key: str, margin: int = 24) -> Bounds:
            t, h = LAYOUT[key]
            return (left + kit.dp(margin), y0 + kit.dp(t), right - kit.dp(margin),
                    y0 + kit.dp(t + h))

        if self.done:
            web.add(_div(kit, row("title"), "Thanks, you're signed up!", size=24, bold=True))
            web.add(_div(kit, row("intro"), f"Welcome, {self.app.forms[-1]['name']}.",
                         color=MUTED))
        else:
            self._form(kit, web, row)
        root = kit.view("android.widget.FrameLayout", bounds)
        root.add(web)
        if ime:
            root.add(keyboard(kit))
        return root

    def _form(self, kit: Kit, web: View, row: Callable[..., Bounds]) -> None:
        web.add(_div(kit, row("title"), "Join the OMG Newsletter", size=24, bold=True))
        web.add(_div(kit, row("intro"), "One email a week. Unsubscribe any time.",
                     color=MUTED))
        web.add(_div(kit, row("name_label"), "Full name", size=14, color=MUTED))
        web.add(self._input(kit, row("name"), "name", ""))
        web.add(self._input(kit, row("email"), "email", "you@example.com"))
        web.add(_div(kit, row("plan_label"), "Plan", size=14, color=MUTED))
        select = _div(kit, row("plan"), (self.plan or "Choose a plan") + " ▼",
                      on_click=self._toggle_select, box=True)
        web.add(select)
        if self.error:
            web.add(_div(kit, row("error"), self.error, size=14, color=ERROR_RED))
        web.add(_div(kit, row("promo_label"), "Promo code (optional)", size=14, color=MUTED))
        web.add(self._input(kit, row("promo"), "promo", ""))
        submit = _div(kit, row("submit"), "Submit", on_click=self._submit, color=(255, 255, 255),
                      bold=True)
        submit.style.update({"bg": PRIMARY, "radius": kit.dp(8), "align": "center"})
        web.add(submit)
        if self.select_open:
            left, top, right, bottom = select.bounds
            h = kit.dp(48)
            options = kit.view("android.view.View", (left, bottom, right, bottom + h * len(PLANS)),
                               style={"bg": (255, 255, 255), "divider": DIVIDER})
            for i, plan in enumerate(PLANS):
                options.add(_div(kit, (left, bottom + i * h, right, bottom + (i + 1) * h), plan,
                                 on_click=partial(self._pick, plan)))
            web.add(options)

    def _input(self, kit: Kit, bounds: Bounds, key: str, placeholder: str) -> View:
        field = kit.edit(bounds, "web_" + key, self.app.field("web_" + key), hint=placeholder,
                         focused=self.app.focus == "web_" + key)
        return field


def _div(kit: Kit, bounds: Bounds, text: str, *, size: float = 17,
         color: tuple[int, int, int] = (28, 28, 32), bold: bool = False,
         on_click: Callable[[], object] | None = None, box: bool = False) -> View:
    """A web page's node: ``android.view.View`` (a div or span), no id, maybe clickable."""
    view = kit.text(bounds, text, size=size, color=color, bold=bold, on_click=on_click)
    view.cls = "android.view.View"
    if box:
        view.style.update({"bg": (248, 248, 250), "radius": kit.dp(6), "divider": DIVIDER})
    return view
