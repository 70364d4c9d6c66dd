"""Pieces of secrets: the part of masking that finds a value cut short (pure, no I/O).

:meth:`~omg_agent.core.secrets.SecretVault.mask` first replaces whole values; a preview cut
short, a field shown truncated or a value typed in part still holds a *piece* of one —
"…Aomg586…" of ``omg5865``. :class:`PieceMasker` finds every stretch of text made of
:data:`PIECE`-character runs of one value and writes it as that value's placeholder.

One exception keeps ordinary words readable: a piece with no digit that is at most half as
long as its value *and is one whole word of it* ("user" or "omg-" of an API key
``sk-omg-user-…``) is a word, not a leak — output names the program ``omg-agent`` and paths
``pytest-…``; a longer piece, one with a digit in it, or one cut from inside a word of the
value ("correctho" of ``correcthorsebattery``: a truncated preview of a passphrase) is
masked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

PIECE = 4  # the shortest piece of a secret that is masked
_WORD = re.compile(r"[^\W_]+")  # a run of letters and digits
_EDGES = re.compile(r"^[\W_]+|[\W_]+$")


class PieceMasker:
    """Masks the pieces of ``values`` (name → value) in a text."""

    def __init__(self, values: Mapping[str, str]) -> None:
        self.values = dict(values)
        self.owner: dict[str, str] = {}  # a PIECE-character run -> the value's name
        for name, value in sorted(values.items(), key=lambda nv: len(nv[1]), reverse=True):
            for i in range(len(value) - PIECE + 1):
                self.owner.setdefault(value[i:i + PIECE], name)
        runs = sorted(self.owner, reverse=True)
        self.pattern = re.compile("(?=(" + "|".join(map(re.escape, runs)) + "))") \
            if runs else None

    def mask(self, text: str, keep: re.Pattern[str], placeholder: Callable[[str], str]) -> str:
        """``text`` with each piece as ``placeholder(name)``; matches of ``keep`` (the
        placeholders already there) are never searched inside."""
        if self.pattern is None or len(text) < PIECE:
            return text
        kept = [m.span() for m in keep.finditer(text)]
        spans: list[tuple[int, int, str]] = []  # (start, end, name), merged while overlapping
        for m in self.pattern.finditer(text):
            start, end = m.start(), m.start() + PIECE
            if any(s < end and start < e for s, e in kept):
                continue
            name = self.owner[m.group(1)]
            if spans and spans[-1][2] == name and start < spans[-1][1]:
                spans[-1] = (spans[-1][0], end, name)
            else:
                spans.append((start, end, name))
        out, at = [], 0
        for start, end, name in spans:
            if start < at or self._word(text[start:end], self.values[name]):
                continue
            out += [text[at:start], placeholder(name)]
            at = end
        return "".join(out) + text[at:] if out else text

    @staticmethod
    def _word(piece: str, value: str) -> bool:
        return piece != value and not any(c.isdigit() for c in piece) \
            and 2 * len(piece) <= len(value) \
            and _EDGES.sub("", piece) in _WORD.findall(value)
