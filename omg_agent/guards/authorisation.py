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

An authorisation keeps what the user stated, nothing more: a payment's *limit* ("you may
pay up to ¥100 in Shop", "最多付100元", ``--allow payment:Shop<=100``; read by the one
parser, :mod:`omg_agent.guards.amounts`) and a send's *text* ("Send hello to Alice"
authorises "hello" to Alice, not another text). The gate checks both at execution time
against what the screen shows; a limit whose amount cannot be read admits nothing. A
target is a whole name or number of what the gate saw, never a fragment of it: ``¥1`` is
not in "Pay ¥1,079.00", "Bob" is not in "Bobby".

A limit stated anywhere in the task about spending ("Buy a cable in Shop, spend no more
than ¥50") is kept even where nothing is permitted: it becomes a *restriction*
(``grants=False``) that lets nothing through on its own but holds every payment another
authorisation (``--allow payment``) would let through.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from omg_agent.guards.amounts import Limit, Money, parse_limit, parse_money, split_limit
from omg_agent.guards.cues import CLASSES, SensitiveClass
from omg_agent.perception.textmatch import TextQuery, normalise

_VERB_CLASS: dict[str, SensitiveClass] = {
    "pay": "payment", "buy": "payment", "purchase": "payment", "order": "payment",
    "checkout": "payment", "支付": "payment", "付款": "payment", "购买": "payment",
    "付": "payment",
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
MAX_ALLOW = 200  # characters of one --allow item
_CLAUSE = r"(?:[^.;\n]|\.(?=\d))*"  # to the end of a sentence (a decimal point is no end)

_MAY = (r"(?:you\s+)?(?:may|can|are\s+allowed\s+to|are\s+(?:pre-?)?authori[sz]ed\s+to|"
        r"have\s+permission\s+to|(?:it\s+is|it'?s)\s+ok(?:ay)?\s+to)")
_EXPLICIT_EN = re.compile(_MAY + r"\s+(?P<verb>[a-z]+)(?P<rest>" + _CLAUSE + ")",
                          re.IGNORECASE)
_EXPLICIT_ZH = re.compile(
    r"(?:可以|允许你?|授权你?)(?:直接)?(?:给(?P<to>[^，。；,;\s]{1,12}?))?"
    r"(?P<pre>最多|至多|最高|不超过)?"
    r"(?P<verb>支付|付款|付|购买|删除|清空|发送|发|分享|发布|拨打|安装)(?P<rest>[^，。；,;\n]*)"
    r"(?P<more>[^。；;\n]*)")
_PREP_TARGET = re.compile(r"\b(?:to|in|on|from|for|with)\s+(?P<target>.+)$", re.IGNORECASE)

_SEND_EN = re.compile(r"^\s*(?:send|text)\s+(?P<text>.+)\s+to\s+(?P<target>.+?)"
                      r"(?:\s+in\s+\w+)?\s*$", re.IGNORECASE)
_REPLY_EN = re.compile(r"\breply\b(?:\s+(?:with\s+)?(?P<text>.+?)\s+in)?.+?\bconversation\s+"
                       r"with\s+(?P<target>.+?)(?:\s+in\s+\w+)?\s*$", re.IGNORECASE)
_SEND_ZH = re.compile(r"给(?P<target>[^，。；,;\s：:]{1,12}?)(?:发送|发)(?:信息|消息|短信)?[：:]"
                      r"(?P<text>.*)")
_QUOTES = " '\"“”‘’「」『』"
_TOKEN_RE = re.compile(r"\d+(?:[.,'’]\d+)*|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
                       r"\uf900-\ufaff]+|(?:(?![\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
                       r"\uac00-\ud7af\uf900-\ufaff])[^\W\d_])+")
_LIMIT_OP = re.compile(r"^(?P<target>.*?)\s*(?P<op><=|≤|<)\s*(?P<amount>.*)$")
_SPENDING = re.compile(r"\b(?:pay|paying|paid|spend|spending|spent|cost|costs|price|budget|"
                       r"buy|purchase|order)\b|付|花|支付|预算|价格|购买|买", re.IGNORECASE)
_SENTENCES = re.compile(r"(?:[^.;\n。；]|\.(?=\d))+")
_SIGN_IN_EN = re.compile(r"\bsign\s+in\s+to\s+(?P<app>\S+)\s+as\s+\S+\s+with\s+password\s+\S+",
                         re.IGNORECASE)


@dataclass(frozen=True)
class Authorisation:
    """Permission to perform sensitive actions of class ``cls`` — on ``target`` only when
    one is named (``None``: any target), up to ``limit`` when one was stated, and for a
    send only the message ``text`` when the user gave it. ``source`` says where it came
    from."""

    cls: SensitiveClass
    target: str | None = None
    source: str = "task"
    limit: Limit | None = None
    text: str | None = None
    grants: bool = True  # False: a restriction (a stated limit), never a permission

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
        if not self.grants:
            return f"{self.cls} limited to {self.limit}"
        out = f"{self.cls} to {self.target!r}" if self.target else f"any {self.cls}"
        if self.limit is not None:
            out += f", {self.limit}"
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
    return normalise(text).strip(_QUOTES).rstrip("。.").strip(_QUOTES)


def parse_allow(values: Iterable[str]) -> list[Authorisation]:
    """``--allow send --allow payment`` (or ``send,delete``): class-wide authorisations.

    ``cls:target`` names a target (``send:Bob``); a payment may carry a limit after the
    target: ``payment:<=100``, ``payment:Shop<=¥100``, ``payment:<5`` (strictly less),
    ``payment:¥100`` (an amount alone: at most that). Bad items raise ``ValueError``.
    """
    out: list[Authorisation] = []
    for value in values:
        for item in _items(value):
            if len(item) > MAX_ALLOW:
                raise ValueError(f"an --allow item is longer than {MAX_ALLOW} characters")
            name, _, spec = item.partition(":")
            cls = _CLASS_ALIASES.get(name.strip().lower())
            if cls is None:
                raise ValueError(f"unknown sensitive class {name!r}; choose from: "
                                 + ", ".join(CLASSES))
            target, limit = _allow_spec(cls, spec.strip(), item)
            out.append(Authorisation(cls, target, "--allow", limit))
    return out


def _items(value: str) -> list[str]:
    """Comma-separated items; a comma between digits groups an amount (``<=1,079.00``)."""
    items: list[str] = []
    for piece in value.split(","):
        if items and items[-1][-1:].isdigit() and piece[:1].isdigit():
            items[-1] += "," + piece
        else:
            items.append(piece)
    return [i.strip() for i in items if i.strip()]


_LIMIT_HELP = "payment:<=100, payment:Shop<=¥100, payment:<5"


def _allow_spec(cls: SensitiveClass, spec: str, item: str) -> tuple[str | None, Limit | None]:
    m, money = _LIMIT_OP.match(spec), parse_money(spec)  # "<=100" is no amount: None
    if m is None and (money is None or money.currency is None):
        if any(ch in spec for ch in "<>=≤≥"):
            raise ValueError(f"cannot read the limit in {item!r}; write it as {_LIMIT_HELP}")
        return spec or None, None
    if cls != "payment":
        raise ValueError(f"an amount limit applies to payment only, not {item!r}")
    if m is None:
        assert money is not None
        return None, Limit(money)
    amount = parse_money(m["amount"])
    if amount is None:
        raise ValueError(f"cannot read the amount {m['amount']!r} in {item!r}; write a "
                         f"number with an optional currency: {_LIMIT_HELP}")
    return m["target"].strip() or None, Limit(amount, inclusive=m["op"] != "<")


def parse_authorisations(text: str) -> list[Authorisation]:
    """The authorisations a user's task or plan text grants (explicit and implied), and
    the spending limits it states (restrictions)."""
    found = _explicit(text) + _implied(text)
    kept = {a.limit for a in found}
    found += [a for a in _stated_limits(text) if a.limit not in kept]
    return list(dict.fromkeys(found))  # unique, in order


def _stated_limits(text: str) -> list[Authorisation]:
    """A limit in a sentence about spending, with a currency (or a money word it cannot
    read): "spend no more than ¥50", "最多花100元", "at most one hundred dollars" — not "at
    most 2 cables"."""
    out: list[Authorisation] = []
    for sentence in _SENTENCES.findall(text):
        limit = parse_limit(sentence) if _SPENDING.search(sentence) else None
        if limit is not None and (limit.amount is None or limit.amount.currency is not None):
            out.append(Authorisation("payment", limit=limit, grants=False))
    return out


def _explicit(text: str) -> list[Authorisation]:
    out: list[Authorisation] = []
    for m in _EXPLICIT_EN.finditer(text):
        cls = _VERB_CLASS.get(m["verb"].lower())
        if cls is not None:
            limit, rest = split_limit(m["rest"]) if cls == "payment" else (None, m["rest"])
            out.append(Authorisation(cls, _target_of(rest), limit=limit))
    for m in _EXPLICIT_ZH.finditer(text):
        cls = _VERB_CLASS[m["verb"]]
        limit, rest = None, m["rest"]
        if cls == "payment":
            limit, rest = split_limit(f"{m['pre'] or ''}{m['rest']}{m['more']}")
            rest = re.split(r"[，,]", rest)[0]
        target = m["to"] or _zh_target(rest)
        out.append(Authorisation(cls, target, limit=limit))
    return out


def _target_of(rest: str) -> str | None:
    rest = rest.strip()
    for stop in _STOP_WORDS:
        rest = re.split(rf"\s+{stop}\b", rest, flags=re.IGNORECASE)[0]
    m = _PREP_TARGET.search(rest)
    target = (m["target"] if m else rest).strip(_QUOTES + ",")
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
                said = (m["text"] or "").strip(_QUOTES) or None
                out.append(Authorisation("send", m["target"].strip(), text=said))
                break
        m = _SIGN_IN_EN.search(clause)
        if m:
            out.append(Authorisation("secret_entry", m["app"].strip(" .,")))
    return out


def _is_name(target: str) -> bool:
    """A contact's name, not a number, a pronoun or a relation ("my sister")."""
    t = target.strip()
    return bool(t) and not any(ch.isdigit() for ch in t) and not re.match(
        r"(?:my|the|them|him|her|a|an|this|that|everyone|all)\b", t, re.IGNORECASE)
