"""Contacts / 通讯录: a Compose-style address book (no resource ids, merged rows).

The list is alphabetical with letter headers and a search field; a contact's page shows its
phones, email and notes, a favourite star, an Edit icon and a "More options" menu with
Delete (a confirm dialog). "Create contact" and Edit are one multi-field form: first and
last name, phone numbers ("Add phone" adds one more field), email, notes, Save. A phone
field is ``inputType="phone"``: like Android's DialerKeyListener it drops every character a
dial pad does not have (letters typed into it vanish). BACK from the form discards it.
The views are in :mod:`.contacts_views`.
"""

from __future__ import annotations

from typing import Any

from omg_agent.vphone.apps.base import App
from omg_agent.vphone.apps.contacts_views import build, full_name
from omg_agent.vphone.ui.kit import Kit
from omg_agent.vphone.ui.view import View

DIAL_CHARS = frozenset("0123456789+-*#(),./ ;N")  # DialerKeyListener's accepted characters
SEED: tuple[dict, ...] = (
    {"first": "Emma", "last": "Wilson", "phones": ["+1 415-555-0132"],
     "email": "emma.wilson@example.com", "notes": "Book club"},
    {"first": "Hannah", "last": "Lee", "phones": ["+1 415-555-0178"],
     "email": "hannah.lee@example.com", "notes": ""},
    {"first": "Kevin", "last": "Park", "phones": ["+1 650-555-0119", "+1 650-555-0120"],
     "email": "kevin.park@example.com", "notes": "Work: design team"},
    {"first": "Marco", "last": "Rossi", "phones": ["+39 06 5550 1234"],
     "email": "marco.rossi@example.com", "notes": ""},
    {"first": "Nina", "last": "Patel", "phones": ["+44 20 7946 0958"],
     "email": "nina.patel@example.com", "notes": "Dentist"},
    {"first": "Oliver", "last": "Brown", "phones": ["+1 212-555-0147"],
     "email": "oliver.brown@example.com", "notes": ""},
    {"first": "Sofia", "last": "Garcia", "phones": ["+34 91 555 0172"],
     "email": "sofia.garcia@example.com", "notes": "Spanish tutor"},
    {"first": "王", "last": "芳", "phones": ["138 0013 8000"], "email": "wangfang@example.cn",
     "notes": ""},
)


def new_contact(**kw: Any) -> dict[str, Any]:
    c: dict[str, Any] = {"first": "", "last": "", "phones": [], "email": "", "notes": "",
                         "favorite": False}
    c.update(kw)
    c["phones"] = list(c["phones"])
    return c


class ContactsApp(App):
    package = "com.omg.contacts"
    label = "Contacts"
    label_zh = "通讯录"
    glyph = "☺"
    color = (40, 150, 110)
    activities = {"main": ".PeopleActivity", "detail": ".ContactDetailActivity",
                  "edit": ".ContactEditorActivity"}

    def reset_data(self) -> None:
        self.contacts: list[dict] = [new_contact(**c) for c in SEED]
        self.deleted: list[str] = []  # names of contacts deleted

    def reset_ui(self) -> None:
        super().reset_ui()
        self.offset = 0
        self.menu = False  # the detail page's "More options" menu is open
        self.confirm = False  # the delete dialog is up
        self.phone_slots = 1  # phone fields on the form
        self.toast = ""

    # -- lookups -------------------------------------------------------------------------
    def sorted_indices(self) -> list[int]:
        query = self.field("search").strip().casefold()
        found = [i for i, c in enumerate(self.contacts)
                 if not query or query in full_name(c).casefold()
                 or any(query in p for p in c["phones"])]
        return sorted(found, key=lambda i: full_name(self.contacts[i]).casefold())

    def find(self, name: str) -> int | None:
        return next((i for i, c in enumerate(self.contacts) if full_name(c) == name), None)

    def current(self) -> dict | None:
        index = self.screen.params.get("index")
        return self.contacts[index] if index is not None and index < len(self.contacts) else None

    # -- fields --------------------------------------------------------------------------
    def input_type(self, key: str) -> str:
        """The field's inputType as Android names its class: phone fields are ``phone``."""
        if key.startswith("phone"):
            return "phone"
        return {"email": "textEmailAddress", "notes": "textMultiLine"}.get(key, "text")

    def set_field(self, key: str, value: str) -> None:
        if self.input_type(key) == "phone":
            value = "".join(ch for ch in value if ch in DIAL_CHARS)
        super().set_field(key, value)
        if key == "search":
            self.offset = 0

    def multiline(self, key: str) -> bool:
        return key == "notes"

    def back(self) -> bool:
        if self.confirm or self.menu:
            self.confirm = self.menu = False
            return True
        return super().back()

    # -- actions -------------------------------------------------------------------------
    def open(self, index: int) -> None:
        self.push("detail", index=index)
        self.toast = ""

    def open_form(self, index: int | None = None) -> None:
        c = self.contacts[index] if index is not None else new_contact()
        self.push("edit", index=index)
        self.phone_slots = max(1, len(c["phones"]))
        self.fields = {"first": c["first"], "last": c["last"], "email": c["email"],
                       "notes": c["notes"],
                       **{f"phone{i}": p for i, p in enumerate(c["phones"])}}
        self.focus = "first" if index is None else None

    def add_phone(self) -> None:
        self.phone_slots += 1
        self.focus = f"phone{self.phone_slots - 1}"

    def save(self) -> None:
        if not (self.field("first").strip() or self.field("last").strip()):
            self.toast = self.t("Enter a name", "请输入姓名")
            return
        phones = [p for i in range(self.phone_slots)
                  if (p := self.field(f"phone{i}").strip())]
        index = self.screen.params.get("index")
        old = self.contacts[index] if index is not None else new_contact()
        saved = new_contact(first=self.field("first").strip(),
                            last=self.field("last").strip(), phones=phones,
                            email=self.field("email").strip(),
                            notes=self.field("notes").strip(), favorite=old["favorite"])
        if index is None:
            self.contacts.append(saved)
            index = len(self.contacts) - 1
        else:
            self.contacts[index] = saved
        self.fields, self.focus = {}, None
        self.replace("detail", index=index)
        if len(self.stack) > 1 and self.stack[-2].name == "detail":
            self.stack.pop(-2)  # edit replaced the page it came from
        self.toast = self.t("Contact saved", "联系人已保存")

    def toggle_favorite(self) -> None:
        c = self.current()
        if c is not None:
            c["favorite"] = not c["favorite"]

    def ask_delete(self) -> None:
        self.menu, self.confirm = False, True

    def delete(self) -> None:
        index = self.screen.params.get("index")
        self.confirm = False
        if index is None:
            return
        self.deleted.append(full_name(self.contacts.pop(index)))
        self.stack = [s for s in self.stack if s.name == "main"] or [self.stack[0]]
        self.toast = self.t("Contact deleted", "联系人已删除")

    def scroll(self, delta: int) -> None:
        self.offset = max(0, self.offset + delta)

    # -- views ---------------------------------------------------------------------------
    def build(self, kit: Kit) -> View:
        return build(self, kit)

    def state(self) -> dict:
        return {"contacts": [dict(c, phones=list(c["phones"])) for c in self.contacts],
                "deleted": list(self.deleted), "screen": self.screen.name,
                "index": self.screen.params.get("index"), "menu": self.menu,
                "confirm": self.confirm, "toast": self.toast,
                "draft": ({k: v for k, v in self.fields.items()}
                          if self.screen.name == "edit" else None),
                "focus": self.focus,
                "input_type": self.input_type(self.focus) if self.focus else None}
