"""Text matching for anchors: how a label the model names is compared with screen text.

Used by ``perception.anchor`` (tree texts, descriptions, resource-ids) and ``perception.ocr``
(recognised boxes). A :class:`TextQuery` scores a candidate string with a *tier* — lower is a
better match, ``None`` no match — so an exact hit always beats a looser one:

====  ======================================================================================
tier  meaning
====  ======================================================================================
0     identical strings
1     equal after normalisation: Unicode NFKC (full-width ``Ｓｅｔｔｉｎｇｓ`` → ``Settings``,
      ``（`` → ``(``), case folded, whitespace collapsed — and removed entirely when either
      side holds CJK, since "设 置" and "设置" are the same label
2     equal with every space and punctuation mark removed (OCR drops or adds spaces:
      ``Double11Sale`` for ``Double 11 Sale``)
3     equal to one *segment* of the candidate: bilingual labels "Promotions 活动" and
      "Cart, 0 items" match "活动" and "Cart" (segments split at spaces, separators and
      CJK/Latin script changes); a clause between commas is a segment too: a Compose
      row's merged label "Kevin Park, +1 650-555-0119" matches "Kevin Park"
4     a substring (normalised) — only with ``match="contains"``
====  ======================================================================================

Invisible marks never decide a match: private-use code points (icon-font glyphs), bidi
controls and zero-width characters are removed from both sides before any comparison
(:func:`strip_marks`); :func:`clean_label` is the same rule for what a label *shows*.

``match="regex"`` scores 0 for a full match of the raw text, 1 for a search hit in the raw
text, 2 for a hit in the normalised (NFKC) text. Pure functions, no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Literal

MatchMode = Literal["exact", "contains", "regex"]

_SPACE_RE = re.compile(r"\s+")
_SEPARATORS = r"\s,，、/|:：;；()（）\[\]【】<>《》·•\-–—"
_SEGMENT_RE = re.compile(f"[{_SEPARATORS}]+")
_CLAUSE_RE = re.compile(r"[,，;；]\s*")  # where a merged label joins its texts
_CJK_RUN_RE = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+)")
EXACT_TIERS = 3  # tiers 0..3 are accepted by match="exact"

# Bidi controls (LRM, RLM, ALM, embeddings, isolates), zero-width space / no-break space /
# word joiner; private-use areas hold icon-font glyphs (Material Icons, iconfont.cn …).
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_ZERO_WIDTH = "\u200b\u2060\ufeff"
_JOINERS = "\u200c\u200d"  # meaningful in Persian, Indic scripts and emoji: kept for display
_PRIVATE_USE = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"
_LABEL_MARKS_RE = re.compile(f"[{_BIDI}{_ZERO_WIDTH}{_PRIVATE_USE}]")
_MATCH_MARKS_RE = re.compile(f"[{_BIDI}{_ZERO_WIDTH}{_JOINERS}{_PRIVATE_USE}]")


def clean_label(text: str) -> str:
    """``text`` as a label shows it: private-use glyphs, bidi controls and zero-width
    spaces removed, whitespace collapsed (``"\ue8b6 Search\u200f"`` → ``"Search"``)."""
    return " ".join(_LABEL_MARKS_RE.sub("", text).split())


def strip_marks(text: str) -> str:
    """``text`` without any invisible mark (joiners too): the form every match compares."""
    return _MATCH_MARKS_RE.sub("", text)


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a Chinese, Japanese or Korean character."""
    return _CJK_RUN_RE.search(text) is not None


def normalise(text: str, *, cjk: bool | None = None) -> str:
    """NFKC, case folded, whitespace collapsed (removed when ``cjk``, default: if any)."""
    folded = unicodedata.normalize("NFKC", strip_marks(text)).casefold().strip()
    if cjk is None:
        cjk = has_cjk(folded)
    return _SPACE_RE.sub("" if cjk else " ", folded)


def compact(text: str) -> str:
    """The normalised text with every space, separator and punctuation mark removed."""
    folded = unicodedata.normalize("NFKC", strip_marks(text)).casefold()
    return "".join(ch for ch in folded
                   if not (ch.isspace() or unicodedata.category(ch)[0] in "PZ"))


def segments(text: str) -> list[str]:
    """The parts of a label a person might name alone (normalised): its words and, for a
    merged label (a Compose row reads its texts joined with ", "), each clause whole."""
    out: list[str] = [c for c in (normalise(part) for part in _CLAUSE_RE.split(text))
                      if c and c != normalise(text)]
    for part in _SEGMENT_RE.split(unicodedata.normalize("NFKC", strip_marks(text)).casefold()):
        for piece in _CJK_RUN_RE.split(part):
            piece = piece.strip()
            if piece:
                out.append(piece)
    return out


@dataclass(frozen=True)
class TextQuery:
    """One anchor string and how to compare it (see the module docstring for tiers)."""

    pattern: str
    match: MatchMode = "exact"
    _regex: re.Pattern[str] | None = field(default=None, init=False, repr=False,
                                           compare=False)

    def __post_init__(self) -> None:
        if self.match == "regex":
            object.__setattr__(self, "_regex", re.compile(self.pattern))

    def score(self, candidate: str) -> int | None:
        """The match tier of ``candidate`` (0 best), or ``None`` when it does not match."""
        if not candidate:
            return None
        if self._regex is not None:
            return self._score_regex(candidate)
        if candidate == self.pattern:
            return 0
        cjk = has_cjk(candidate) or has_cjk(self.pattern)
        want, got = normalise(self.pattern, cjk=cjk), normalise(candidate, cjk=cjk)
        if not want:
            return None
        if want == got:
            return 1
        want_c, got_c = compact(self.pattern), compact(candidate)
        if want_c and want_c == got_c:
            return 2
        if want in segments(candidate) or (want_c and want_c in map(compact,
                                                                      segments(candidate))):
            return 3
        if self.match == "contains" and (want in got or (want_c and want_c in got_c)):
            return 4
        return None

    def _score_regex(self, candidate: str) -> int | None:
        assert self._regex is not None
        if self._regex.fullmatch(candidate):
            return 0
        if self._regex.search(candidate):
            return 1
        if self._regex.search(unicodedata.normalize("NFKC", strip_marks(candidate))):
            return 2
        return None

    def __str__(self) -> str:
        return f"{self.pattern!r} ({self.match})"
