"""Amounts of money as people write them and screens show them: the one parser the gate uses.

A user's limit ("up to ¥100", "at most 1 yuan", "最多付100元", ``--allow payment:<=100``) and
what a checkout shows ("Pay ¥1,079.00", "Total: 1.079,00 €", "¥1.2万") are read by the same
rules:

* digits are any script's decimal digits (``１０７９``, ``١٠٧٩``, ``१०७९``); a number is digit
  runs joined by grouping separators (``,`` ``.`` ``'`` ``’`` ``٬``, a plain space before
  exactly three digits, any other space: no-break, narrow, thin, ideographic) and at most
  one decimal mark (``.`` ``,`` ``٫``): when two kinds appear the last one is the decimal
  mark (``1,079.00``, ``1.079,00`` and ``1 079,00`` are all 1079); a single separator
  before exactly three digits groups thousands (``1,079``, ``1.079``: no currency here has
  three decimals, and the higher reading is the safe one on a screen), otherwise it is the
  decimal mark (``12,50``);
  Indian grouping (``1,07,900``) counts;
* **anything else between digits** — an unknown separator (``‚`` U+201A), a zero-width or
  joiner character, a letter, digits grouped badly (``1,07,9``, a date ``1.2.2024``) — makes
  the amount *unreadable*: :attr:`Money.readable` is false, its value is infinite, and no
  limit admits it. An amount is never read as a smaller number than it shows;
* multipliers: 十 百 千 万 亿 (``¥1.2万`` is 12000, ``1万2千元`` 12000), ``k`` ``m``/``mn``
  ``b``/``bn``, "thousand", "million", "billion"; Chinese numerals before 元/块 ("一百元");
* the currency comes from a sign or word before (¥ ￥ $ US$ HK$ € £ ₩ ₹ RMB CNY USD EUR CHF
  人民币, any currency sign) or after the number (元 块 円 원 美元 欧元 yuan dollars euros €),
  with or without spaces; ``None`` when neither is given. Two that disagree (``$100元``)
  make the amount unreadable.

A :class:`Limit` is what the user allows per payment: inclusive ("up to", "at most", "no
more than", "最多", "不超过", "以内", ``<=``) or strict ("under", "below", "less than", "少于",
``<``). A limit takes the *lower* reading where a screen takes the higher one (``¥100 200``
is ¥100,200 on a screen, a limit of ¥100; ``1 000 €`` is €1,000 in both). Pure functions,
no I/O; the gate (:mod:`omg_agent.guards.sensitive`, :mod:`omg_agent.guards.payable`)
decides with them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal
from typing import NamedTuple

from omg_agent.guards.numerals import (
    GROUP_SPACES,
    UNITS,
    ZH_DIGITS,
    counted,
    number,
    zh_number,
)

MAX_TEXT = 10_000  # characters of one text searched for amounts (a screen label, a task)
UNKNOWN = Decimal("Infinity")  # the value of an amount that cannot be read: above any limit

_CURRENCIES: dict[str, str] = {
    "¥": "CNY", "元": "CNY", "块": "CNY", "块钱": "CNY", "圆": "CNY", "yuan": "CNY",
    "rmb": "CNY", "cny": "CNY", "人民币": "CNY",
    "$": "USD", "us$": "USD", "usd": "USD", "dollar": "USD", "dollars": "USD", "美元": "USD",
    "€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR", "欧元": "EUR",
    "£": "GBP", "gbp": "GBP", "pound": "GBP", "pounds": "GBP", "英镑": "GBP",
    "jp¥": "JPY", "jpy": "JPY", "yen": "JPY", "円": "JPY", "日元": "JPY",
    "₩": "KRW", "krw": "KRW", "won": "KRW", "원": "KRW", "韩元": "KRW",
    "₹": "INR", "inr": "INR", "rs": "INR", "rs.": "INR", "rupee": "INR", "rupees": "INR",
    "hk$": "HKD", "hkd": "HKD", "港元": "HKD", "港币": "HKD", "nt$": "TWD", "twd": "TWD",
    "a$": "AUD", "aud": "AUD", "c$": "CAD", "cad": "CAD", "s$": "SGD", "sgd": "SGD",
    "chf": "CHF", "₽": "RUB", "rub": "RUB",
}
SIGNS = {"CNY": "¥", "USD": "$", "EUR": "€", "GBP": "£", "KRW": "₩", "INR": "₹"}

# every currency sign (Unicode category Sc), and what hides between digits
_SIGN_CHARS = "$¢£¤¥֏؋৲৳৻૱௹฿៛﷼" + "".join(chr(c) for c in range(0x20A0, 0x20C1))
_SIGN = "[" + re.escape(_SIGN_CHARS) + "]"
_HIDDEN = "\u2063"  # every invisible character (zero-width, joiner, format, filler) reads as this
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")  # blank "letters"
_PREFIX = (r"(?<![a-z])(?:us\$|hk\$|nt\$|a\$|c\$|s\$|jp¥|rs\.?(?![a-z])|"
           r"(?:rmb|cny|usd|eur|gbp|jpy|krw|inr|hkd|twd|chf|aud|cad|sgd|rub)(?![a-z]))"
           rf"|人民币|{_SIGN}")
_SUFFIX = (r"块钱|韩元|港元|港币|美元|欧元|英镑|日元|元|块|円|圆|원|"
           r"(?:yuan|rmb|cny|usd|eur|euros?|dollars?|pounds?|yen|won|rupees?|chf|hkd|jpy|krw|"
           rf"inr|gbp)(?![a-z])|{_SIGN}(?![0-9])")  # "1 ¥4,999": the sign is the next one's
# Between two digit runs: a plain space before exactly three digits (grouping, or two
# numbers), else up to three of anything but a plain space, a bracket, a currency sign or a
# unit (a tab, any line break or another space too) — which joins them into one number that
# :func:`number` reads or finds unreadable — or any run of hidden characters (spaces around
# them included).
_JOIN = (rf"(?: (?=[0-9]{{3}}(?![0-9]))|(?:[^\s()\[\]（）【】{re.escape(_SIGN_CHARS)}"
         rf"{UNITS}元块円圆원]|[{GROUP_SPACES}\t\n\v\f\r\x1c-\x1f\x85\u2028\u2029]){{1,3}}|"
         rf"(?:[^\S\n]*{_HIDDEN})+[^\S\n]*)")
_SPAN = rf"[0-9]+(?:{_JOIN}[0-9]+)*"
_GAP = rf"(?:[^\S\n]|{_HIDDEN}){{0,8}}"
_MULTS = {"k": 3, "thousand": 3, "m": 6, "mn": 6, "million": 6, "b": 9, "bn": 9,
          "billion": 9}
_MULT = r"\s?(?:thousand|million|billion|mn|bn|k|m|b)(?![a-z0-9])"
_ZH = rf"[{ZH_DIGITS}十百千万亿]+"
AMOUNT = (rf"(?:(?P<pre>{_PREFIX})(?P<pgap>{_GAP})[-−+]?)?"
          rf"(?:(?P<num>{_SPAN}(?:\s?[{UNITS}]+(?:{_SPAN})?)*)(?P<mult>{_MULT})?"
          rf"(?:(?P<sgap>{_GAP})(?P<post>{_SUFFIX}))?|(?P<zh>{_ZH})(?P<zhpost>元|块钱|块))")
_AMOUNT_RE = re.compile(AMOUNT, re.IGNORECASE)
_HIDDEN_NEXT = re.compile(rf"{_HIDDEN}+[^\s{_HIDDEN}]")
# A number glued to more digits by what cannot join them ("¥1$,079", "¥1元,079", "¥1 ,079",
# "¥1,0 79.00", "10 79,00 €"): the amount is unreadable, never its first part.
_SEPS = "[.,'’]"
_BRACKET = r"[()\[\]（）【】]"
_GLUE = rf"{_SEPS}?(?:{_SIGN}|[{UNITS}元块円圆원])?{_SEPS}?"
_GLUED_AFTER = re.compile(rf"{_GLUE}[0-9]| ?{_SEPS} ?[0-9]{{3}}(?![0-9])| [0-9]+{_SEPS}[0-9]|"
                          rf"{_SEPS}?{_BRACKET}{_SEPS}[0-9]|{_SEPS}{_BRACKET}[0-9]|"
                          rf"{_BRACKET}[0-9]+{_SEPS}[0-9]")
# a multiplier or unit cut off by a stray character ("¥1.2!万", "$1.2#k", "¥1 .2万")
_CUT_UNIT = re.compile(rf"(?: ?{_SEPS} ?[0-9]+)?[^\s0-9]{{0,2}}\s?(?:[{UNITS}]|"
                       r"(?:thousand|million|billion|mn|bn|k|m|b)(?![a-z0-9]))", re.IGNORECASE)
_GLUED_BEFORE = re.compile(rf"[0-9](?:{_GLUE}| ?{_SEPS} ?|{_SEPS}?{_BRACKET}{_SEPS}?)$")
# a price with a space inside its digits ("¥1,0 79") or a count it is multiplied by
# ("¥1,079 × 2", "2 × ¥1,079": what is paid is the product, never the unit price)
_TIMES = r"\s?[×xX*✕✖]\s?"
_PRICE_AFTER = re.compile(rf"(?<=[0-9]) [0-9]|{_TIMES}[0-9]")
_PRICE_BEFORE = re.compile(rf"[0-9]{_TIMES}$")


@dataclass(frozen=True)
class Money:
    """An amount and its currency (ISO code: CNY, USD, EUR, …, or the sign itself for one
    not listed; ``None``: not said). An amount that cannot be read has the value
    :data:`UNKNOWN` (above every limit) and keeps how it was ``written``."""

    value: Decimal
    currency: str | None = None
    written: str = ""

    @property
    def readable(self) -> bool:
        return self.value.is_finite()

    def __str__(self) -> str:
        if not self.readable:
            return f'an amount that cannot be read ("{self.written}")'
        number = f"{self.value:,f}"  # as written: ¥1,079.00 stays ¥1,079.00, 100 stays 100
        sign = SIGNS.get(self.currency or "")
        if sign:
            return f"{sign}{number}"
        return f"{number} {self.currency}" if self.currency else number


def unreadable(written: str, currency: str | None = None) -> Money:
    """An amount shown as ``written`` that cannot be read: above any limit."""
    shown = "".join(c if c.isprintable() and c not in GROUP_SPACES else f"\\u{ord(c):04x}"
                    for c in written)
    return Money(UNKNOWN, currency, shown)


@dataclass(frozen=True)
class Limit:
    """The most a payment may be: ``amount`` itself included (``inclusive``) or not.
    ``amount`` ``None`` is a limit the user wrote but nobody can read: it admits nothing."""

    amount: Money | None
    inclusive: bool = True

    def admits(self, paid: Money) -> bool:
        """Whether paying ``paid`` keeps within this limit (same currency when the limit
        names one; a limit without a currency compares the number alone). An amount that
        cannot be read is admitted by no limit."""
        if self.amount is None or not paid.readable:
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
    """``text`` as the parser reads it, one character for one (positions stay those of
    ``text``): full-width forms folded (``￥１００`` → ``¥100``), every script's digits as
    ASCII, invisible characters as one mark (a combining mark on a letter stays), the
    grouping spaces kept (NFKC would make them plain spaces)."""
    out: list[str] = []
    on_letter = False
    for ch in text[:MAX_TEXT]:
        cat = unicodedata.category(ch)
        if cat == "Mn" and on_letter:
            out.append(ch)
            continue
        on_letter = cat[0] == "L"
        if ch in GROUP_SPACES:
            out.append(ch)
        elif ch in _FILLERS or cat in ("Cf", "Mn", "Me", "Co", "Cn", "Cs") or (
                cat == "Cc" and ch not in "\t\n\r\x0b\x0c"):
            out.append(_HIDDEN)
        elif cat == "Nd":
            out.append(str(unicodedata.decimal(ch)))
        else:
            folded = unicodedata.normalize("NFKC", ch)
            out.append(folded if len(folded) == 1 else ch)
    return "".join(out)


class Found(NamedTuple):
    """An amount and where it is written (``text[start:end]``)."""

    money: Money
    start: int
    end: int


def _currency(pre: str | None, post: str | None) -> tuple[str | None, bool]:
    """The currency said before and after a number, and whether the two agree."""
    said = {_CURRENCIES.get(w.lower(), w) for w in (pre, post) if w}
    if len(said) > 1:
        return _CURRENCIES.get((pre or "").lower(), pre), False
    return (said.pop() if said else None), True


def _value(num: str, lowest: bool) -> Decimal | None:
    """A number with its units (``1.2万``, ``1万2千``, ``3千万``), or ``None``: unreadable."""
    pieces = [p.strip() for p in re.split(f"([{UNITS}]+)", num) if p.strip()]
    if len(pieces) == 1:
        return number(num, lowest=lowest)
    if len(pieces) > 2 and any(not p.isdigit() and p[0] not in UNITS for p in pieces):
        return None  # separators only in a number before one run of units: 1.2万, 1,200万
    tokens: list[Decimal | str] = []
    for piece in pieces:
        if piece[0] in UNITS:
            tokens += list(piece)
        elif (found := number(piece, lowest=lowest)) is None:
            return None
        else:
            tokens.append(found)
    return counted(tokens, colloquial=not lowest)


def _money(m: re.Match[str], text: str, lowest: bool) -> Money:
    written = text[m.start():m.end()]
    if m["zh"]:
        currency, agree = _currency(m["pre"], m["zhpost"])
        counted = zh_number(m["zh"])
        if counted is None or not agree:
            return unreadable(written, currency)
        return Money(Decimal(counted), currency)
    post = m["post"] if not (m["pre"] and _is_sign(m["post"])) else None
    currency, agree = _currency(m["pre"], post)
    value = _value(m["num"], lowest and post is None)
    hidden = _HIDDEN in (m["pgap"] or "") or (post is not None and _HIDDEN in m["sgap"])
    if value is None or hidden or not agree:
        return unreadable(written, currency)
    if m["mult"]:
        value = value.scaleb(_MULTS[m["mult"].strip().lower()])
    return Money(value, currency)


def _is_sign(word: str | None) -> bool:
    return word is not None and len(word) == 1 and re.fullmatch(_SIGN, word) is not None


def _glued(plain: str, m: re.Match[str]) -> bool:
    head = plain[max(0, m.start() - 4):m.start()]
    if m["zh"] and re.search(r"[0-9]\S{0,2}\s?$", head):  # "1.2!万元": the 万 is cut off
        return True
    return bool(_GLUED_AFTER.match(plain, m.end()) or _CUT_UNIT.match(plain, m.end())
                or _GLUED_BEFORE.search(head) or (
        m["post"] and not m["pre"] and head.endswith(" ") and head[-2:-1].isdigit()))


def amount_spans(text: str, *, lowest: bool = False) -> list[Found]:
    """Every amount written in ``text`` and where, in order (bare numbers too, with no
    currency; unreadable ones as :func:`unreadable`). A currency sign after one number
    and before the next (``5 €10``) is read with both. ``lowest``: take the lower of two
    readings (for a limit the user wrote)."""
    plain, out, pos = _plain(text), [], 0
    while (m := _AMOUNT_RE.search(plain, pos)) is not None:
        money = _money(m, text, lowest)
        priced_glued = money.currency is not None and bool(
            _PRICE_AFTER.match(plain, m.end()) or _PRICE_BEFORE.search(plain, 0, m.start()))
        if money.readable and (_HIDDEN_NEXT.match(plain, m.end()) or _glued(plain, m)
                               or priced_glued):
            money = unreadable(text[m.start():m.end() + 2], money.currency)  # "¥1.2⁠万"
        out.append(Found(money, m.start(), m.end()))
        pos = m.start("post") if _is_sign(m["post"]) else m.end()
    return out


def amounts_in(text: str, *, lowest: bool = False) -> list[Money]:
    """Every amount written in ``text``, in order (see :func:`amount_spans`)."""
    return [f.money for f in amount_spans(text, lowest=lowest)]


def priced(text: str) -> list[Money]:
    """The amounts in ``text`` that carry a currency: what a screen says costs money (a
    bare number on a screen may be a count, a model number or a date)."""
    return [m for m in amounts_in(text) if m.currency is not None]


def parse_money(text: str) -> Money | None:
    """``text`` read as exactly one readable amount ("¥1,079.00", "100", "1.079,00 €"),
    else ``None``."""
    m = _AMOUNT_RE.fullmatch(_plain(text).strip())
    if m is None:
        return None
    found = amounts_in(m[0], lowest=True)
    return found[0] if len(found) == 1 and found[0].readable else None


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
    for bare in amount_spans(plain, lowest=True):
        if bare.money.currency is not None:
            limit = Limit(bare.money) if bare.money.readable else UNREADABLE
            return limit, plain[:bare.start] + plain[bare.end:]
    return None, plain


def _limit_words(plain: str) -> tuple[Limit, int, int] | None:
    """The limit a limit's words state in ``plain`` and the span to cut out of it (from
    the words of an unreadable one to the end: what follows them names no target)."""
    m = _LIMIT_RE.search(plain)
    found = amounts_in(m["amount"] or m["within"], lowest=True) if m is not None else []
    if m is not None and len(found) == 1 and found[0].readable:
        return Limit(found[0], inclusive=m["strict"] is None), m.start(), m.end()
    meant = _MEANT_RE.search(plain)
    return (UNREADABLE, meant.start(), len(plain)) if meant is not None else None


__all__ = ["AMOUNT", "UNKNOWN", "UNREADABLE", "Found", "Limit", "Money", "amount_spans",
           "amounts_in", "number", "parse_limit", "parse_money", "priced", "split_limit",
           "unreadable", "zh_number"]
