"""One question for several actions the task asks for (issue 35): "Delete all notes except
the one titled Trip" is asked once — "delete 2 notes: "Groceries", "Ideas"" — not once per
note, and its yes covers exactly that list.

:func:`task_scopes` reads from the task's words which class it asks for wholesale ("delete
all notes", "remove every photo except X", "删除除了Trip以外的所有备忘录") and what it keeps.
:class:`Batches` (one per run, held by the gate keeper) notes the items the app's lists
showed (rows of the same app, as the gate saw them), builds the one question when the
first such action is held — the listed items minus those the task keeps, and only when the
held action's object is one of them — and after a yes lets through each later action of
that class whose object (:attr:`~omg_agent.guards.sensitive.Sensitivity.target`, read from
its own screen) is an item of the list not yet done. Anything else is asked as usual. A
list never grants by itself: it is what a human said yes to, item by item.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from omg_agent.core.observation import Observation
from omg_agent.guards.authorisation import names
from omg_agent.guards.confirmation import ConfirmationRequest
from omg_agent.guards.objects import noun_of
from omg_agent.guards.sensitive import Sensitivity

MARK = "delete "  # a list question's describe starts so, then the count
_ALL_EN = re.compile(
    r"\b(?:delete|remove|erase|clear)\s+(?:all|every|each)\b(?P<what>[^.;\n]*?)"
    r"(?:\s*,?\s*\b(?:except|but(?:\s+not)?|apart\s+from|other\s+than|save)\b\s*(?P<keep>"
    r"[^.;\n]*))?(?:[.;\n]|$)", re.IGNORECASE)
_ALL_ZH = re.compile(r"删除(?:除了?(?P<keep>[^，。；,;\n]+?)(?:以外|之外)?的?)?(?:所有|全部)"
                     r"(?P<what>[^，。；,;\n]*)")
_KEEP_LEAD = re.compile(r"^(?:for\s+)?(?:the\s+)?(?:ones?|notes?|items?|files?|photos?)?\s*"
                        r"(?:titled|named|called)?\s*", re.IGNORECASE)
_QUOTES = " '\"“”‘’「」『』"
# "… except Trip in Notes": the app the task names is no part of what it keeps (a kept name
# read too short keeps more — a word run of it names the longer title — never less)
_IN_APP = re.compile(r"\s+(?:in|from|on)\s+(?:the\s+)?[\w.]+(?:\s+app)?\s*$", re.IGNORECASE)
_LISTED = re.compile(r'"([^"]+)"')


@dataclass(frozen=True)
class Scope:
    """The task asks for every ``cls`` action in a list, except on ``keep``."""

    cls: str
    keep: tuple[str, ...] = ()


def task_scopes(task: str) -> list[Scope]:
    """The wholesale asks of ``task`` (see the module docstring)."""
    out: list[Scope] = []
    for m in _ALL_EN.finditer(task):
        out.append(Scope("delete", _kept(m["keep"] or "")))
    for m in _ALL_ZH.finditer(task):
        out.append(Scope("delete", _kept(m["keep"] or "")))
    return out


def _kept(text: str) -> tuple[str, ...]:
    text = _IN_APP.sub("", _KEEP_LEAD.sub("", text.strip()))
    parts = re.split(r"\s*(?:,|，|、|\band\b|\bor\b|和|与)\s*", text)
    return tuple(p.strip(_QUOTES) for p in parts if p.strip(_QUOTES))


@dataclass
class Batches:
    """The lists of one run: what the app's list screens showed, and the items a human
    said yes to (each let through once)."""

    task: str = ""
    seen: dict[str, list[str]] = field(default_factory=dict)  # package -> rows, in order
    allowed: dict[str, list[str]] = field(default_factory=dict)  # package -> items left

    def saw(self, obs: Observation) -> None:
        """Note the rows of ``obs``'s list (its app's items with a label)."""
        rows = [e.text for e in obs.elements if e.role == "item" and e.text
                and e.package in ("", obs.package)]
        if obs.package and rows:
            known = self.seen.setdefault(obs.package, [])
            known += [r for r in rows if r not in known]

    def covers(self, found: Sensitivity, approved: list[str]) -> bool:
        """Whether ``found`` is an item of a list a human allowed (then it is used up);
        a list approved by describe (a resumed run's yes) is taken up here first."""
        if found.cls != "delete":
            return False
        package = found.package
        for describe in [d for d in approved if d.startswith(MARK) and f"({package})" in d]:
            approved.remove(describe)
            self.allowed[package] = _LISTED.findall(describe.split(" — ")[0])
        left = self.allowed.get(package, [])
        hit = next((i for i in left if found.target and names(i, found.target)
                    and names(found.target, i)), None)
        if hit is None:
            return False
        left.remove(hit)
        return True

    def question(self, found: Sensitivity) -> ConfirmationRequest | None:
        """The one question for the whole list ``found`` is the first of, or ``None``."""
        if found.cls != "delete" or not found.target:
            return None
        for scope in task_scopes(self.task):
            items = [r for r in self.seen.get(found.package, [])
                     if not any(names(k, r) for k in scope.keep)]
            if len(items) > 1 and any(names(i, found.target) and names(found.target, i)
                                      for i in items):
                listed = ", ".join(f'"{i}"' for i in items)
                kept = ", ".join(f'"{k}"' for k in scope.keep)
                noun = noun_of(found.package) or "item"
                describe = f"{MARK}{len(items)} {noun}s: {listed} ({found.package})"
                why = ("your task asks to delete all of them" +
                       (f" except {kept}" if kept else "") +
                       "; a yes lets exactly these through, each once")
                return ConfirmationRequest(found.cls, describe, why, found.package,
                                           self.task)
        return None

    def answered(self, request: ConfirmationRequest, found: Sensitivity) -> None:
        """A yes to the list ``request``: its items but ``found`` (done now) stay allowed."""
        items = _LISTED.findall(request.describe)
        self.allowed[found.package] = [i for i in items if not names(i, found.target)]
