"""Family C's rows of the suite (issue 36): Contacts and Files (Compose-style trees with no
resource ids, long-press multi-select, context menus) and Markor (markdown notes that are
files). Parameters come from each task's own seeded RNG; names never clash with Messages'
contacts or the strangers of the impossible tasks."""

from __future__ import annotations

import random

from omg_agent.bench.suite.contacts_tasks import (
    SEEDED,
    AddPhone,
    ContactEmail,
    CreateContact,
    DeleteContact,
    EmailMissingContact,
    PhoneToMarkor,
    StarContact,
)
from omg_agent.bench.suite.entry import Entry
from omg_agent.bench.suite.files_tasks import (
    DeleteByType,
    MarkorAppend,
    MarkorCreate,
    MarkorRename,
    MoveFiles,
    MoveToMissingFolder,
    RenameFile,
)
from omg_agent.sim.expert.tasks import Task
from omg_agent.vphone.apps import files

LATIN = tuple(n for n in SEEDED if n.isascii())
NEW_PEOPLE = (("Laura", "Chen"), ("Daniel", "Kim"), ("Mia", "Fischer"), ("Ravi", "Shah"),
              ("Grace", "Okafor"))
MISSING_PEOPLE = ("Victor Hugo", "Yuki Tanaka", "Ingrid Berg", "Pablo Ruiz")
NEW_DOCS = ("groceries.md", "packing.md", "reading.md", "workout.md")
DOC_BODIES = ("Buy oat milk and coffee", "Passport, charger, sunscreen",
              "Finish chapter 4 by Sunday", "Run 5 km on Tuesday")
LINES = ("- [ ] book the vet", "- [ ] water the plants", "- [ ] pay the gas bill")
SUFFIXES = ("final", "old", "backup", "2026")


def number(r: random.Random) -> str:
    return f"{r.choice(['415', '628', '917'])}-555-0{r.randrange(100, 200)}"


def _create(r: random.Random) -> Task:
    first, last = r.choice(NEW_PEOPLE)
    return CreateContact(first=first, last=last, number=number(r),
                         email=f"{first.lower()}.{last.lower()}@example.org")


def _in(folder: str) -> list[str]:
    return [rel.split("/", 1)[1] for rel, *_ in files.SEED if rel.startswith(f"{folder}/")]


def _rename(r: random.Random, non_home: bool = False) -> Task:
    folder = r.choice(["Download", "Documents"])
    old = r.choice(_in(folder))
    stem, ext = old.rsplit(".", 1)
    return RenameFile(folder=folder, old=old, new=f"{stem}_{r.choice(SUFFIXES)}.{ext}",
                      non_home=non_home)


def _move_two(r: random.Random) -> Task:
    return MoveFiles(names=sorted(r.sample(_in("Download"), 2)),
                     dest=r.choice(["Documents", "Pictures", "Music"]))


E = Entry
ENTRIES: tuple[Entry, ...] = (
    # -- Contacts (Compose-style)
    E("contacts.create", ("single-app", "compose"), _create),
    E("contacts.add_phone", ("single-app", "compose"),
      lambda r: AddPhone(name=r.choice(LATIN), number=number(r))),
    E("contacts.star", ("single-app", "compose"), lambda r: StarContact(name=r.choice(LATIN))),
    E("contacts.star.zh", ("single-app", "compose", "zh"),
      lambda r: StarContact(name=r.choice(SEEDED), zh=True)),
    E("contacts.delete", ("single-app", "compose", "sensitive"),
      lambda r: DeleteContact(name=r.choice(LATIN))),
    E("contacts.find_email", ("single-app", "compose"),
      lambda r: ContactEmail(name=r.choice(LATIN))),
    E("contacts.email_missing", ("single-app", "compose", "impossible"),
      lambda r: EmailMissingContact(name=r.choice(MISSING_PEOPLE),
                                    email="new.address@example.org")),
    # -- Files (Compose-style)
    E("files.move_two", ("single-app", "compose", "repetitive"), _move_two),
    E("files.rename", ("single-app", "compose"), _rename),
    E("files.rename.non_home", ("single-app", "compose", "non-home"),
      lambda r: _rename(r, non_home=True)),
    E("files.delete_type", ("single-app", "compose", "sensitive"),
      lambda r: DeleteByType(ext=r.choice([".pdf", ".jpg"]))),
    E("files.move_missing_folder", ("single-app", "compose", "impossible"),
      lambda r: MoveToMissingFolder(name=r.choice(_in("Download")),
                                    dest=r.choice(["Work", "Receipts", "Archive"]))),
    # -- Markor (markdown notes as files)
    E("markor.create", ("single-app",),
      lambda r: MarkorCreate(name=r.choice(NEW_DOCS), body=r.choice(DOC_BODIES))),
    E("markor.append", ("single-app",),
      lambda r: MarkorAppend(name="todo.md", line=r.choice(LINES))),
    E("markor.rename", ("single-app",),
      lambda r: MarkorRename(old=r.choice(["ideas.md", "todo.md"]),
                             new=r.choice(["plans.md", "someday.md", "backlog.md"]))),
    # -- across apps
    E("contacts.phone_to_markor", ("cross-app", "needs-memory", "compose"),
      lambda r: PhoneToMarkor(name=r.choice(LATIN), doc=r.choice(["phone.md", "numbers.md"]))),
)
