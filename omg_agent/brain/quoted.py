"""Whether an operator's answer quotes the screen it claimed done on (issue 40).

A planner confirmation of a claimed "done" looks at the same screenshot the answer was read
from; when the answer is that screen's text — "You are signed in.", "¥9.90", the title of
the note asked about — the call adds nothing (relay rounds: 4 of 13 default runs, 6 of 6
flat ones). :func:`quoted_on_screen` says so: the answer (or each part of it the model put
in quotes) appears in an element's own text — never in an edit field's, which shows what
the model typed. For a task that only looks or asks, :func:`values_on_screen` is enough: each
value the answer states — an amount or number (read by :mod:`omg_agent.guards.amounts`), a
part in quotes — is in the screen's own text ("AirPods Pro costs ¥1,869.00 in Shop." on the
product page showing "¥1,869.00"). A purchase the task makes conditional on its price and
the operator declined on it states a price the screen shows that the task's own limit does
not admit (:func:`beyond_limit`, issue 36). Pure functions.
"""

from __future__ import annotations

import re

from omg_agent.core.observation import Observation
from omg_agent.guards.amounts import Money, amounts_in
from omg_agent.guards.spending_words import stated_limits

_QUOTED = re.compile(r"[\"“「『'‘]([^\"”」』'’]{2,})[\"”」』'’]")
_EDGES = " \t\n.,;:!?。，；：！？\"'“”‘’「」『』()（）"
_JOINED = re.compile(r"\s+[—–-]\s+|\s*[—–]\s*")  # 'Welcome, demo — You are signed in.': two texts
MIN_CHARS = 2  # a one-character answer ("3") proves nothing by showing somewhere


def _norm(text: str) -> str:
    return " ".join(text.split()).strip(_EDGES).casefold()


def screen_texts(obs: Observation) -> list[str]:
    """The texts the app itself shows (not edit fields, not password fields)."""
    out = []
    for e in obs.elements:
        if e.editable or e.password:
            continue
        out += [t for t in (e.text, e.desc, *e.extra_texts) if t]
    return [n for n in map(_norm, out) if len(n) >= MIN_CHARS]


def quoted_on_screen(answer: str, obs: Observation) -> bool:
    """Whether ``answer`` is text ``obs`` shows: the whole answer within one element's text,
    or every part of it written in quotes within some element's text."""
    whole = _norm(answer)
    if len(whole) < MIN_CHARS:
        return False
    texts = screen_texts(obs)
    if any(whole in t for t in texts):
        return True
    parts = _QUOTED.findall(answer)
    return bool(parts) and all(_shown(p, texts) for p in parts)


def _shown(part: str, texts: list[str]) -> bool:
    """A quoted part is on the screen: within one text, or each of the texts the model
    joined with a dash ('Welcome, demo — You are signed in.') within one."""
    pieces = [_norm(part)]
    if not any(pieces[0] in t for t in texts):
        pieces = [_norm(p) for p in _JOINED.split(part)]
    return all(len(p) >= MIN_CHARS and any(p in t for t in texts) for p in pieces)


def values_on_screen(answer: str, obs: Observation) -> bool:
    """Whether ``answer`` states at least one value and each is on ``obs`` in an element's
    own text: every amount or number it writes (same value; same currency when it names
    one) and every part it puts in quotes."""
    texts = screen_texts(obs)
    shown = [m for t in texts for m in amounts_in(t) if m.readable]
    said = amounts_in(answer)
    parts = _QUOTED.findall(answer)
    if not said and not parts:
        return False
    return all(m.readable and any(_same(m, s) for s in shown) for m in said) \
        and all(_shown(p, texts) for p in parts)


def beyond_limit(task: str, answer: str, obs: Observation) -> Money | None:
    """An amount ``answer`` states that ``obs`` shows in an element's own text and that a
    spending limit ``task`` states does not admit ("Buy it if it costs under ¥50": "it costs
    ¥99.00" on the product page) — ``None`` when there is none."""
    limits = [s.limit for s in stated_limits(task) if s.limit.amount is not None]
    if not limits:
        return None
    shown = [m for t in screen_texts(obs) for m in amounts_in(t) if m.readable]
    return next((m for m in amounts_in(answer) if m.readable
                 and any(_same(m, s) for s in shown)
                 and not all(limit.admits(m) for limit in limits)), None)


def _same(said: Money, shown: Money) -> bool:
    return said.value == shown.value and (said.currency is None
                                          or said.currency == shown.currency)


__all__ = ["beyond_limit", "quoted_on_screen", "screen_texts", "values_on_screen"]
