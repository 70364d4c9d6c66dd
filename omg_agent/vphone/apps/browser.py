"""Chrome (com.android.chrome): the browser that opens http(s) links (``am start -a VIEW -d``).

Chrome because it is the browser a Pixel on Android 14 ships and opens links with (AOSP's own
Browser left the platform years ago), so tasks and peers naming "Chrome" or its package meet
what they would on a phone. Its launcher activity is ``com.google.android.apps.chrome.Main``
and pages show in ``org.chromium.chrome.browser.ChromeTabbedActivity``, as on a phone.

A tab shows the URL bar (``url_bar``: the address without ``https://``, editable; ENTER goes
there) over the page. The vphone is offline, so pages come from a small built-in set
(browser_pages.py): one whose WebView exposes its nodes, one drawn on a canvas whose nodes are
missing from the dump (as many real pages are), and Chrome's "can't be reached" page for the
rest. BACK walks the tab's history, then closes Chrome.
"""

from __future__ import annotations

from omg_agent.vphone.apps.base import App
from omg_agent.vphone.apps.browser_forms import WebForm, is_form, page_title
from omg_agent.vphone.apps.browser_pages import display_url, normalize, page_for
from omg_agent.vphone.ui.kit import DIVIDER, MUTED, Kit
from omg_agent.vphone.ui.view import View

MAIN = "com.google.android.apps.chrome.Main"
TABBED = "org.chromium.chrome.browser.ChromeTabbedActivity"
NEW_TAB = "chrome://newtab/"


class BrowserApp(App):
    package = "com.android.chrome"
    label = "Chrome"
    label_zh = "Chrome"
    glyph = "◎"
    color = (66, 133, 244)
    activities = {"main": MAIN, "tab": TABBED}

    def reset_data(self) -> None:
        self.visited: list[str] = []  # every URL loaded, in order (the browser history)
        self.forms: list[dict] = []  # forms submitted from web pages (browser_forms.py)

    def reset_ui(self) -> None:
        super().reset_ui()
        self.history: list[str] = [NEW_TAB]
        self.web_form = WebForm(self)
        self.menu_open = False

    def activity(self) -> str:
        return TABBED  # Main is a launcher alias; the tab activity is what runs

    @property
    def url(self) -> str:
        return self.history[-1]

    def load(self, url: str) -> None:
        """Open ``url`` in the tab (what a VIEW intent or ENTER in the URL bar does)."""
        url = normalize(url)
        if is_form(url):
            self.web_form = WebForm(self)  # a page loaded afresh: an empty form
        if url != self.url:
            self.history.append(url)
        self.visited.append(url)
        self.focus = None

    def back(self) -> bool:
        if self.menu_open:
            self.menu_open = False
            return True
        if self.focus is not None:
            self.focus = None
            return True
        if len(self.history) > 1:
            self.history.pop()
            return True
        return False

    def on_enter(self, key: str) -> bool:
        if key == "url" and self.field("url").strip():
            self.load(self.field("url").strip())
            return True
        return False

    def _edit_url(self) -> None:
        self.fields["url"] = "" if self.url == NEW_TAB else self.url

    def build(self, kit: Kit) -> View:
        root = kit.root()
        left, top, right, bottom = kit.content
        bar_h = kit.dp(64)
        bar = kit.view("android.widget.FrameLayout", (left, top, right, top + bar_h),
                       resource_id=f"{self.package}:id/toolbar",
                       style={"bg": (255, 255, 255), "divider": DIVIDER})
        pad = kit.dp(12)
        box = (left + pad, top + pad, right - kit.dp(112), top + bar_h - pad)
        if self.focus == "url":
            field = kit.edit(box, "url", self.field("url"), focused=True,
                             hint="Search or type web address",
                             resource_id=f"{self.package}:id/url_bar")
        else:
            shown = "" if self.url == NEW_TAB else display_url(self.url)
            field = kit.edit(box, "url", shown, hint="Search or type web address",
                             resource_id=f"{self.package}:id/url_bar")
            field.field_key = None  # tapping the bar starts editing the full address
            field.on_click = self._start_editing
        bar.add(field)
        bar.add(kit.view("android.widget.ImageButton",
                         (right - kit.dp(104), top + pad, right - kit.dp(56), top + bar_h - pad),
                         desc="Switch or close tabs", kind="glyph", clickable=True,
                         focusable=True, resource_id=f"{self.package}:id/tab_switcher_button",
                         style={"glyph": "1", "fg": MUTED}))
        bar.add(kit.view("android.widget.ImageButton",
                         (right - kit.dp(52), top + pad, right - kit.dp(4), top + bar_h - pad),
                         desc="Customize and control Google Chrome", kind="glyph",
                         clickable=True, focusable=True, on_click=self._open_menu,
                         resource_id=f"{self.package}:id/menu_button",
                         style={"glyph": "…", "fg": MUTED}))
        root.add(bar)
        page = (left, top + bar_h, right, bottom)
        if is_form(self.url):
            root.add(self.web_form.build(kit, page))
        else:
            root.add(page_for(self.url)(kit, page, self.load))
        if self.menu_open:
            root.add(self._menu(kit))
        return root

    # -- the app menu: Share… opens the system's share sheet ------------------------------
    def _open_menu(self) -> None:
        self.menu_open, self.focus = True, None

    def _share(self) -> None:
        self.menu_open = False
        if self.env.system is not None and self.url != NEW_TAB:
            self.env.system.share(self.package, page_title(self.url), self.url)

    def _menu(self, kit: Kit) -> View:
        # a touch outside the popup closes it; the catcher is no node a reader could tap
        outside = kit.view("android.widget.FrameLayout", (0, 0, kit.width, kit.profile.height),
                           modal=True, on_touch=lambda _x, _y: self._close_menu())
        w, h = kit.dp(220), kit.dp(52)
        left, top = kit.width - w - kit.dp(8), kit.content[1] + kit.dp(8)
        menu = kit.view("android.widget.ListView", (left, top, left + w, top + 2 * h),
                        resource_id=f"{self.package}:id/app_menu_list",
                        style={"bg": (255, 255, 255), "radius": kit.dp(8)})
        for i, (label, handler) in enumerate((("New tab", self._new_tab),
                                              ("Share…", self._share))):
            menu.add(kit.text((left, top + i * h, left + w, top + (i + 1) * h), label,
                              on_click=handler, resource_id=f"{self.package}:id/menu_item_text"))
        outside.add(menu)
        return outside

    def _close_menu(self) -> None:
        self.menu_open = False

    def _new_tab(self) -> None:
        self.menu_open = False
        self.load(NEW_TAB)

    def _start_editing(self) -> None:
        self._edit_url()
        self.focus = "url"

    def state(self) -> dict:
        if self.url == NEW_TAB and not self.visited:
            return {}
        return {"url": self.url, "visited": list(self.visited),
                **({"forms": [dict(f) for f in self.forms]} if self.forms else {})}
