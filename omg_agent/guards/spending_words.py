"""Spending limits as users state them in a task: the sentences, not the amounts.

"Do not spend more than 100 yuan", "never exceed ¥100", "the budget is ¥100", "anything
above ¥100 needs my ok", "at most / up to / under ¥50", "¥30 per item", "¥200 in total",
"最多 / 不超过 / 预算 / 以内 / 封顶 / 超过100元要问我": each is a :class:`StatedLimit` — the
:class:`~omg_agent.guards.amounts.Limit` (read by the one amount parser,
:mod:`omg_agent.guards.amounts`) and whether it bounds each payment ("per item", "每件") or
the run's total (everything else: :mod:`omg_agent.guards.spend_ledger`). Where such words
stand next to an amount the parser cannot read ("at most a hundred bucks"), the limit is
:data:`~omg_agent.guards.amounts.UNREADABLE`: it admits nothing. Pure functions; the
authorisation reader (:mod:`omg_agent.guards.authorisation`) decides what the limits grant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from omg_agent.guards.amounts import UNREADABLE, Limit, amounts_in, parse_limit

_NOT = (r"(?:do\s+not|don'?t|never|must\s+not|mustn'?t|should\s+not|shouldn'?t|will\s+not|"
        r"won'?t|cannot|can'?t|not\s+to|may\s+not|no\s+need\s+to)")
_OVER = (r"(?:more\s+than|over|above|beyond|in\s+excess\s+of|past|exceed(?:ing)?|go\s+over|"
         r"go\s+above|go\s+beyond)")
# (words that state a limit, inclusive?) — the amount follows them
_HEADS_EN: tuple[tuple[re.Pattern[str], bool], ...] = tuple(
    (re.compile(rx, re.IGNORECASE), inclusive) for rx, inclusive in (
        (_NOT + r"\s+(?:spend|pay|go|be|cost|charge)\w*\s+(?:a\s+total\s+of\s+|in\s+total\s+)?"
         + _OVER, True),
        (_NOT + r"\s+(?:exceed|go\s+over|go\s+above|go\s+beyond|surpass|top)\w*", True),
        (_NOT + r"\s+(?:buy|purchase|order|pay\s+for)\s+(?:anything|something|items?|stuff|"
         r"things)?\s*(?:that\s+costs?\s+|costing\s+|priced\s+)?" + _OVER, True),
        (r"\bnot\s+(?:to\s+)?exceed(?:ing)?", True),
        (r"\bbudget(?:\s+(?:limit|cap))?\s*(?:is|was|of|:|=|for\s+this\s+is|at)", True),
        (r"\b(?:spending|price|cost)\s+(?:limit|cap|ceiling)\s*(?:is|of|:|=|at)?", True),
        (r"\b(?:cap(?:ped)?|limit(?:ed)?)\s+(?:it\s+|spending\s+|the\s+total\s+)?(?:at|to)",
         True),
        (r"\bwithin\s+a\s+budget\s+of", True),
        (r"\b(?:keep|stay)\s+(?:it\s+|the\s+total\s+|spending\s+)?(?:under|below)", False),
        (r"\b(?:keep|stay)\s+(?:it\s+|the\s+total\s+|spending\s+)?(?:within|at\s+or\s+under)",
         True),
    ))
# words that state a limit only in a sentence about spending, before an amount with a currency
_GENERIC = re.compile(r"\b(?:within|cheaper\s+than|less\s+than|lower\s+than)\b", re.IGNORECASE)
_HEADS_ZH: tuple[tuple[re.Pattern[str], bool], ...] = tuple(
    (re.compile(rx), inclusive) for rx, inclusive in (
        (r"(?:别|不要|不能|不得|不可|不许|切勿|勿|千万别)(?:花|付|支付|消费|花费|买|购买)?(?:钱)?"
         r"(?:超过|超出|高于)", True),
        (r"预算(?:是|为|有|只有|在|:|：)?", True),
        (r"(?:最多|至多|顶多|最高)(?:只能|只|能|可以)?(?:花|付|支付|消费|花费)?", True),
        (r"封顶", True),
        (r"(?:总共|一共|总计|合计|加起来)(?:不超过|最多|不能超过|别超过)", True),
    ))
# "anything above ¥100 needs my ok", "ask me if it costs more than ¥100", "超过100元要问我"
_ASK = re.compile(r"\b(?:ask|ok|okay|approv\w*|confirm\w*|permission|check\s+with|consent)\b"
                  r"|问我|确认|同意|批准|请示", re.IGNORECASE)
_ABOVE = re.compile(r"\b(?:more\s+than|over|above|beyond|exceed(?:s|ing)?|greater\s+than|"
                    r"higher\s+than|costlier\s+than)|超过|高于|大于|多于", re.IGNORECASE)
_BEFORE_HEAD = re.compile(r"(?:以内|之内|以下|封顶|or\s+less|or\s+under|max(?:imum)?\b|"
                          r"\bin\s+total\b|\bin\s+all\b|\baltogether\b|\boverall\b|"
                          r"\btops?\b|\bat\s+the\s+most\b)",
                          re.IGNORECASE)
_EACH = re.compile(r"\b(?:per(?!\s+(?:day|week|month|year|hour|run|task))|each|apiece|a\s+piece|"
                   r"every(?!\s+(?:day|week|month|year)))\b|单件|每件|每个|每样|每单|每笔|单笔|"
                   r"单价|每次", re.IGNORECASE)
_SPENDING = re.compile(r"\b(?:pay|paying|paid|spend|spending|spent|cost|costs|costing|price|"
                       r"budget|buy|buying|purchase|order|checkout|exceed|total)\b|付|花|支付|预算|"
                       r"价格|购买|买|下单|消费", re.IGNORECASE)
_SENTENCE = re.compile(r"(?:[^.;!?\n。；！？]|\.(?=\d))+")
_CLAUSE = re.compile(r"(?:[^,，、]|,(?=\d{3}))+|(?<=\d),(?=\d)")
_MONEYISH = re.compile(r"\d|[¥$€£元块]|\b(?:yuan|rmb|dollars?|euros?|pounds?|bucks?|one|two|three|"
                       r"four|five|ten|twenty|thirty|fifty|hundred|thousand)\b|[一二两三四五六七八九十百千万]",
                       re.IGNORECASE)
REACH = 30  # characters after a limit's words where its amount must start


@dataclass(frozen=True)
class StatedLimit:
    """A limit the user stated, and whether it bounds each payment (``per_payment``: "per
    item", "each", "每件") rather than the run's total."""

    limit: Limit
    per_payment: bool = False


def stated_limits(text: str) -> list[StatedLimit]:
    """Every spending limit ``text`` states, in order, each once."""
    out: list[StatedLimit] = []
    for sentence in _SENTENCE.findall(text):
        spending = _SPENDING.search(sentence) is not None
        for clause in re.split(r"(?<!\d),|,(?!\d)|，|、|\bbut\b|\band\b|但是?|而且", sentence):
            out += [s for s in _clause_limits(clause, spending) if s not in out]
    return out


def _clause_limits(clause: str, spending: bool) -> list[StatedLimit]:
    each = _EACH.search(clause) is not None
    spending = spending or each
    found: list[Limit] = []
    for head, inclusive in (*_HEADS_EN, *_HEADS_ZH):
        for m in head.finditer(clause):
            found.append(_after(clause, m.end(), inclusive, head.pattern == "封顶"))
    if _ASK.search(clause):
        found += [_after(clause, m.end(), True) for m in _ABOVE.finditer(clause)]
    if spending and not found:
        found += [f for m in _GENERIC.finditer(clause)
                  if (f := _after(clause, m.end(), "within" in m[0].lower())).amount
                  is not None and f.amount.currency is not None]
    limit = parse_limit(clause) if spending and not found else None
    if limit is not None and (limit.amount is None or limit.amount.currency is not None):
        found.append(limit)
    if not found and spending and _BEFORE_HEAD.search(clause):
        found.append(_before(clause))
    return list(dict.fromkeys(StatedLimit(f, each) for f in found))


def _after(clause: str, start: int, inclusive: bool, before: bool = False) -> Limit:
    """The limit whose amount starts within :data:`REACH` characters after ``start`` (for
    "100元封顶", before it); :data:`UNREADABLE` when none can be read there."""
    region = clause[max(0, start - REACH):start - 2] if before else clause[start:start + REACH]
    found = amounts_in(region)
    if before and found:
        return Limit(found[-1], inclusive)
    inner = parse_limit(region)  # "the budget is under $300": the limit's own words
    if inner is not None and inner.amount is not None and re.match(
            r"\s*(?:under|below|less|at\s+most|up\s+to|no\s+more|not\s+more|max|最多|不超过|"
            r"少于|低于)", region, re.IGNORECASE):
        return inner
    lead = re.match(r"\s*(?:of\s+|a\s+total\s+of\s+|in\s+total\s+|total\s+|us\s+)?", region)
    head = region[lead.end() if lead else 0:]
    first = amounts_in(head)
    if first and _MONEYISH.match(head.lstrip()) is not None:
        return Limit(first[0], inclusive)
    return UNREADABLE


def _before(clause: str) -> Limit:
    """ "100元以内", "$50 max": the amount before the words."""
    m = _BEFORE_HEAD.search(clause)
    assert m is not None
    found = amounts_in(clause[max(0, m.start() - REACH):m.start()])
    return Limit(found[-1]) if found else UNREADABLE


def spending_clause(text: str) -> bool:
    """Whether ``text`` talks about spending money (pay, buy, cost, budget, 付, 买…)."""
    return _SPENDING.search(text) is not None


__all__ = ["REACH", "StatedLimit", "spending_clause", "stated_limits"]
