"""What a short label on the screen says: its words, its Chinese part, and loading words.

A label is *short* — a button's, a status line's — when it has at most
:data:`MAX_LABEL_WORDS` Latin words or :data:`MAX_CJK_CHARS` Chinese characters; a longer
text is content (a message preview, a paragraph), not a control's name. The
sensitive-action cues (:mod:`omg_agent.guards.cues`) and the proof of a flow's control
(:mod:`omg_agent.flows.proof`) split labels with :func:`latin_words` and :func:`cjk_part`.

:func:`loading_cue` names the loading word a short label shows ("Loading…", "Searching…
搜索中", "Please wait", "加载中", "正在搜索"); the executor's wait after an action
(:mod:`omg_agent.drivers.loading`) reads it. It lives here, below the drivers, because
reading a screen is perception's job (docs/architecture.md). :func:`is_secret_field` says
whether a field is for a password, a card number or a code, from what the field *is* (its
id, hint, description): the gate asks before typing there, and the secret typer
(:mod:`omg_agent.drivers.secret_places`) types a secret nowhere else. Pure functions, no I/O.
"""

from __future__ import annotations

import re

from omg_agent.perception.textmatch import compact, normalise

MAX_LABEL_WORDS = 4
MAX_CJK_CHARS = 8

_WORD_RE = re.compile(r"\d+[^\W\d_]+|[^\W\d_]+(?:['’\-][^\W\d_]+)*")
_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def latin_words(text: str) -> list[str]:
    """The Latin-script words of ``text``, normalised (prices, numbers and CJK dropped)."""
    plain = _CJK_RE.sub(" ", normalise(text, cjk=False)).replace("’", "'")
    return [w for w in _WORD_RE.findall(plain) if not _CJK_RE.search(w)]


def cjk_part(text: str) -> str:
    """The Chinese characters of ``text``, in order, without spaces or punctuation."""
    return "".join(_CJK_RE.findall(compact(text)))


_SECRET_EN = frozenset({"password", "passcode", "passwd", "pin", "cvv", "cvc", "card", "otp",
                        "iban"})
_SECRET_PHRASES_EN = ("security code", "verification code", "card number")
_SECRET_ZH = ("密码", "卡号", "银行卡", "验证码", "安全码", "支付密码")


def is_secret_field(*texts: str) -> str | None:
    """The cue that makes a field with these texts (hint, resource-id, description) one for
    secrets — a password, a card number, a CVV, a verification code — or ``None``."""
    for text in texts:
        if not text:
            continue
        words = latin_words(text.replace("_", " "))
        joined = " ".join(words)
        hit = next((w for w in words if w in _SECRET_EN), None) or next(
            (p for p in _SECRET_PHRASES_EN if p in joined), None) or next(
            (z for z in _SECRET_ZH if z in cjk_part(text)), None)
        if hit:
            return hit
    return None


# A label that *is* one of these (an ellipsis, a count or a second language aside) says the
# screen is still loading: "Loading…", "Searching… 搜索中", "Please wait", "正在加载…".
_LOADING_EN = ("loading", "searching", "please wait", "one moment", "refreshing",
               "just a moment")
_LOADING_ZH = ("加载中", "正在加载", "载入中", "正在载入", "搜索中", "正在搜索", "请稍候",
               "请稍等", "刷新中", "正在刷新")
_LOADING_PHRASES = [tuple(latin_words(p)) for p in _LOADING_EN]


def loading_cue(label: str) -> str | None:
    """The loading word a short label opens with ("Loading more…" → ``loading``), or
    ``None``: a sentence that mentions loading ("Loading the van took an hour") is content."""
    words = latin_words(label)
    if words and len(words) <= MAX_LABEL_WORDS:
        for phrase in _LOADING_PHRASES:
            if tuple(words[:len(phrase)]) == phrase:
                return " ".join(phrase)
    han = cjk_part(label)
    if han and len(han) <= MAX_CJK_CHARS:
        return next((cue for cue in _LOADING_ZH if han.startswith(cue)), None)
    return None
