"""The suite's table: each task's stable id, its difficulty tags, and how its parameters are
drawn from the task's own seeded RNG (``random.Random(f"{seed}:{id}")``).
"""

from __future__ import annotations

import logging
import random

from omg_agent.bench.suite import (
    files_entries,
    ledger_entries,
    mixed_entries,
    pools,
    system_entries,
    timekeeping_entries,
)
from omg_agent.bench.suite.account_tasks import AskPassword, SignIn
from omg_agent.bench.suite.cross_tasks import (
    AboutToNotes,
    AuthorToMessage,
    MessageToNotes,
    PriceToNotes,
)
from omg_agent.bench.suite.entry import TAGS, Entry
from omg_agent.bench.suite.impossible_tasks import (
    CommentOnPost,
    DeleteMissingNote,
    MissingSetting,
    NoConversation,
    NotSold,
)
from omg_agent.bench.suite.notes_tasks import AskNoteBody, DeleteNote, EditNoteBody, NewNote
from omg_agent.bench.suite.settings_tasks import ExactBrightness, SwitchTask, TwoSwitches
from omg_agent.bench.suite.shop_tasks import (
    AddProduct,
    AddProducts,
    AskProduct,
    BuyProduct,
    RemoveFromCart,
)
from omg_agent.bench.suite.social_tasks import (
    AskRecipient,
    LikeSet,
    Reply,
    SendTo,
    TextNewNumber,
)
from omg_agent.sim.expert.tasks import Task
from omg_agent.vphone.apps.messages import CONTACTS

log = logging.getLogger(__name__)



def _two_switches(r: random.Random) -> Task:
    wifi, bluetooth = r.choice([(True, True), (False, True), (True, False)])
    return TwoSwitches(wifi=wifi, bluetooth=bluetooth)


def _brightness(r: random.Random) -> Task:
    return ExactBrightness(level=r.choice([*range(10, 50, 5), *range(75, 100, 5)]))


def _edit(r: random.Random) -> Task:
    notes = pools.notes(r)
    body = r.choice([b for b in pools.NOTE_BODIES if b not in {n["body"] for n in notes}])
    return EditNoteBody(notes=notes, index=r.randrange(len(notes)), body=body)


def _missing_note(r: random.Random) -> Task:
    notes = pools.notes(r)
    missing = r.choice([t for t in pools.NOTE_TITLES if t not in {n["title"] for n in notes}])
    return DeleteMissingNote(notes=notes, missing=missing)


def _add_two(r: random.Random) -> Task:
    a, b = r.sample(pools.PRODUCTS, 2)
    return AddProducts(wanted={a: 1, b: 1}, popup="always")


def _ask_product(r: random.Random) -> Task:
    kind = r.choice(sorted(pools.KINDS))
    return AskProduct(kind=kind, product=r.choice(pools.KINDS[kind]))


def _like_author(r: random.Random) -> Task:
    first = 8
    posts = sorted(r.sample(range(1, first + 1), r.choice([2, 3])))
    return LikeSet(posts=posts, marker=pools.marker(r), author=r.choice(pools.KNOWN_CONTACTS),
                   first=first)


E = Entry
CORE: tuple[Entry, ...] = (
    # -- Settings
    E("settings.wifi", ("single-app",),
      lambda r: SwitchTask(attr="wifi", on=r.random() < 0.5)),
    E("settings.bluetooth", ("single-app",),
      lambda r: SwitchTask(attr="bluetooth", on=r.random() < 0.5)),
    E("settings.bluetooth.zh", ("single-app", "zh"),
      lambda r: SwitchTask(attr="bluetooth", on=r.random() < 0.5, zh=True)),
    E("settings.wifi_and_bluetooth", ("single-app",), _two_switches),
    E("settings.brightness", ("single-app",), _brightness),
    # -- Notes
    E("notes.create", ("single-app",),
      lambda r: NewNote(title=r.choice(pools.NOTE_TITLES), body=r.choice(pools.NOTE_BODIES))),
    E("notes.create.zh", ("single-app", "zh"),
      lambda r: NewNote(title=r.choice(pools.NOTE_TITLES_ZH),
                        body=r.choice(pools.NOTE_BODIES_ZH), zh=True)),
    E("notes.edit_body", ("single-app",), _edit),
    E("notes.delete", ("single-app", "sensitive"),
      lambda r: DeleteNote(notes=(n := pools.notes(r)), index=r.randrange(len(n)))),
    E("notes.ask_body", ("single-app", "needs-ask-user"),
      lambda r: AskNoteBody(title=r.choice(pools.NOTE_TITLES),
                            body=r.choice(pools.NOTE_BODIES))),
    # -- Shop
    E("shop.add_to_cart", ("single-app",),
      lambda r: AddProduct(product=r.choice(pools.PRODUCTS))),
    E("shop.add_to_cart.zh", ("single-app", "zh"),
      lambda r: AddProduct(product=r.choice(pools.PRODUCTS_ZH), zh=True)),
    E("shop.add_quantity", ("single-app", "repetitive"),
      lambda r: AddProducts(wanted={r.choice(pools.PRODUCTS): r.choice([2, 3])})),
    E("shop.add_two", ("single-app", "has-hazard"), _add_two),
    E("shop.remove_from_cart", ("single-app",),
      lambda r: RemoveFromCart(products=r.sample(pools.PRODUCTS, 3), index=r.randrange(3))),
    E("shop.buy", ("single-app", "sensitive", "has-hazard"),
      lambda r: BuyProduct(product=r.choice(pools.PRODUCTS))),
    E("shop.ask_product", ("single-app", "needs-ask-user"), _ask_product),
    # -- Messages
    E("messages.send", ("single-app",),
      lambda r: SendTo(contact=r.choice(CONTACTS), text=r.choice(pools.MESSAGES_EN))),
    E("messages.send.zh", ("single-app", "zh"),
      lambda r: SendTo(contact=r.choice(CONTACTS), text=r.choice(pools.MESSAGES_ZH), zh=True)),
    E("messages.reply", ("single-app",),
      lambda r: Reply(contact=r.choice(CONTACTS), text=r.choice(pools.MESSAGES_EN))),
    E("messages.new_number", ("single-app", "sensitive"),
      lambda r: TextNewNumber(number=pools.number(r), text=r.choice(pools.MESSAGES_EN))),
    E("messages.ask_recipient", ("single-app", "needs-ask-user"),
      lambda r: AskRecipient(relation=r.choice(pools.RELATIONS), contact=r.choice(CONTACTS),
                             text=r.choice(pools.MESSAGES_EN))),
    # -- Feed
    E("feed.like_first", ("single-app", "repetitive"),
      lambda r: LikeSet(posts=list(range(1, r.choice([2, 3, 4]) + 1)),
                        marker=pools.marker(r))),
    E("feed.like_post", ("single-app", "has-hazard"),
      lambda r: LikeSet(posts=[r.randrange(5, 13)], marker=pools.marker(r), anr=True)),
    E("feed.like_by_author", ("single-app", "repetitive"), _like_author),
    E("feed.like_post.zh", ("single-app", "zh"),
      lambda r: LikeSet(posts=[r.randrange(2, 9)], marker=pools.marker(r), zh=True)),
    # -- Login
    E("login.sign_in", ("single-app", "has-hazard"), lambda r: SignIn()),
    E("login.ask_password", ("single-app", "needs-ask-user", "sensitive"),
      lambda r: AskPassword()),
    # -- across apps
    E("shop.price_to_notes", ("cross-app", "needs-memory"),
      lambda r: PriceToNotes(product=r.choice(pools.PRODUCTS))),
    E("settings.about_to_notes", ("cross-app", "needs-memory"),
      lambda r: AboutToNotes(row=r.choice(pools.ABOUT_ROWS), title=r.choice(pools.NOTE_TITLES))),
    E("messages.to_notes", ("cross-app", "needs-memory"),
      lambda r: MessageToNotes(contact=(c := r.choice(CONTACTS)), text=r.choice(pools.INCOMING),
                               title=f"From {c}")),
    E("feed.author_to_messages", ("cross-app", "needs-memory"),
      lambda r: AuthorToMessage(post=r.randrange(3, 9), author=r.choice(pools.KNOWN_CONTACTS),
                                text=r.choice(pools.MESSAGES_EN))),
    # -- impossible
    E("shop.not_sold", ("single-app", "impossible"),
      lambda r: NotSold(product=r.choice(pools.NOT_SOLD))),
    E("notes.delete_missing", ("single-app", "impossible"), _missing_note),
    E("messages.no_conversation", ("single-app", "impossible"),
      lambda r: NoConversation(name=r.choice(pools.STRANGERS), text=r.choice(pools.MESSAGES_EN))),
    E("feed.comment", ("single-app", "impossible"),
      lambda r: CommentOnPost(post=r.randrange(1, 6), text=r.choice(pools.MESSAGES_EN))),
    E("settings.missing_option", ("single-app", "impossible"),
      lambda r: MissingSetting(setting=r.choice(pools.MISSING_SETTINGS))),
    E("settings.missing_option.zh", ("single-app", "impossible", "zh"),
      lambda r: MissingSetting(setting=r.choice(pools.MISSING_SETTINGS_ZH), display=False,
                               zh=True)),
)

# Each family of templates keeps its own table (``<family>_entries.ENTRIES``); the suite is
# their concatenation, in this order, so adding a family changes no other task's draw.
ENTRIES: tuple[Entry, ...] = (CORE + timekeeping_entries.ENTRIES + files_entries.ENTRIES
                              + ledger_entries.ENTRIES + system_entries.ENTRIES
                              + mixed_entries.ENTRIES)

__all__ = ["ENTRIES", "TAGS", "Entry"]
