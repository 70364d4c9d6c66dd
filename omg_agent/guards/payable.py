"""What a payment costs as its screen shows it: the control's own amount and the screen's total.

The gate (:mod:`omg_agent.guards.sensitive`) checks a user's limit against every amount this
module reads for a payment, so the highest one decides:

* the control's own amounts — its label, its description, the texts inside it, what OCR
  read where it is touched ("Pay ¥1,079.00");
* the screen's **payable total**: the amounts of rows labelled payable / total / amount due
  / to pay / 合计 / 实付 / 应付 / 总计 ("Amount payable ¥1,079.00", "Total" beside
  "¥1,079.00"), never an amount labelled a saving, a discount, a fee, a tax or a part of
  the total ("You saved ¥50 in total", "已省¥50", "incl. ¥5 delivery", "Subtotal"): in
  "Total (incl. ¥5 delivery): ¥ 1,079.00" the total is ¥1,079.00.

A Pay control with no amount of its own ("Pay now") reads the screen's total; when neither
shows a readable amount there is nothing to keep a limit with and the gate asks. An amount
that cannot be read (:func:`~omg_agent.guards.amounts.unreadable`) is kept: no limit admits
it. Pure functions over an :class:`~omg_agent.core.observation.Observation`.
"""

from __future__ import annotations

import re

from omg_agent.core.observation import Observation, UIElement
from omg_agent.guards.amounts import Found, Money, amount_spans, priced
from omg_agent.perception.labels import cjk_part, latin_words

_TOTAL_EN = frozenset({"total", "due", "payable", "grandtotal"})
_TOTAL_EN_PAIRS = frozenset({("to", "pay"), ("you", "pay"), ("balance", "due")})
_TOTAL_ZH = ("合计", "总计", "总价", "总额", "实付", "应付", "共计", "金额", "待付", "需付",
             "待支付", "还需支付", "合計", "お支払")
# what labels an amount that is not the payable total (or only a part of it)
_PART_EN = frozenset({"save", "saved", "saving", "savings", "discount", "discounts", "coupon",
                      "coupons", "off", "promo", "promotion", "voucher", "cashback", "rebate",
                      "reward", "rewards", "delivery", "shipping", "postage", "fee", "fees",
                      "tax", "taxes", "vat", "gst", "tip", "incl", "including", "included",
                      "excl", "excluding", "subtotal", "was", "original", "deposit"})
_PART_ZH = ("省", "优惠", "立减", "减", "折扣", "券", "抵", "运费", "配送费", "邮费", "快递费",
            "服务费", "手续费", "税", "含", "其中", "原价", "红包", "小计", "返")
# "incl. VAT" / "含税" qualify a total without being an amount of their own
_QUALIFIER = re.compile(
    r"\b(?:incl|excl|inc|including|excluding|plus)\b\.?\s*(?:of\s+)?(?:all\s+)?"
    r"(?:vat|gst|tax(?:es)?|delivery|shipping|fees?)\b|(?:不?含|包含)(?:税|运费|服务费)",
    re.IGNORECASE)
_BREAK = re.compile(r"[:：,，;；|·•/\n()（）\[\]【】]")
_BRACKETS = {"(": ")", "（": "）", "[": "]", "【": "】"}
_BRACKETED = re.compile(r"[(（\[【][^)）\]】]*[)）\]】]")


def payment_amounts(e: UIElement | None, obs: Observation,
                    ocr_text: str | None = None) -> tuple[Money, ...]:
    """The amounts (with a currency) a payment on ``e`` shows, highest first (unreadable
    ones first of all): the control's own texts and the texts inside it, what OCR read
    there (only if it is on this screen: an anchor's words are the model's, not the
    screen's), and the screen's payable totals (:func:`payable_totals`)."""
    texts: list[str] = []
    if e is not None:
        texts += _texts(e)
        texts += [t for x in obs.elements if x is not e and not x.editable
                  and e.bounds.contains(x.center) for t in _texts(x)]
    if ocr_text and any(b.text == ocr_text for b in obs.ocr or ()):
        texts.append(ocr_text)
    found = [m for t in texts for m in priced(t)] + payable_totals(obs)
    return tuple(sorted(dict.fromkeys(found), key=lambda m: m.value, reverse=True))


def _texts(e: UIElement) -> list[str]:
    return [t for t in (e.text, e.desc, *e.extra_texts) if t]


def total_rows(obs: Observation) -> list[str]:
    """The texts of the screen's total rows ("Total: ¥1,079.00", "合计 ¥99"), with what sits
    on the same row when the amount is a separate text ("Total" | "¥1,079.00")."""
    pieces = [(" ".join(_texts(e)), e.bounds) for e in obs.elements if not e.editable]
    pieces += [(b.text, b.bounds) for b in obs.ocr or ()]
    out: list[str] = []
    for text, box in pieces:
        if not text or not is_total(text):
            continue
        out.append(text)
        # the amount beside its label ("Total (incl. ¥5 delivery):" | "¥ 1,079.00"), unless
        # the label is a saving's or a fee's ("You saved in total" | "¥50")
        if not row_totals(text) and not _is_part(_BRACKETED.sub(" ", text)):
            out += [t for t, other in pieces if t and t != text
                    and box.top <= other.center.y <= box.bottom]
    return out


def payable_totals(obs: Observation) -> list[Money]:
    """The amounts the screen labels as what will be paid (see the module docstring)."""
    return [m for text in total_rows(obs) for m in row_totals(text)]


def is_total(text: str) -> bool:
    """Whether ``text`` names a payable total anywhere ("Amount payable", "Total due",
    "实付款", "You saved ¥50 in total" too: :func:`row_totals` then reads no total in it)."""
    words = latin_words(text)
    pairs = set(zip(words, words[1:], strict=False))
    return bool(_TOTAL_EN.intersection(words) or pairs.intersection(_TOTAL_EN_PAIRS)
                or any(z in cjk_part(text) for z in _TOTAL_ZH))


def row_totals(text: str) -> list[Money]:
    """The amounts of a total row that are a total, not a saving, fee or part: each amount
    is labelled by the words before it (back to the last ``:`` ``,`` ``·`` … or the amount
    before it), by the words right after it when a break or the end of its bracket follows,
    and — inside brackets — by the words before the bracket."""
    rows = _Brackets(text)
    spans = amount_spans(text)
    return [f.money for f in spans if not any(_is_part(x) for x in rows.labels(f, spans))]


class _Brackets:
    """Where the brackets of a row are: each character's innermost open bracket (its
    opening position; -1 outside all) and where each bracket closes."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.inside: list[int] = []
        self.close: dict[int, int] = {}
        stack: list[tuple[int, str]] = []
        for i, ch in enumerate(text):
            if stack and ch == stack[-1][1]:
                self.close[stack.pop()[0]] = i
            self.inside.append(stack[-1][0] if stack else -1)
            if ch in _BRACKETS:
                stack.append((i, _BRACKETS[ch]))
        for opened, _ in stack:
            self.close[opened] = len(text)

    def labels(self, found: Found, spans: list[Found]) -> list[str]:
        level = self.inside[found.start]
        same = [f for f in spans if self.inside[f.start] == level]
        k = same.index(found)
        first, last = (level + 1, self.close[level]) if level >= 0 else (0, len(self.text))
        before = self._flat(level, same[k - 1].end if k else first, found.start)
        after = self._flat(level, found.end, same[k + 1].start if k + 1 < len(same) else last)
        trailing = _BREAK.split(after)[0] if _BREAK.search(after) or k + 1 == len(same) else ""
        out = [_last_label(before), _QUALIFIER.sub(" ", trailing)]  # "¥1,079 incl. VAT"
        if level >= 0:  # inside brackets: the words before the bracket label it too
            outer = self.inside[level]
            head = max([f.end for f in spans if self.inside[f.start] == outer
                        and f.end <= level], default=outer + 1)
            out.append(_last_label(self._flat(outer, head, level)))
        return out

    def _flat(self, level: int, lo: int, hi: int) -> str:
        """``text[lo:hi]`` at ``level``, what is nested deeper read as a break."""
        return "".join(ch if self.inside[i] == level else "|"
                       for i, ch in enumerate(self.text[lo:hi], start=lo))


def _last_label(before: str) -> str:
    """The last piece of ``before`` (between breaks) that has words."""
    for piece in reversed(_BREAK.split(before)):
        if latin_words(piece) or cjk_part(piece):
            return piece
    return ""


def _is_part(label: str) -> bool:
    """Whether ``label`` names a saving, fee, tax or part of a total. "incl. VAT" and 含税
    qualify a total ("Total incl. VAT", 含税总价) but label a part on their own."""
    qualified = _QUALIFIER.sub(" ", label)
    if is_total(qualified):
        label = qualified
    return bool(_PART_EN.intersection(latin_words(label))
                or any(z in cjk_part(label) for z in _PART_ZH))


__all__ = ["is_total", "payable_totals", "payment_amounts", "row_totals",
           "total_rows"]
