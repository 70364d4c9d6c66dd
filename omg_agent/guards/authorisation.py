"""Pre-authorisations: the only way past the sensitive-action gate without asking.

An :class:`~omg_agent.guards.grant.Authorisation` names a sensitive class and, usually, a
target: ``send`` to ``Bob``, ``secret_entry`` in ``Login``. They come from words a *user*
wrote — the task text or a plan file (:func:`parse_authorisations`, the one reader of them)
— or from a CLI-style ``--allow send`` list (:func:`parse_allow`); never from the screen and
never from the model. A target is matched against what the gate saw
(:class:`~omg_agent.guards.sensitive.Sensitivity`), whole words only.

What the words grant, and nothing more:

* an explicit permission: "you may pay in Shop", "you can delete notes", "feel free to text
  Bob", "pay without asking", "可以付款", "允许删除备忘录", "直接付款，不用问我";
* a send the task states in full — recipients and text (:mod:`.send_words`): `Send "On my
  way" to 妈妈 and to Bob`, "Reply ok to Alice", "给妈妈发消息说我到了";
* a delete of a named object: "Delete the note titled old", "删除备忘录old" — that one only;
* a secret the task names for signing in to an app it names ("Sign in to Login with password
  {{secret:Pass}}") — typing it into that app's password field;
* a payment only within a limit the user stated ("Buy a cable in Shop, spend no more than
  ¥50"; limits: :mod:`.spending_words`), or with an explicit permission.

A limit stated where nothing is permitted is a *restriction* that holds every payment
``--allow payment`` would let through; a negated permission ("don't pay", "不要删除", "never
buy", "ask me before sending") grants nothing and *forbids* its class, whatever else in the
task or ``--allow`` permits it. A limit bounds the run's total unless it is per item.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

from omg_agent.guards.amounts import Limit, parse_money, split_limit
from omg_agent.guards.cues import CLASSES, SensitiveClass
from omg_agent.guards.grant import QUOTES, Authorisation, names, same_message, words
from omg_agent.guards.grant_words import spoken, voiced
from omg_agent.guards.send_words import names_nobody, sends
from omg_agent.guards.spending_words import StatedLimit, stated_limits
from omg_agent.guards.task_objects import deleted_names, negations, sign_in_apps
from omg_agent.guards.task_verbs import VERB_CLASS as _VERB_CLASS
from omg_agent.guards.task_verbs import verb_class

_CLASS_ALIASES: dict[str, SensitiveClass] = {
    **{c: c for c in CLASSES}, "pay": "payment", "payments": "payment", "buy": "payment",
    "deletes": "delete", "sends": "send", "message": "send", "messages": "send",
    "permissions": "permission", "grant": "permission", "secret": "secret_entry",
    "secrets": "secret_entry", "password": "secret_entry", "security": "account_security",
}
_GENERIC_OBJECTS = frozenset({"order", "orders", "cart", "purchase", "purchases", "one",
                              "messages", "message", "texts", "text", "sms", "it", "them",
                              "things", "anything", "payments", "items", "stuff", "password",
                              "passwords", "my password", "everything", "this", "that"})
_STOP = (r"\s+(?:without|when|if|but|and|as|so|per|each|every|up\s+to|at\s+most|under|below|"
         r"only|for\s+up|once|whenever|unless|provided|as\s+long)\b")
MAX_ALLOW = 200  # characters of one --allow item
_CLAUSE = r"(?:[^.;\n]|\.(?=\d))*"  # to the end of a sentence (a decimal point is no end)

_MAY = (r"(?:(?:you\s+)?(?:may|can|are\s+(?:also\s+)?(?:allowed|permitted|free)\s+to|"
        r"are\s+(?:pre-?)?authori[sz]ed\s+to|have\s+(?:my\s+)?permission\s+to|"
        r"(?:it\s+is|it'?s)\s+(?:ok(?:ay)?|fine|alright|all\s+right)\s+(?:for\s+you\s+)?to)|"
        r"feel\s+free\s+to|go\s+ahead\s+and|i\s+(?:allow|authori[sz]e|permit)\s+you\s+to|"
        r"i\s+give\s+you\s+permission\s+to|you'?re\s+(?:allowed|permitted|free)\s+to)")
_EXPLICIT_EN = re.compile(r"(?<![\w'])" + _MAY + r"\s+(?:go\s+ahead\s+and\s+|also\s+|just\s+)?"
                          r"(?P<verb>[a-z]+)(?P<rest>" + _CLAUSE
                          + ")", re.IGNORECASE)
_NO_ASK_EN = re.compile(r"\b(?P<verb>pay|buy|purchase|delete|remove|send|text|reply|install)"
                        r"\b(?P<rest>[^.;\n]*?)\s+without\s+(?:asking|checking|confirm\w*)",
                        re.IGNORECASE)
_EXPLICIT_ZH = re.compile(
    r"(?:可以|允许你?|授权你?)(?:直接)?(?:给(?P<to>[^，。；,;\s]{1,12}?))?"
    r"(?P<pre>最多|至多|最高|不超过)?"
    r"(?P<verb>支付|付款|付|购买|删除|清空|发送|发|分享|发布|拨打|安装)(?P<rest>[^，。；,;\n]*)"
    r"(?P<more>[^。；;\n]*)")
_NO_ASK_ZH = re.compile(r"(?:直接)(?P<verb>付款|支付|购买|删除|发送)[^。；;\n]*?(?:不用|无需|不必|"
                        r"不需要)(?:问我|确认|询问)")
# where a permission's target follows: whom for a send ("to Bob in Messages"), the app for
# the rest ("pay for the order in Shop")
_PREP_TARGET = {
    "send": re.compile(r"\b(?:to|with)\s+(?P<target>.+?)(?:\s+(?:in|on|via)\s+(?:the\s+)?"
                       r"[A-Z][\w.]*(?:\s+app)?)?$", re.IGNORECASE),
    "app": re.compile(r"\b(?:in|on|at)\s+(?P<target>.+)$", re.IGNORECASE),
    "other": re.compile(r"\b(?:to|from|for|with)\s+(?P<target>.+)$", re.IGNORECASE)}
_LIMIT_OP = re.compile(r"^(?P<target>.*?)\s*(?P<op><=|≤|<)\s*(?P<amount>.*)$")
_INSTRUCTED_PAY = re.compile(r"\b(?:buy|purchase|pay|check\s*out|get\s+me)\b|\border\s+(?:it|them|"
                             r"this|that|one|two|three|a|an|the|some|me|\d)\b|购买|买|付款|"
                             r"支付|下单|结账|结算", re.IGNORECASE)
# a negated payment verb instructs none: "don't pay more than ¥100", "不要买超过100元的东西"
_NOT_PAYING = re.compile(r"\b(?:don'?t|do\s+not|never|must\s+not|mustn'?t|should\s+not|"
                         r"shouldn'?t|not\s+to|can'?t|cannot)\s+(?:buy|purchase|pay|order|spend)"
                         r"\b|(?:别|不要|不能|不得|不可|不许|切勿|勿|千万别)(?:买|购买|付|支付|下单)",
                         re.IGNORECASE)
# a permission verb in another sense: "pay attention", "spend a moment", "order them by
# name", "text-search" — no permission at all
_IDIOM = re.compile(r"^(?:-|\s+(?:attention|time|(?:a|one)\s+(?:moment|minute|second|while)|"
                    r"some\s+time|[\w\s]{0,30}?\bby\s+(?:date|name|price|size|time)))",
                    re.IGNORECASE)
_SECRET_NAMED = re.compile(r"\b(?:password|passcode|pin|secret|code)s?\b|\{\{secret:",
                           re.IGNORECASE)
_APP = re.compile(r"\b(?:in|on|from|at)\s+(?:the\s+)?(?P<app>[A-Z][\w.-]*)(?:\s+app)?\b")


def parse_allow(values: Iterable[str]) -> list[Authorisation]:
    """``--allow send --allow payment`` (or ``send,delete``): class-wide authorisations.

    ``cls:target`` names a target (``send:Bob``); a payment may carry a limit after the
    target: ``payment:<=100``, ``payment:Shop<=¥100``, ``payment:<5`` (strictly less),
    ``payment:100`` or ``payment:¥100`` (an amount alone: at most that). Bad items raise
    ``ValueError``.
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


_LIMIT_HELP = "payment:<=100, payment:100, payment:Shop<=¥100, payment:<5"


def _allow_spec(cls: SensitiveClass, spec: str, item: str) -> tuple[str | None, Limit | None]:
    m, money = _LIMIT_OP.match(spec), parse_money(spec)  # "<=100" is no amount: None
    # an amount alone is a payment's limit ("payment:100"), never a target named "100"
    if m is None and (money is None or (money.currency is None and cls != "payment")):
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
    """What a user's task or plan text grants (see the module docstring), the limits it
    states and the permissions it negates — in that order, each once."""
    limits = stated_limits(text)
    implied = _implied(text)
    # quoted words and the texts the task sends are data, never the user's permission
    voice = spoken(text, [a.text for a in implied if a.text])
    explicit = _explicit(voice)
    found = [a for a in explicit if a.cls != "payment"] + implied
    found += _payments([a for a in explicit if a.cls == "payment"], limits, voice)
    forbidden = [Authorisation(cls, target, grants=False, forbids=True)
                 for cls, target in negations(text)]
    kept = [a for a in found if not any(
        f.cls == a.cls and (f.target is None or (a.target is not None and names(
            f.target, a.target))) for f in forbidden)]
    return list(dict.fromkeys([*kept, *forbidden]))  # unique, in order


def _payments(explicit: list[Authorisation], limits: list[StatedLimit],
              text: str) -> list[Authorisation]:
    """Payment grants: explicit ones, else one the task instructs within a stated limit;
    each carries every limit the task states (a grant per limit: the gate keeps them all).
    With no grant, the limits are restrictions."""
    grants = explicit
    if not grants and limits and _INSTRUCTED_PAY.search(_NOT_PAYING.sub(" ", text)):
        app = _APP.search(text)
        grants = [Authorisation("payment", app["app"] if app else None)]
    if not grants:
        return [Authorisation("payment", limit=s.limit, grants=False,
                              per_payment=s.per_payment) for s in limits]
    out: list[Authorisation] = []
    for grant in grants:
        stated = {s.limit for s in limits}
        own = [StatedLimit(grant.limit)] if grant.limit is not None \
            and grant.limit not in stated else []
        every = [*own, *limits]
        out += [dataclasses.replace(grant, limit=s.limit, per_payment=s.per_payment)
                for s in every] or [grant]
    return out


def _explicit(text: str) -> list[Authorisation]:
    out: list[Authorisation] = []
    for m in [*_EXPLICIT_EN.finditer(text), *_NO_ASK_EN.finditer(text)]:
        cls = verb_class(m["verb"], m["rest"])  # "remove … from the cart": none
        if cls is None or _IDIOM.match(m["rest"]) or not voiced(text, m.start(), m.end()):
            continue
        if cls == "secret_entry" and not _SECRET_NAMED.search(m["rest"]):
            continue  # "you may enter the Settings app": no secret in those words
        limit, rest = split_limit(m["rest"]) if cls == "payment" else (None, m["rest"])
        target = _target_of(rest, cls)
        if cls == "send" and target is not None and names_nobody(target):
            continue  # "send him the code": whom, the words do not say
        out.append(Authorisation(cls, target, limit=limit))
    for m in _EXPLICIT_ZH.finditer(text):
        if not voiced(text, m.start(), m.end()):
            continue
        cls = _VERB_CLASS[m["verb"]]
        limit, rest = None, m["rest"]
        if cls == "payment":
            limit, rest = split_limit(f"{m['pre'] or ''}{m['rest']}{m['more']}")
            rest = re.split(r"[，,]", rest)[0]
        out.append(Authorisation(cls, m["to"] or _zh_target(rest), limit=limit))
    out += [Authorisation(_VERB_CLASS[m["verb"]]) for m in _NO_ASK_ZH.finditer(text)
            if voiced(text, m.start(), m.end())]
    return out


def _target_of(rest: str, cls: SensitiveClass) -> str | None:
    rest = re.split(_STOP, rest.strip(), flags=re.IGNORECASE)[0]
    order = ("send",) if cls == "send" else ("app", "other")  # an app named wins
    m = next((m for key in order if (m := _PREP_TARGET[key].search(rest))), None)
    rest = m["target"] if m is not None else rest
    target = rest.strip(QUOTES + ",")
    target = re.sub(r"^(?:the|a|an|my|all|any|every)\s+", "", target, flags=re.IGNORECASE)
    target = re.sub(r"\s+(?:app|application)$", "", target, flags=re.IGNORECASE).strip()
    return None if not target or target.lower() in _GENERIC_OBJECTS else target


def _zh_target(rest: str) -> str | None:
    rest = re.sub(r"^(?:信息|消息|短信)?(?:给|到)?", "", rest.strip())
    rest = re.split(r"(?:不用|无需|不必|不需要|时|的时候|之前|以前)", rest)[0]
    return rest or None


def _implied(text: str) -> list[Authorisation]:
    out = [Authorisation("send", who, text=said) for who, said in sends(text)]
    out += [Authorisation("delete", name) for name in deleted_names(text)]
    out += [Authorisation("secret_entry", app) for app in sign_in_apps(text)]
    return out


__all__ = ["MAX_ALLOW", "Authorisation", "names", "parse_allow", "parse_authorisations",
           "same_message", "words"]
