"""Amounts of money as people write them and screens show them: the one parser the gate uses.

A user's limit ("up to ¥100", "at most 1 yuan", "最多付100元", ``--allow payment:<=100``) and
what a checkout shows ("Pay ¥1,079.00", "Total: 1.079,00 €") are read by the same rules:

* a number is digits with thousands separators (``,`` ``.`` ``'`` and the narrow spaces) and
  one decimal separator (``.`` or ``,``): when both kinds appear the last one is the decimal
  point (``1,079.00`` and ``1.079,00`` are both 1079); a single separator followed by exactly
  three digits groups thousands (``1,079``, ``1.079``), otherwise it is the decimal point
  (``12,50``); badly grouped digits (``1,07,9``, a date ``1.2.2024``) are no amount;
* Chinese numerals before 元/块 count too ("一百元", "两千块");
* the currency comes from a sign or word before (¥ ￥ $ US$ € £ RMB CNY USD EUR 人民币) or
  after the number (元 块 块钱 yuan dollars euros € 美元 欧元); ``None`` when neither is given,
  and when the two disagree (the amount is then as good as unreadable on a screen).

A :class:`Limit` is what the user allows per payment: inclusive ("up to", "at most", "no
more than", "最多", "不超过", "以内", ``<=``) or strict ("under", "below", "less than", "少于",
``<``). Pure functions, no I/O; the gate (:mod:`omg_agent.guards.sensitive`) decides with them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal

MAX_TEXT = 10_000  # characters of one text searched for amounts (a screen label, a task)

_CURRENCIES: dict[str, str] = {
    "¥": "CNY", "元": "CNY", "块": "CNY", "块钱": "CNY", "yuan": "CNY", "rmb": "CNY",
    "cny": "CNY", "人民币": "CNY",
    "$": "USD", "us$": "USD", "usd": "USD", "dollar": "USD", "dollars": "USD", "美元": "USD",
    "€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR", "欧元": "EUR",
    "£": "GBP", "gbp": "GBP", "pound": "GBP", "pounds": "GBP", "英镑": "GBP",
    "jp¥": "JPY", "jpy": "JPY", "yen": "JPY", "円": "JPY", "日元": "JPY",
}
SIGNS = {"CNY": "¥", "USD": "$", "EUR": "€", "GBP": "£"}

_PREFIX = r"us\$|jp¥|(?<![a-z])(?:rmb|cny|usd|eur|gbp|jpy)|人民币|[¥$€£]"
_SUFFIX = (r"(?:块钱|元|块|円|美元|欧元|英镑|日元|[€£]|(?:yuan|rmb|cny|usd|eur|euros?|dollars?|"
           r"pounds?|yen)(?![a-z]))")
_DIGITS = r"\d[\d,.'\u00a0\u202f\u2009]*\d|\d"
_ZH_DIGITS = "零一二两三四五六七八九"
_ZH_VALUES = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
              "八": 8, "九": 9}
_ZH = rf"[{_ZH_DIGITS}十百千万]+"
AMOUNT = (rf"(?:(?P<pre>{_PREFIX})\s?)?(?:(?P<num>{_DIGITS})(?:\s?(?P<post>{_SUFFIX}))?"
          rf"|(?P<zh>{_ZH})(?P<zhpost>元|块钱|块))")
_AMOUNT_RE = re.compile(AMOUNT, re.IGNORECASE)
_SPACES = "\u00a0\u202f\u2009"


@dataclass(frozen=True)
class Money:
    """An amount and its currency (ISO code: CNY, USD, EUR, GBP, JPY; ``None``: not said)."""

    value: Decimal
    currency: str | None = None

    def __str__(self) -> str:
        number = f"{self.value:,f}"  # as written: ¥1,079.00 stays ¥1,079.00, 100 stays 100
        sign = SIGNS.get(self.currency or "")
        if sign:
            return f"{sign}{number}"
        return f"{number} {self.currency}" if self.currency else number


@dataclass(frozen=True)
class Limit:
    """The most a payment may be: ``amount`` itself included (``inclusive``) or not.
    ``amount`` ``None`` is a limit the user wrote but nobody can read: it admits nothing."""

    amount: Money | None
    inclusive: bool = True

    def admits(self, paid: Money) -> bool:
        """Whether paying ``paid`` keeps within this limit (same currency when the limit
        names one; a limit without a currency compares the number alone)."""
        if self.amount is None:
            return False
        if self.amount.currency is not None and paid.currency != self.amount.currency:
            return False
        if self.inclusive:
            return paid.value <= self.amount.value
        return paid.value < self.amount.value

    def __str__(self) -> str:
        if self.amount is None:
            return "a limit that could not be read"
        return f"{'at most' if self.inclusive else 'under'} {self.amount}"


UNREADABLE = Limit(None)


def _plain(text: str) -> str:
    """Full-width forms folded (``￥１００`` → ``¥100``), the narrow spaces kept (NFKC would
    turn them into plain spaces, which never group digits here)."""
    text = text[:MAX_TEXT]
    return "".join(ch if ch in _SPACES else unicodedata.normalize("NFKC", ch) for ch in text)


def number(raw: str) -> Decimal | None:
    """The value of a written number (``1,079.00``, ``1.079,00``, ``12,50``), or ``None``
    when its separators do not group thousands the way people write them."""
    seps = [ch for ch in raw if not ch.isdigit()]
    if not seps:
        return Decimal(raw)
    last = seps[-1]
    head, _, tail = raw.rpartition(last)
    decimal = last in ".," and (len(set(seps)) > 1 or (
        seps.count(last) == 1 and (len(tail) != 3 or head == "0")))
    whole, fraction = (head, tail) if decimal else (raw, "")
    groups = re.split(r"[^\d]", whole)
    if len({ch for ch in whole if not ch.isdigit()}) > 1 or not (
            1 <= len(groups[0]) <= 3 or len(groups) == 1) or any(
            len(g) != 3 for g in groups[1:]):
        return None
    return Decimal("".join(groups) + (f".{fraction}" if fraction else ""))


def zh_number(text: str) -> int | None:
    """The value of Chinese numerals ("一百" 100, "两千五百" 2500, "十五" 15, "三万" 30000)."""
    total, section, digit = 0, 0, None
    units = {"十": 10, "百": 100, "千": 1000}
    for ch in text:
        if ch in _ZH_DIGITS:
            digit = _ZH_VALUES[ch]
        elif ch in units:
            section += (1 if digit is None else digit) * units[ch]
            digit = None
        elif ch == "万":
            total += (section + (digit or 0)) * 10_000
            section, digit = 0, None
        else:
            return None
    return total + section + (digit or 0)


def _currency(pre: str | None, post: str | None) -> str | None:
    said = {_CURRENCIES[w.lower()] for w in (pre, post) if w}
    return said.pop() if len(said) == 1 else None


def amounts_in(text: str) -> list[Money]:
    """Every amount written in ``text``, in order (bare numbers too, with no currency)."""
    out: list[Money] = []
    for m in _AMOUNT_RE.finditer(_plain(text)):
        if m["zh"]:
            value = zh_number(m["zh"])
            if value is not None:
                out.append(Money(Decimal(value), _currency(m["pre"], m["zhpost"])))
            continue
        found = number(m["num"])
        if found is not None:
            out.append(Money(found, _currency(m["pre"], m["post"])))
    return out


def priced(text: str) -> list[Money]:
    """The amounts in ``text`` that carry a currency: what a screen says costs money (a
    bare number on a screen may be a count, a model number or a date)."""
    return [m for m in amounts_in(text) if m.currency is not None]


def parse_money(text: str) -> Money | None:
    """``text`` read as exactly one amount ("¥1,079.00", "100", "1.079,00 €"), else ``None``."""
    m = _AMOUNT_RE.fullmatch(_plain(text).strip())
    if m is None:
        return None
    found = amounts_in(m[0])
    return found[0] if len(found) == 1 else None


_OR_LESS_EN = (r"up\s+to|at\s+most|no\s+more\s+than|not\s+more\s+than|a\s+maximum\s+of|"
               r"maximum(?:\s+of)?|max\.?|not\s+exceeding|<=|≤")
_STRICT_EN = r"under|below|less\s+than|<"
_OR_LESS_ZH = r"最多|至多|最高|不超过|不多于|不高于|上限"
_STRICT_ZH = r"少于|低于|不到|不足"
_SPEND = r"(?:\s*(?:付款|支付|付|花|pay|spend|spending|paying|of))?\s*"
_LIMIT_RE = re.compile(
    rf"(?<![a-z])(?:(?P<incl>{_OR_LESS_EN}|{_OR_LESS_ZH})|(?P<strict>{_STRICT_EN}|{_STRICT_ZH}))"
    rf"{_SPEND}(?P<amount>{AMOUNT.replace('?P<', '?P<a_')})"
    rf"|(?P<within>{AMOUNT.replace('?P<', '?P<w_')})\s*(?:以内|之内|以下|or\s+less)",
    re.IGNORECASE)
# A limit's words near something that looks like money: a limit was meant, even when its
# amount cannot be read ("at most one hundred dollars").
_MEANT_RE = re.compile(
    rf"(?<![a-z])(?:{_OR_LESS_EN}|{_STRICT_EN}|{_OR_LESS_ZH}|{_STRICT_ZH})[^.;。；]{{0,40}}?"
    r"(?:\d|[¥$€£元块一二两三四五六七八九十百千万]|\b(?:yuan|rmb|dollars?|euros?|pounds?|"
    r"one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|hundred|"
    r"thousand)\b)|以内|之内", re.IGNORECASE)


def parse_limit(text: str) -> Limit | None:
    """The first spending limit stated in ``text`` by a limit's words: "up to ¥100", "at
    most 1 yuan", "under $5", "最多付100元", "不超过100元", "100元以内" — :data:`UNREADABLE`
    when such words sit next to an amount this parser cannot read; ``None`` when no limit
    is stated (a price alone, "the ¥50 cable", is none)."""
    found = _limit_words(_plain(text))
    return found[0] if found is not None else None


def split_limit(text: str) -> tuple[Limit | None, str]:
    """:func:`parse_limit`, and ``text`` without the words that stated the limit (what is
    left names the target: "up to ¥100 in Shop" → ``" in Shop"``). Here, right after a
    permission's verb, an amount with a currency but no limit words ("you may pay ¥100")
    is a limit of that much too."""
    plain = _plain(text)
    found = _limit_words(plain)
    if found is not None:
        limit, start, end = found
        return limit, plain[:start] + plain[end:]
    for bare in _AMOUNT_RE.finditer(plain):
        money = amounts_in(bare[0])
        if money and money[0].currency is not None:
            return Limit(money[0]), plain[:bare.start()] + plain[bare.end():]
    return None, plain


def _limit_words(plain: str) -> tuple[Limit, int, int] | None:
    """The limit a limit's words state in ``plain`` and the span to cut out of it (from
    the words of an unreadable one to the end: what follows them names no target)."""
    m = _LIMIT_RE.search(plain)
    found = amounts_in(m["amount"] or m["within"]) if m is not None else []
    if m is not None and len(found) == 1:
        return Limit(found[0], inclusive=m["strict"] is None), m.start(), m.end()
    meant = _MEANT_RE.search(plain)
    return (UNREADABLE, meant.start(), len(plain)) if meant is not None else None


__all__ = ["AMOUNT", "UNREADABLE", "Limit", "Money", "amounts_in", "number", "parse_limit",
           "parse_money", "priced", "split_limit",
           "zh_number"]
