"""Contacts tasks (issue 36, family C; a Compose-style app with no resource ids): create a
contact on the multi-field form, add a phone number to one, star one (also in Chinese),
delete one (sensitive: the user confirms first), answer with one's email address (a
question task), an email for a contact that does not exist (impossible), and a contact's
number carried into a Markor note (cross-app, needs memory).

Checks read the app's contact records (and Markor's files), never the agent's claim.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from omg_agent.bench.suite.files_nav import (
    CONTACTS,
    a_type_text,
    contact_page,
    markor_files,
    new_markor_doc,
    row,
)
from omg_agent.bench.suite.nav import a_tap, confirm, front, saved, with_wrong
from omg_agent.bench.suite.settings_tasks import ZH_LOCALE
from omg_agent.sim.expert.screen import (
    Screen,
    back,
    report_infeasible,
    tap,
    type_into,
    wait,
)
from omg_agent.sim.expert.tasks import MoveContext, Moves, Task
from omg_agent.vphone.apps.contacts import SEED, full_name, new_contact

SEEDED = tuple(full_name(c) for c in SEED)


def contacts(phone: Any) -> list[dict]:
    return phone.apps[CONTACTS].contacts


def seeded(phone: Any) -> list[dict]:
    """The contacts a fresh phone holds (what a task that changes one compares against)."""
    return [new_contact(**c) for c in copy.deepcopy(SEED)]


def changed_only(phone: Any, name: str, **wanted: Any) -> bool:
    """``name``'s record has ``wanted`` and every other contact is as seeded."""
    want = seeded(phone)
    for c in want:
        if full_name(c) == name:
            c.update(wanted)
    return contacts(phone) == want


@dataclass
class CreateContact(Task):
    """Fill in the Create contact form (first, last name, phone, email) and save."""

    first: str = ""
    last: str = ""
    number: str = ""
    email: str = ""

    def __post_init__(self) -> None:
        name = f"{self.first} {self.last}"
        self.goal = (f"Add a new contact {name} in Contacts with phone number {self.number} "
                     f"and email {self.email}")
        self.criteria = f'the contact page shows "{name}" and "{self.number}"'

    def check(self, phone: Any) -> bool:
        want = new_contact(first=self.first, last=self.last, phones=[self.number],
                           email=self.email)
        return contacts(phone) == [*seeded(phone), want]

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        app = phone.apps[CONTACTS]
        labels = {"first": ("First name", self.first), "last": ("Last name", self.last),
                  "phone0": ("Phone", self.number), "email": ("Email", self.email)}
        fill = [a_type_text(label, value) for label, value in labels.values()]
        create = [a_tap(desc="Create contact"), *fill, a_tap(text="Save")]
        moves = front(phone, screen, CONTACTS, create)
        if moves:
            return moves
        if app.screen.name == "edit" and app.screen.params.get("index") is None:
            typed = []
            for key, (label, value) in labels.items():
                box = next((e for e in screen.elements if e.hint == label), None)
                if box is not None and app.field(key) != value:
                    typed.append(type_into(box, value))
            save = screen.find(text="Save")
            return [*typed, tap(save)] if save else typed or [wait()]
        if app.screen.name != "main" or app.menu or app.confirm:
            return [back()]
        fab = screen.find(desc="Create contact")
        return [tap(fab), *create[1:]] if fab else [wait()]


@dataclass
class AddPhone(Task):
    """Add a second phone number to an existing contact (Edit → Add phone → Save)."""

    name: str = ""
    number: str = ""

    def __post_init__(self) -> None:
        self.goal = f"In Contacts, add the phone number {self.number} to {self.name}"
        self.criteria = f'the contact page of "{self.name}" shows "{self.number}"'

    def phones(self) -> list[str]:
        return [*next(c for c in SEED if full_name(c) == self.name)["phones"], self.number]

    def check(self, phone: Any) -> bool:
        return changed_only(phone, self.name, phones=self.phones())

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        app = phone.apps[CONTACTS]
        if app.screen.name == "edit" and app.current() is not None and full_name(
                app.current()) == self.name:
            empty = [e for e in screen.elements if e.hint == "Phone" and not e.text]
            if not empty and self.number not in app.fields.values():
                add = screen.find(text="+ Add phone")
                return [tap(add)] if add else [wait()]
            typed = [type_into(empty[0], self.number)] if empty else []
            save = screen.find(text="Save")
            return [*typed, tap(save)] if save else typed or [wait()]
        then = [a_tap(desc="Edit"), a_tap(text="+ Add phone")]
        moves = contact_page(phone, screen, self.name, then)
        if moves:
            return moves
        edit = screen.find(desc="Edit")
        return [tap(edit), then[1]] if edit else [wait()]


@dataclass
class StarContact(Task):
    """Make a contact a favourite (the star on its page); ``zh``: on a Chinese phone."""

    name: str = ""
    zh: bool = False

    def __post_init__(self) -> None:
        self.goal = (f"在通讯录中把「{self.name}」加入收藏" if self.zh
                     else f"Add {self.name} to favorites in Contacts")
        desc = "取消收藏" if self.zh else "Remove from favorites"
        self.criteria = f'the contact page of "{self.name}" shows a button "{desc}"'

    def setup(self, phone: Any) -> None:
        if self.zh:
            phone.set_locale(ZH_LOCALE)

    def check(self, phone: Any) -> bool:
        return changed_only(phone, self.name, favorite=True)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        add = "收藏" if self.zh else "Add to favorites"
        if self.check(phone):
            return []
        return contact_page(phone, screen, self.name, [a_tap(desc=add)]) or [
            tap(star) if (star := screen.find(desc=add)) else back()]


@dataclass
class DeleteContact(Task):
    """Delete a contact: More options → Delete → the dialog's Delete, after the user's yes."""

    name: str = ""

    def __post_init__(self) -> None:
        self.goal = f"Delete the contact {self.name} from Contacts"
        self.criteria = 'the contacts list says "Contact deleted"'
        self.question = f"Delete the contact {self.name}? It cannot be undone."

    def check(self, phone: Any) -> bool:
        return contacts(phone) == [c for c in seeded(phone) if full_name(c) != self.name]

    def answer_user(self, question: str) -> str | None:
        return "Yes."

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        app = phone.apps[CONTACTS]
        if app.confirm and app.current() is not None and full_name(app.current()) == self.name:
            button = [e for e in screen.elements if e.text == "Delete"]
            return confirm(ctx, self.question, tap(button[-1])) if button else [wait()]
        if app.menu:
            item = screen.find(text="Delete")
            return [tap(item)] if item else [back()]
        route = [a_tap(desc="More options"), a_tap(text="Delete")]
        moves = contact_page(phone, screen, self.name, route)
        if moves:
            return moves
        more = screen.find(desc="More options")
        return [tap(more), route[1]] if more else [wait()]


@dataclass
class ContactEmail(Task):
    """A question: what is a contact's email? Success: the contact's page is on the screen
    (the answer came from it) and nothing was changed."""

    name: str = ""

    def __post_init__(self) -> None:
        email = next(c for c in SEED if full_name(c) == self.name)["email"]
        self.goal = f"What is {self.name}'s email address? Look it up in Contacts"
        self.criteria = f'the contact page shows "{email}"'
        self.expected_answer = email

    def check(self, phone: Any) -> bool:
        app = phone.apps[CONTACTS]
        here = app.current() if app.screen.name == "detail" else None
        return (here is not None and full_name(here) == self.name
                and contacts(phone) == seeded(phone))

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        return [] if self.check(phone) else contact_page(phone, screen, self.name)


@dataclass
class EmailMissingContact(Task):
    """Impossible: set the email of a contact the address book does not have."""

    name: str = ""
    email: str = ""

    def __post_init__(self) -> None:
        self.goal = f"In Contacts, change {self.name}'s email address to {self.email}"
        self.criteria = f'the contact page of "{self.name}" shows "{self.email}"'

    def check(self, phone: Any) -> bool:
        return contacts(phone) == seeded(phone)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        app = phone.apps[CONTACTS]
        hint = app.t("Search contacts", "搜索联系人")
        moves = front(phone, screen, CONTACTS, [a_type_text(hint, self.name)])
        if moves:
            return moves
        if app.screen.name != "main" or app.menu or app.confirm:
            return [back()]
        if app.field("search") != self.name:
            box = next((e for e in screen.elements if e.hint == hint), None)
            return [type_into(box, self.name)] if box else [wait()]
        if row(screen, self.name) is None:
            return [report_infeasible(f"Contacts has no contact named {self.name}: "
                                      "searching for the name finds no one.")]
        return [wait()]


@dataclass
class PhoneToMarkor(Task):
    """Carry a contact's mobile number into a new Markor document (cross-app, memory)."""

    name: str = ""
    doc: str = ""
    number: str = field(default="", init=False)

    def __post_init__(self) -> None:
        self.number = next(c for c in SEED if full_name(c) == self.name)["phones"][0]
        self.goal = (f"Copy {self.name}'s mobile number from Contacts into a new Markor "
                     f"note named {self.doc}")
        self.data_output = "number"
        self.criteria = f'the Markor editor of "{self.doc}" says "Saved"'

    def check(self, phone: Any) -> bool:
        return self.number in markor_files(phone).get(self.doc, "")

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        if saved(ctx, "number", self.number):
            return new_markor_doc(phone, screen, self.doc, "$number", self.number)
        moves = contact_page(phone, screen, self.name)
        if moves:
            return with_wrong(ctx, "number", moves)
        number = screen.find(text=self.number)
        if number is None:
            return [wait()]
        return [{"type": "mem_save", "key": "number",
                 "from_screen": {"target": {"kind": "element", "id": number.id}}},
                *new_markor_doc(phone, Screen(""), self.doc, "$number", self.number)]
