"""One authorisation: what a user's words or ``--allow`` let past the gate, and how its
target, limit and text are matched against what the gate saw on the screen.

The value only; reading it out of words is :mod:`omg_agent.guards.authorisation` (with
:mod:`omg_agent.guards.spending_words` for limits and :mod:`omg_agent.guards.send_words` for
sends), applying it is :class:`omg_agent.guards.sensitive.Gate`, and the run's total of what
it paid is :mod:`omg_agent.guards.spend_ledger`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from omg_agent.guards.amounts import Limit, Money
from omg_agent.guards.cues import SensitiveClass
from omg_agent.perception.textmatch import TextQuery, normalise

QUOTES = " '\"“”‘’「」『』"
_TOKEN_RE = re.compile(r"\d+(?:[.,'’]\d+)*|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
                       r"\uf900-\ufaff]+|(?:(?![\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
                       r"\uac00-\ud7af\uf900-\ufaff])[^\W\d_])+")


@dataclass(frozen=True)
class Authorisation:
    """Permission to perform sensitive actions of class ``cls`` — on ``target`` only when
    one is named (``None``: any target), up to ``limit`` when one was stated, and for a
    send only the message ``text`` when the user gave it. ``source`` says where it came
    from.

    ``grants`` False is a *restriction*: it lets nothing through on its own but holds what
    other authorisations would let through — a stated limit, or with ``forbids`` a
    permission the user negated ("don't pay", "不要删除"), which holds every action of its
    class (and target) whatever else allows it. A limit bounds the run's total of payments
    (:mod:`omg_agent.guards.spend_ledger`) unless ``per_payment`` ("up to ¥100 per item")."""

    cls: SensitiveClass
    target: str | None = None
    source: str = "task"
    limit: Limit | None = None
    text: str | None = None
    grants: bool = True  # False: a restriction (a stated limit, a "don't"), never a permission
    per_payment: bool = False  # the limit is each payment's, not the run's total
    forbids: bool = False  # the user said not to: the gate asks whatever else allows it

    def covers(self, cls: str, subjects: Iterable[str]) -> bool:
        """Whether this authorisation's class and target fit a ``cls`` action on a screen
        showing ``subjects`` (see the module docstring for what those are)."""
        if cls != self.cls:
            return False
        if self.target is None:
            return True
        return any(names(self.target, s) for s in subjects if s)

    def limit_problem(self, amounts: Sequence[Money]) -> str | None:
        """Why paying what the screen shows (``amounts``) is beyond this authorisation's
        limit — no amount read, one too high or in another currency — or ``None``."""
        if self.limit is None:
            return None
        if not amounts:
            return f"no amount could be read to keep your limit ({self.limit})"
        over = next((m for m in amounts if not self.limit.admits(m)), None)
        return None if over is None else f"{over} is beyond your limit ({self.limit})"

    def text_problem(self, text: str | None) -> str | None:
        """Why the message about to be sent (``text``; ``None``: unreadable) is not the one
        the user gave, or ``None``."""
        if self.text is None:
            return None
        if text is None:
            return f"the message could not be read (you gave {self.text!r})"
        if same_message(text, self.text):
            return None
        return f"the message {text!r} is not the one you gave ({self.text!r})"

    def __str__(self) -> str:
        if self.forbids:
            return f"no {self.cls}" + (f" to {self.target!r}" if self.target else "")
        if not self.grants:
            each = " per payment" if self.per_payment else ""
            return f"{self.cls} limited to {self.limit}{each}"
        out = f"{self.cls} to {self.target!r}" if self.target else f"any {self.cls}"
        if self.limit is not None:
            out += f", {self.limit}" + (" per payment" if self.per_payment else "")
        return out + (f", text {self.text!r}" if self.text is not None else "")


def names(target: str, subject: str) -> bool:
    """Whether ``target`` names ``subject`` whole: the same text (the shared rule's tiers
    0–2: case, width and spacing aside), or a run of its whole words and numbers ("Bob" in
    "Bob (mobile)", "138 1234 5678" in "+86 138 1234 5678") — never a piece of a word or a
    number ("¥1" is not in "Pay ¥1,079.00")."""
    tier = TextQuery(target).score(subject)
    if tier is not None and tier <= 2:
        return True
    want, got = words(target), words(subject)
    return bool(want) and any(got[i:i + len(want)] == want
                              for i in range(len(got) - len(want) + 1))


def named_deletes(authorisations: Sequence[Authorisation], objects: Sequence[str], *,
                  trusted: bool) -> list[Authorisation]:
    """The delete authorisations that name what a delete removes (``objects``, as the screen
    names them: the open note's title, the rows picked), each the same text — "old" never
    names "old notes". Restrictions naming any of them always; permissions only when every
    object is named by one and the names are ``trusted`` (not typed by this run: a title
    field renamed in an open editor names the note it will be saved as, not the one a
    delete removes)."""
    hits = [[a for a in authorisations if a.cls == "delete" and a.target
             and (tier := TextQuery(a.target).score(o)) is not None and tier <= 2]
            for o in objects]
    found = [a for each in hits for a in each if a.forbids]
    if trusted and hits and all(any(a.grants for a in each) for each in hits):
        found += [a for each in hits for a in each if a.grants and a not in found]
    return found


def words(text: str) -> list[str]:
    """The whole words and numbers of ``text``, normalised (a number keeps its separators:
    ``1,079.00`` is one; a run of Chinese characters is one)."""
    return _TOKEN_RE.findall(normalise(text, cjk=False))


def same_message(typed: str, given: str) -> bool:
    """Whether a message about to be sent is the one the user gave: equal after
    normalising case, width and whitespace (spaces between Chinese characters removed, as
    the shared text rule does), quotes and a closing full stop aside."""
    return _message(typed) == _message(given)


def _message(text: str) -> str:
    return normalise(text).strip(QUOTES).rstrip("。.").strip(QUOTES)


__all__ = ["QUOTES", "Authorisation", "named_deletes", "names", "same_message", "words"]
