"""Pre-authorisations: the only way past the sensitive-action gate without asking.

An :class:`Authorisation` names a sensitive class and, usually, a target: ``send`` to
``Bob``, ``secret_entry`` in ``Login``. They come from words a *user* wrote — the task text
or a plan file (:func:`parse_authorisations`) — or from a CLI-style ``--allow send`` list
(:func:`parse_allow`); never from the screen and never from the model. A target is matched
against what the gate saw (:class:`~omg_agent.guards.sensitive.Sensitivity`): the app's
package, the screen's title band, a recipient field and the control's label — for secrets
and account security only the app's package, since a phishing dialog writes its own title.

Two kinds of task wording authorise on their own, because the task *is* the instruction:
sending a message to a contact *named* in it ("Send See you at 7 to Bob in Messages",
"在信息里给妈妈发送：…"), and typing the password the task gives into the app it names
("Sign in to Login as demo with password omg1234"). A phone number is not a name: texting
"the new number 138…" still asks. Deleting and paying always ask unless explicitly allowed
("you may delete notes", "you may pay in Shop").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from omg_agent.guards.cues import CLASSES, SensitiveClass
from omg_agent.perception.textmatch import EXACT_TIERS, TextQuery

_VERB_CLASS: dict[str, SensitiveClass] = {
    "pay": "payment", "buy": "payment", "purchase": "payment", "order": "payment",
    "checkout": "payment", "支付": "payment", "付款": "payment", "购买": "payment",
    "delete": "delete", "remove": "delete", "clear": "delete", "erase": "delete",
    "uninstall": "delete", "reset": "delete", "删除": "delete", "清空": "delete",
    "send": "send", "text": "send", "message": "send", "post": "send", "share": "send",
    "call": "send", "reply": "send", "发送": "send", "发": "send", "分享": "send",
    "发布": "send", "拨打": "send",
    "install": "install", "安装": "install",
    "grant": "permission", "allow": "permission", "授权": "permission",
    "enter": "secret_entry", "type": "secret_entry",
}
_CLASS_ALIASES: dict[str, SensitiveClass] = {
    **{c: c for c in CLASSES}, "pay": "payment", "payments": "payment", "buy": "payment",
    "deletes": "delete", "sends": "send", "message": "send", "messages": "send",
    "permissions": "permission", "grant": "permission", "secret": "secret_entry",
    "secrets": "secret_entry", "password": "secret_entry", "security": "account_security",
}
_GENERIC_OBJECTS = frozenset({"messages", "message", "texts", "text", "sms", "it", "them",
                              "things", "anything", "payments", "items", "stuff", "password",
                              "passwords", "my password"})
_STOP_WORDS = ("without", "when", "if", "but", "and", "as", "so")
_AMOUNT = re.compile(r"\s+(?:up\s+to|at\s+most|below|under|of)\s+[^\s,;.]+(?:\s+(?:yuan|rmb|"
                     r"dollars?|euros?|元))?", re.IGNORECASE)

_MAY = (r"(?:you\s+)?(?:may|can|are\s+allowed\s+to|are\s+(?:pre-?)?authori[sz]ed\s+to|"
        r"have\s+permission\s+to|(?:it\s+is|it'?s)\s+ok(?:ay)?\s+to)")
_EXPLICIT_EN = re.compile(_MAY + r"\s+(?P<verb>[a-z]+)(?P<rest>[^.;\n]*)", re.IGNORECASE)
_EXPLICIT_ZH = re.compile(
    r"(?:可以|允许你?|授权你?)(?:直接)?(?:给(?P<to>[^，。；,;\s]{1,12}?))?"
    r"(?P<verb>支付|付款|购买|删除|清空|发送|发|分享|发布|拨打|安装)(?P<rest>[^，。；,;\n]*)")
_PREP_TARGET = re.compile(r"\b(?:to|in|on|from|for|with)\s+(?P<target>.+)$", re.IGNORECASE)

_SEND_EN = re.compile(r"^\s*(?:send|text)\s+.+\s+to\s+(?P<target>.+?)(?:\s+in\s+\w+)?\s*$",
                      re.IGNORECASE)
_REPLY_EN = re.compile(r"\breply\b.+?\bconversation\s+with\s+(?P<target>.+?)"
                       r"(?:\s+in\s+\w+)?\s*$", re.IGNORECASE)
_SEND_ZH = re.compile(r"给(?P<target>[^，。；,;\s：:]{1,12}?)(?:发送|发)(?:信息|消息|短信)?[：:]")
_SIGN_IN_EN = re.compile(r"\bsign\s+in\s+to\s+(?P<app>\S+)\s+as\s+\S+\s+with\s+password\s+\S+",
                         re.IGNORECASE)


@dataclass(frozen=True)
class Authorisation:
    """Permission to perform sensitive actions of class ``cls`` — on ``target`` only when
    one is named (``None``: any target). ``source`` says where it came from."""

    cls: SensitiveClass
    target: str | None = None
    source: str = "task"

    def covers(self, cls: str, subjects: Iterable[str]) -> bool:
        """Whether this authorisation allows a ``cls`` action on a screen showing
        ``subjects`` (see the module docstring for what those are)."""
        if cls != self.cls:
            return False
        if self.target is None:
            return True
        query = TextQuery(self.target)
        return any((tier := query.score(s)) is not None and tier <= EXACT_TIERS
                   for s in subjects if s)

    def __str__(self) -> str:
        return f"{self.cls} to {self.target!r}" if self.target else f"any {self.cls}"


def parse_allow(values: Iterable[str]) -> list[Authorisation]:
    """``--allow send --allow payment`` (or ``send,delete``): class-wide authorisations.

    ``cls:target`` names a target (``send:Bob``). Unknown names raise ``ValueError``.
    """
    out: list[Authorisation] = []
    for value in values:
        for item in filter(None, (v.strip() for v in value.split(","))):
            name, _, target = item.partition(":")
            cls = _CLASS_ALIASES.get(name.strip().lower())
            if cls is None:
                raise ValueError(f"unknown sensitive class {name!r}; choose from: "
                                 + ", ".join(CLASSES))
            out.append(Authorisation(cls, target.strip() or None, source="--allow"))
    return out


def parse_authorisations(text: str) -> list[Authorisation]:
    """The authorisations a user's task or plan text grants (explicit and implied)."""
    found = _explicit(text) + _implied(text)
    return list(dict.fromkeys(found))  # unique, in order


def _explicit(text: str) -> list[Authorisation]:
    out: list[Authorisation] = []
    for m in _EXPLICIT_EN.finditer(text):
        cls = _VERB_CLASS.get(m["verb"].lower())
        if cls is not None:
            out.append(Authorisation(cls, _target_of(m["rest"]), source="task"))
    for m in _EXPLICIT_ZH.finditer(text):
        cls = _VERB_CLASS[m["verb"]]
        target = m["to"] or _zh_target(m["rest"])
        out.append(Authorisation(cls, target, source="task"))
    return out


def _target_of(rest: str) -> str | None:
    rest = _AMOUNT.sub("", rest).strip()  # amount limits are not enforced: see README
    for stop in _STOP_WORDS:
        rest = re.split(rf"\s+{stop}\b", rest, maxsplit=1, flags=re.IGNORECASE)[0]
    m = _PREP_TARGET.search(rest)
    target = (m["target"] if m else rest).strip(" '\"“”")
    target = re.sub(r"^(?:the|a|an|my|all)\s+", "", target, flags=re.IGNORECASE)
    return None if not target or target.lower() in _GENERIC_OBJECTS else target


def _zh_target(rest: str) -> str | None:
    rest = re.sub(r"^(?:信息|消息|短信)?(?:给|到)?", "", rest.strip())
    return rest or None


def _implied(text: str) -> list[Authorisation]:
    out: list[Authorisation] = []
    for clause in re.split(r"[;；\n]", text):
        for rx in (_SEND_EN, _REPLY_EN, _SEND_ZH):
            m = rx.search(clause)
            if m and _is_name(m["target"]):
                out.append(Authorisation("send", m["target"].strip(), source="task"))
                break
        m = _SIGN_IN_EN.search(clause)
        if m:
            out.append(Authorisation("secret_entry", m["app"].strip(" .,"), source="task"))
    return out


def _is_name(target: str) -> bool:
    """A contact's name, not a number, a pronoun or a relation ("my sister")."""
    t = target.strip()
    return bool(t) and not any(ch.isdigit() for ch in t) and not re.match(
        r"(?:my|the|them|him|her|a|an|this|that|everyone|all)\b", t, re.IGNORECASE)
