"""Numbers as written: digit runs with grouping separators and a decimal mark, Chinese
numerals and units (十 百 千 万 亿) — the arithmetic under :mod:`omg_agent.guards.amounts`,
which finds amounts in text and says which cannot be read.

A number :func:`number` cannot read is ``None``, never a smaller number. Pure functions.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal

# every space but the plain one (which also parts words and numbers) only ever groups digits
GROUP_SPACES = "\u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u202f\u205f\u3000"
UNITS = "十百千万萬亿億"
ZH_DIGITS = "零一二两三四五六七八九"
_ZH_VALUES = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
              "八": 8, "九": 9}


_SEP_KINDS = {",": ",", ".": ".", "'": "'", "’": "'", "٬": "٬", "٫": "٫", " ": " ",
              **{s: " " for s in GROUP_SPACES}}


def number(raw: str, *, lowest: bool = False) -> Decimal | None:
    """The value of a written number (``1,079.00``, ``1.079,00``, ``1 079,00``, ``12,50``),
    or ``None`` when it cannot be read: a character between its digits that is no
    separator, or separators that do not group thousands the way people write them.
    ``lowest``: a plain space between digits may also part two numbers — read the first."""
    parts = re.split(r"([^0-9])", _ascii(raw))
    runs, seps = parts[0::2], parts[1::2]
    if len(runs[0]) > 1 and runs[0][0] == "0":
        return None  # "079,00": money is never written so — a part of a number
    if not seps:
        return Decimal(runs[0]) if runs[0] else None
    if "" in runs or any(s not in _SEP_KINDS for s in seps):
        return None
    kinds = [_SEP_KINDS[s] for s in seps]
    last = kinds[-1]
    decimal = last == "٫" or (last in ".," and (len(set(kinds)) > 1 or (
        len(kinds) == 1 and (len(runs[-1]) != 3 or runs[0] == "0"))))
    whole, grouping = (runs[:-1], kinds[:-1]) if decimal else (runs, kinds)
    if len(set(grouping)) > 1 or "٫" in grouping or not _grouped(whole):
        return None
    value = Decimal("".join(whole) + (f".{runs[-1]}" if decimal else ""))
    if lowest and " " in seps and not decimal:  # "1 000,00" and "1 000 €" are one number
        return min(value, Decimal(runs[0]))
    return value


def _grouped(runs: list[str]) -> bool:
    """Whether digit runs are thousands groups (``1,079,000``) or Indian ones (``1,07,900``)."""
    first, rest = runs[0], runs[1:]
    if not rest:
        return True
    if 1 <= len(first) <= 3 and all(len(r) == 3 for r in rest):
        return True
    return (len(rest) >= 2 and 1 <= len(first) <= 2 and len(rest[-1]) == 3
            and all(len(r) == 2 for r in rest[:-1]))


def zh_number(text: str) -> int | None:
    """The value of Chinese numerals ("一百" 100, "两千五百" 2500, "十五" 15, "三万" 30000,
    "两亿" 200000000)."""
    tokens: list[Decimal | str] = []
    for ch in text:
        if ch in ZH_DIGITS:
            tokens.append(Decimal(_ZH_VALUES[ch]))
        elif ch in UNITS:
            tokens.append(ch)
        else:
            return None
    value = counted(tokens, colloquial=False)
    return int(value) if value is not None else None


_UNIT_VALUES = {"十": 10, "百": 100, "千": 1000, "万": 10_000, "萬": 10_000,
                "亿": 100_000_000, "億": 100_000_000}


def counted(tokens: list[Decimal | str], *, colloquial: bool) -> Decimal | None:
    """Numbers and units (十 百 千 万 亿) in order, added up as Chinese counts them:
    1 万 2 千 is 12000, 3 亿 5 千 万 is 350000000. ``colloquial``: a last digit right after
    a unit counts in the next lower unit (1万2 is 12000, the higher reading)."""
    total, section, digit, unit = Decimal(0), Decimal(0), None, 0
    for token in tokens:
        if isinstance(token, Decimal):
            digit = token
            continue
        unit = _UNIT_VALUES[token]
        if unit < 10_000:
            section += (1 if digit is None else digit) * unit
        elif unit == 10_000:
            total += (section + (digit or 0) or Decimal(1)) * unit
            section = Decimal(0)
        else:
            total = (total + section + (digit or 0) or Decimal(1)) * unit
            section = Decimal(0)
        digit = None
    if (colloquial and digit is not None and digit < 10 and unit >= 100 and len(tokens) > 1
            and isinstance(tokens[-2], str)):
        digit *= unit // 10
    value = total + section + (digit or 0)
    return value.quantize(Decimal(1)) if value == value.to_integral_value() else value



def _ascii(raw: str) -> str:
    """Every script's decimal digits as ASCII ones (``١٠٧٩`` → ``1079``)."""
    return "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in raw)


__all__ = ["GROUP_SPACES", "UNITS", "ZH_DIGITS", "counted", "number", "zh_number"]
