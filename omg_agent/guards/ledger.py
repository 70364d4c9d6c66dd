"""What the gate let through: the run's sensitive actions, by whose word, and whether they ran.

The gate (:class:`~omg_agent.guards.gatekeeper.GateKeeper`) appends a :class:`Passage` to its
:class:`Ledger` for every sensitive action it lets go — by the user's authorisation (the task
they typed, ``--allow``, their config) or by a human's yes (live, or on resume) — and the
one who ran the action settles it with what the executor reported. Honest done (DESIGN.md §5)
reads it: a task of a sensitive class (:func:`task_classes`: paying, sending, deleting) is
done only when the ledger holds a passage of that class that went through
(:func:`missing_passage`). The model's words never add to it. Pure data, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from omg_agent.guards.cues import SensitiveClass
from omg_agent.guards.grant import same_message
from omg_agent.guards.send_words import sends
from omg_agent.guards.task_verbs import REMOVE_WORDS, VERB_CLASS, removes_from_a_cart, verb_class
from omg_agent.perception.labels import latin_words

DONE_CLASSES: tuple[SensitiveClass, ...] = ("payment", "send", "delete")
# a task's verb opens a clause: "Pay for …", "Open Shop and pay", "go to Notes to delete" —
# not "read the last message", "check my order", "don't pay"
_OPENERS = frozenset({"and", "then", "to", "please", "also", "now", "first", "finally"})
_CLAUSES = re.compile(r"[,.;:!?\n，。；：！？、]+")
_QUOTED = re.compile(r"[\"“「『].*?[\"”」』]", re.DOTALL)
_COLON = re.compile(r":\s|：")
# text after a colon is dictated (a message's or a note's words) only when what comes before
# it says so — "Change the note to: Call me back", "给妈妈发送：你好" — never "Shop: pay for it"
_DICTATES = re.compile(
    r"\b(?:write|note|notes|memo|text|message|send|reply|say|saying|tell|type|enter|post|"
    r"change|set|rename|title|body|caption|comment|add|compose|draft|remind|reminder)\b|"
    r"[发写说记改]|回复|备注|内容", re.IGNORECASE)
_ZH_NEGATION = ("不", "别", "勿", "禁止", "无需", "不用", "不要")
# Words that name a class wherever they stand in a request — "Can you pay for the order?",
# "Make the payment", "Complete the purchase", "请帮我把购物车结算了" (default deny: the
# verb-opens-a-clause rule alone let a request it did not parse end done with nothing paid).
# Only a clause that asks for information ("How much would I pay?") or says not to ("don't
# pay", "不要删") names none; "remove" names a delete unless it takes something out of a
# cart (:mod:`.task_verbs`: the authorisation reader's rule too).
_NAMING: dict[str, SensitiveClass] = {
    **dict.fromkeys(("pay", "paying", "payment", "purchase", "purchasing", "buy", "buying"),
                    "payment"),
    **dict.fromkeys(("delete", "deleting", "deletion", "erase", "erasing", "trash", "wipe",
                     "discard", *REMOVE_WORDS), "delete"),
    **dict.fromkeys(("send", "sending"), "send"),
}
_ZH_NAMING: dict[str, SensitiveClass] = {
    **dict.fromkeys(("结算", "结账", "买单", "付钱", "付款", "支付", "购买", "买下", "下单"),
                    "payment"),
    **dict.fromkeys(("删", "清空"), "delete"),
    **dict.fromkeys(("发送", "发给"), "send"),
}
_NOT = frozenset({"don't", "dont", "do't", "not", "never", "no", "without", "avoid", "stop",
                  "can't", "cannot", "won't", "shouldn't", "mustn't", "nor"})
# a clause opened by one of these asks for information, not for an effect
_INFO = frozenset({"what", "what's", "whats", "how", "which", "who", "whom", "whose", "when",
                   "where", "why", "whether", "is", "are", "was", "were", "did", "does", "has",
                   "have", "had", "look", "show", "list", "describe", "count", "read"})
_ORDER = re.compile(r"\b(?:place|submit|complete|confirm|finish)\s+(?:the\s+|my\s+|an?\s+|"
                    r"this\s+|your\s+)?(?:order|purchase)\b|\bcheck\s+out\b", re.IGNORECASE)
_ZH_INFO = re.compile(r"多少|什么|哪|几[个條条天次笔]|是否|有没有")
_NOUNS = {"payment": "payment", "send": "send", "delete": "delete"}


@dataclass(frozen=True)
class Passage:
    """One sensitive action the gate let go: its class, what it was (the gate's
    ``describe``), ``by`` whose word (``human``: a yes; ``authorisation``: what the user
    granted), ``ok``: what the executor reported (``None``: not run, or not reported), and
    for a send the ``text`` the gate read in the message box."""

    cls: str
    describe: str
    by: str
    ok: bool | None = None
    text: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"cls": self.cls, "describe": self.describe, "by": self.by, "ok": self.ok,
                "text": self.text}

    @classmethod
    def of(cls, data: dict[str, Any]) -> Passage:
        ok, text = data.get("ok"), data.get("text")
        return cls(str(data.get("cls", "")), str(data.get("describe", "")),
                   str(data.get("by", "")), ok if isinstance(ok, bool) else None,
                   text if isinstance(text, str) else None)


@dataclass
class Ledger:
    """The passages of one run, oldest first; ``open`` the ones of the last review not
    settled yet, each with its index in the actions that review judged."""

    entries: list[Passage] = field(default_factory=list)
    open: list[tuple[int, int]] = field(default_factory=list)

    def let(self, sensitivity: Any, by: str, at: int) -> None:
        """The gate let the ``at``-th action of its review go (nothing when it is harmless:
        ``sensitivity`` is ``None``)."""
        if sensitivity is not None:
            self.entries.append(Passage(sensitivity.cls, sensitivity.describe, by,
                                        text=getattr(sensitivity, "text", None)))
            self.open.append((len(self.entries) - 1, at))

    def settle(self, went_through: Callable[[int], bool], since: int = 0) -> None:
        """The actions of the last review ran: ``went_through(at)`` says whether the one at
        ``at`` was reported ok. Only passages from entry ``since`` on are that review's (an
        older one nobody settled stays unreported)."""
        for entry, at in self.open:
            if entry >= since:
                self.entries[entry] = replace(self.entries[entry], ok=went_through(at))
        self.open = []

    def restore(self, saved: Iterable[Passage]) -> list[Passage]:
        """A resumed run: the passages its earlier processes saved come first. Returns the
        list the gate appends to (the run state keeps that very list)."""
        if saved is self.entries:
            return self.entries
        earlier = list(saved)
        self.entries[:0] = earlier
        self.open = [(entry + len(earlier), at) for entry, at in self.open]
        return self.entries


def task_classes(task: str) -> tuple[SensitiveClass, ...]:
    """The sensitive classes (of :data:`DONE_CLASSES`) the user's ``task`` asks for, by its
    verbs — the authorisation parser's verb list, read where a verb opens a clause. Text the
    task dictates (quoted, or after a colon: a note's body "Call me back") is no verb."""
    whole, task = task, _undictated(task)
    found: list[SensitiveClass] = []
    for clause in _CLAUSES.split(task):
        words = latin_words(clause)
        for i, word in enumerate(words):
            # "remove … from the cart" is no gated delete: no passage could back it
            cls = verb_class(word, " ".join(words[i + 1:]))
            if cls in DONE_CLASSES and (i == 0 or words[i - 1] in _OPENERS):
                found.append(cls)
        found += _named(clause, words)
    for cue, cls in VERB_CLASS.items():
        if len(cue) < 2 or cls not in DONE_CLASSES or not re.search(r"[\u4e00-\u9fff]", cue):
            continue
        for m in re.finditer(cue, task):
            if not task[max(0, m.start() - 2):m.start()].endswith(_ZH_NEGATION):
                found.append(cls)
    if stated_messages(whole):  # "给妈妈发消息说我到了": a send the task states in full
        found.append("send")
    return tuple(c for c in DONE_CLASSES if c in found)


def _undictated(task: str) -> str:
    """``task`` without the text it dictates: quoted parts, and what follows a colon where
    the words before it say something is written or sent (:data:`_DICTATES`)."""
    task = _QUOTED.sub(" ", task)
    colon = _COLON.search(task)
    while colon is not None and not _DICTATES.search(task[:colon.start()]):
        colon = _COLON.search(task, colon.end())
    return task if colon is None else task[:colon.start()]


def _named(clause: str, words: list[str]) -> list[SensitiveClass]:
    """The classes ``clause`` names by a word of :data:`_NAMING` / :data:`_ZH_NAMING` —
    none when it asks for information or the word is said not to be done."""
    if (words and words[0] in _INFO) or _ZH_INFO.search(clause):
        return []
    found: list[SensitiveClass] = [
        cls for i, word in enumerate(words) if (cls := _NAMING.get(word)) is not None
        and not _NOT.intersection(words[:i])
        and not removes_from_a_cart(word, " ".join(words[i + 1:]))]
    if _ORDER.search(clause) and not _NOT.intersection(words):
        found.append("payment")
    for cue, cls in _ZH_NAMING.items():
        found += [cls for m in re.finditer(cue, clause)
                  if not clause[max(0, m.start() - 2):m.start()].endswith(_ZH_NEGATION)]
    return found


# a task that asks for text to be put somewhere: its typing is its effect
_WRITES = re.compile(
    r"\b(?:type|write|enter|input|fill|paste|copy|search|note|rename|compose|draft|reply|"
    r"text|message|say|tell)\b|输入|填|写|搜索|粘贴|复制|备注|改名|回复", re.IGNORECASE)


def writes_text(task: str, text: str | None = None) -> bool:
    """Whether ``task`` asks for text to be typed (so text in an edit field may be its
    effect): it dictates ``text`` (quoted, after a colon that says so, or a message it
    sends — not any words of it: "airplane mode" in "Turn on airplane mode" is no text to
    type), or names writing, typing, searching, copying."""
    if text and " ".join(text.split()).casefold() in " ".join(_dictated(task).split()).casefold():
        return True
    return _WRITES.search(task) is not None


def _dictated(task: str) -> str:
    """The text ``task`` dictates, joined: what :func:`_undictated` leaves out, and the
    messages it sends."""
    rest = _QUOTED.sub(" ", task)
    parts = [*_QUOTED.findall(task), rest[len(_undictated(task)):], *stated_messages(task)]
    return "\n".join(parts)


def stated_messages(task: str) -> list[str]:
    """The messages ``task`` dictates ("Send See you at 7 to Bob", "给妈妈发送：…"), to
    anyone — the one send parser's, whatever the recipient (a number too)."""
    found: list[str] = []
    for _, text in sends(task, anyone=True):
        if text.strip() and text.strip() not in found:
            found.append(text.strip())
    return found


def missing_passage(task: str, passages: Sequence[Passage]) -> str | None:
    """Why ``task`` cannot be done on what the run did (``None``: it can): a task that asks
    to pay, send or delete needs an action of that class the user granted or approved,
    carried out ok — for a send of a message the task dictates, that message."""
    for cls in task_classes(task):
        went = [p for p in passages if p.cls == cls and p.ok]
        if not went:
            return (f"the task asks for a {_NOUNS[cls]}, but no {_NOUNS[cls]} in this run "
                    "was approved or authorised by the user and carried out")
        said = stated_messages(task) if cls == "send" else []
        # a message box the gate could not read (no text) is no evidence either way — but
        # where a passage did read one, one read text must be the task's (an empty reading
        # next to the hostile double's own text backed any dictated message)
        read = [p.text for p in went if p.text]
        if said and read and not any(same_message(t, m) for t in read for m in said):
            return f"no message sent in this run was the one the task gives ({said[0]!r})"
    return None


__all__ = ["DONE_CLASSES", "Ledger", "Passage", "missing_passage", "stated_messages",
           "task_classes", "writes_text"]
