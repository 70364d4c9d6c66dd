"""The one answer rule: is what the user said a yes, a no, or neither?

Every channel that takes a human's answer to "may I?" reads it here: the terminal's
``[y/N]``, the mirror's answer box, ``run --resume DIR --answer``, the system-screen rules
(a permission prompt) and the bench's simulated user (DESIGN.md §5, issue #24).

The rule: the *whole* answer, normalised (case, width, surrounding quotes, punctuation and
spaces), must be one entry of :data:`AFFIRMATIVES` to be a yes, or one entry of
:data:`NEGATIVES` to be a no. Anything else — "you must not pay", "yesterday", "okay no",
"可以不", "是不是" — is *neither*: the caller asks again (terminal, mirror) or refuses the
answer with :data:`ACCEPTED` (``--resume --answer`` exits 2). There is never a prefix or a
substring match, and no entry of either list contains a negation, so no sentence that
carries one can ever read as a yes.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

Verdict = Literal["yes", "no"]

AFFIRMATIVES: frozenset[str] = frozenset({
    "yes", "y", "yeah", "yep", "ok", "okay", "k", "sure", "allow", "allowed", "approve",
    "approved", "confirm", "confirmed", "go ahead", "proceed", "do it", "go", "agree",
    "i agree", "yes please", "yes go ahead", "yes do it", "ok go ahead", "okay go ahead",
    "yes i confirm", "accept",
    "是", "是的", "好", "好的", "确认", "确定", "可以", "允许", "同意", "行", "对", "嗯",
    "继续", "批准",
})
NEGATIVES: frozenset[str] = frozenset({
    "no", "n", "nope", "nah", "don't", "do not", "dont", "stop", "cancel", "deny", "denied",
    "decline", "declined", "refuse", "reject", "never", "no thanks", "no thank you",
    "not now", "abort", "don't do it", "do not do it", "no don't", "no stop", "no way",
    "nope don't", "absolutely not", "not at all", "don't pay", "do not pay", "don't send",
    "do not send", "don't delete", "do not delete",
    "不", "不要", "不行", "不可以", "不用", "不同意", "不允许", "否", "别", "拒绝", "取消",
    "算了", "停", "停止", "不确认", "不付", "别付", "不要付", "不要发", "不要删",
})
ACCEPTED = ("yes: yes, y, ok, sure, allow, approve, go ahead, 是, 好, 确认, 可以, 允许, 同意; "
            "no: no, n, don't, stop, cancel, deny, 不, 不要, 否, 别, 拒绝, 取消")
MAX_ANSWER = 2_000  # characters: longer is never a one-word yes or no

_EDGES = " \t\r\n\"'`“”‘’「」『』()[]（）【】.!?,;:~。！？，；：、…-"
_INNER = re.compile(r"[\s,，、;；:：!！.。]+")


_QUESTION = re.compile(r"[?¿⸮]")  # after NFKC, which folds the full-width ？


def normalise(answer: str) -> str:
    """Case-folded, width-folded (NFKC), trimmed of quotes and punctuation at both ends,
    inner punctuation and runs of spaces as one space; typographic apostrophes as ``'``."""
    text = unicodedata.normalize("NFKC", answer[:MAX_ANSWER]).casefold()
    text = text.replace("’", "'").replace("‘", "'")
    return _INNER.sub(" ", text.strip(_EDGES)).strip()


def read_answer(answer: str | None) -> Verdict | None:
    """``"yes"``, ``"no"`` or ``None`` (neither: ask again) for a human's answer."""
    if answer is None or len(answer) > MAX_ANSWER:
        return None
    if _QUESTION.search(unicodedata.normalize("NFKC", answer)):
        return None  # "yes?", "可以？": a question back is neither a yes nor a no — ask again
    text = normalise(answer)
    if text in AFFIRMATIVES:
        return "yes"
    if text in NEGATIVES:
        return "no"
    return None


def is_yes(answer: str | None) -> bool:
    """Whether ``answer`` is a yes (a no and neither are both not a yes)."""
    return read_answer(answer) == "yes"


def unclear(answer: str) -> str:
    """The one-line message for an answer that is neither a yes nor a no."""
    shown = answer if len(answer) <= 60 else answer[:57] + "…"
    return f"{shown!r} is neither a yes nor a no; answer with one of — {ACCEPTED}"


__all__ = ["ACCEPTED", "AFFIRMATIVES", "MAX_ANSWER", "NEGATIVES", "Verdict", "is_yes",
           "normalise", "read_answer", "unclear"]
