"""Family C's suite tasks (issue 36: Contacts, Files, Markor): every check fails on the
phone left as the setup put it and on a near-miss end state, and passes on the right end
state — each set directly on the apps' state (contacts) or the phone's files.

That the expert reaches the right end state through the real adb server is
``tests/integration/test_suite_expert_runs.py -k "contacts or files or markor"``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from suite_tools import task_named

from omg_agent.bench.suite.contacts_tasks import seeded
from omg_agent.bench.suite.files_entries import ENTRIES
from omg_agent.bench.suite.files_nav import CONTACTS, write_markor
from omg_agent.vphone.apps.contacts import full_name, new_contact
from omg_agent.vphone.apps.files_views import ROOT
from omg_agent.vphone.apps.markor import SEED

IDS = [e.id for e in ENTRIES]


# -- end states set directly -------------------------------------------------------------
def _contact(phone: Any, name: str, **changes: Any) -> None:
    c = next(c for c in phone.apps[CONTACTS].contacts if full_name(c) == name)
    c.update(changes)


def _seed_phones(name: str) -> list[str]:
    return next(c for c in seeded(None) if full_name(c) == name)["phones"]


def _drop(phone: Any, name: str) -> None:
    app = phone.apps[CONTACTS]
    app.contacts = [c for c in app.contacts if full_name(c) != name]


def _add(phone: Any, t: Any, **over: Any) -> None:
    fields = {"first": t.first, "last": t.last, "phones": [t.number], "email": t.email, **over}
    phone.apps[CONTACTS].contacts.append(new_contact(**fields))


def _mv(phone: Any, src: str, dst: str) -> None:
    data = phone.fs.read(f"{ROOT}/{src}")
    phone.fs.write(f"{ROOT}/{dst}", data)
    phone.fs.remove(f"{ROOT}/{src}")


def _rm(phone: Any, rel: str) -> None:
    phone.fs.remove(f"{ROOT}/{rel}")


def _show_detail(phone: Any, name: str) -> None:
    app = phone.apps[CONTACTS]
    app.open(app.find(name))


def _markor_mv(phone: Any, old: str, new: str) -> None:
    _mv(phone, f"Documents/Markor/{old}", f"Documents/Markor/{new}")


Setter = Callable[[Any, Any], None]
# (near miss, right end state) per task id
STATES: dict[str, tuple[Setter, Setter]] = {
    "contacts.create": (lambda p, t: _add(p, t, email=""), _add),
    "contacts.add_phone": (
        lambda p, t: _contact(p, t.name, phones=[t.number]),  # replaced, not added
        lambda p, t: _contact(p, t.name, phones=[*_seed_phones(t.name), t.number])),
    "contacts.star": (
        lambda p, t: _contact(p, next(n for n in ("Emma Wilson", "Hannah Lee")
                                      if n != t.name), favorite=True),
        lambda p, t: _contact(p, t.name, favorite=True)),
    "contacts.star.zh": (
        lambda p, t: (_contact(p, t.name, favorite=True),
                      _contact(p, next(n for n in ("Emma Wilson", "Hannah Lee")
                                       if n != t.name), favorite=True)),
        lambda p, t: _contact(p, t.name, favorite=True)),
    "contacts.delete": (
        lambda p, t: _drop(p, next(n for n in ("Emma Wilson", "Hannah Lee") if n != t.name)),
        lambda p, t: _drop(p, t.name)),
    "contacts.find_email": (
        lambda p, t: _show_detail(p, next(n for n in ("Emma Wilson", "Hannah Lee")
                                          if n != t.name)),
        lambda p, t: _show_detail(p, t.name)),
    "contacts.email_missing": (
        lambda p, t: _contact(p, "Emma Wilson", email=t.email), lambda p, t: None),
    "files.move_two": (
        lambda p, t: _mv(p, f"Download/{t.names[0]}", f"{t.dest}/{t.names[0]}"),
        lambda p, t: [_mv(p, f"Download/{n}", f"{t.dest}/{n}") for n in t.names]),
    "files.rename": (
        lambda p, t: _mv(p, f"{t.folder}/{t.old}", f"{t.folder}/{t.new}.txt"),
        lambda p, t: _mv(p, f"{t.folder}/{t.old}", f"{t.folder}/{t.new}")),
    "files.rename.non_home": (  # renamed, but the open dialog's Delete was tapped too
        lambda p, t: (_mv(p, f"{t.folder}/{t.old}", f"{t.folder}/{t.new}"),
                      _rm(p, "Pictures/cat.png")),
        lambda p, t: _mv(p, f"{t.folder}/{t.old}", f"{t.folder}/{t.new}")),
    "files.delete_type": (
        lambda p, t: _rm(p, f"Download/{t.doomed[0]}"),
        lambda p, t: [_rm(p, f"Download/{n}") for n in t.doomed]),
    "files.move_missing_folder": (
        lambda p, t: (p.fs.mkdir(f"{ROOT}/{t.dest}"),
                      _mv(p, f"Download/{t.name}", f"{t.dest}/{t.name}")),
        lambda p, t: None),
    "markor.create": (
        lambda p, t: write_markor(p, t.name, t.body + " (draft)"),
        lambda p, t: write_markor(p, t.name, t.body + "\n")),
    "markor.append": (
        lambda p, t: write_markor(p, t.name, t.line + "\n"),  # the line replaced the text
        lambda p, t: write_markor(p, t.name, t.text)),
    "markor.rename": (
        lambda p, t: write_markor(p, t.new, SEED[t.old]),  # a copy: the old one is left
        lambda p, t: _markor_mv(p, t.old, t.new)),
    "contacts.phone_to_markor": (
        lambda p, t: write_markor(p, t.doc, "+1 555-0000"),
        lambda p, t: write_markor(p, t.doc, f"{t.name}: {t.number}")),
}


def test_every_family_c_task_has_its_end_states() -> None:
    assert sorted(STATES) == sorted(IDS)


@pytest.mark.parametrize("task_id", IDS)
def test_the_check_fails_untouched_and_on_a_near_miss(phone, task_id) -> None:
    task = task_named(task_id)
    task.setup(phone)
    assert task.check(phone) == task.impossible  # untouched: only "nothing harmed" holds
    STATES[task_id][0](phone, task)
    assert not task.check(phone)


@pytest.mark.parametrize("task_id", IDS)
def test_the_check_passes_on_the_right_end_state(phone, task_id) -> None:
    task = task_named(task_id)
    task.setup(phone)
    STATES[task_id][1](phone, task)
    assert task.check(phone)

