"""Parameter expansion and field splitting for the vphone shell.

Runs when a command is about to execute (so ``$?`` sees the previous command). Quoted text
is copied verbatim; an unquoted ``$VAR`` is split on blanks like sh's default IFS. There is
no globbing: ``*`` and ``?`` stay literal.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from omg_agent.vphone.shell.syntax import Lit, Word

IFS = " \t\n"
_IFS_RUN = re.compile(r"[ \t\n]+")

Lookup = Callable[[str], str]


def expand_fields(words: tuple[Word, ...] | list[Word], lookup: Lookup) -> list[str]:
    """Expand words into argv fields (a word may vanish or split into several)."""
    fields: list[str] = []
    for word in words:
        fields.extend(_split_word(word, lookup))
    return fields


def expand_single(word: Word, lookup: Lookup) -> str:
    """Expand without field splitting (assignment values, redirection targets)."""
    return "".join(p.text if isinstance(p, Lit) else lookup(p.name) for p in word.parts)


def _split_word(word: Word, lookup: Lookup) -> list[str]:
    fields: list[str] = []
    cur: list[str] = []
    active = False  # the current field exists even if empty (it saw quotes or text)

    def flush() -> None:
        nonlocal cur, active
        if active:
            fields.append("".join(cur))
        cur, active = [], False

    for part in word.parts:
        if isinstance(part, Lit):
            cur.append(part.text)
            active = active or part.quoted or bool(part.text)
            continue
        value = lookup(part.name)
        if part.quoted:
            cur.append(value)
            active = True
            continue
        if not value:
            continue
        if value[0] in IFS:
            flush()
        for i, piece in enumerate(p for p in _IFS_RUN.split(value) if p):
            if i:
                flush()
            cur.append(piece)
            active = True
        if value[-1] in IFS:
            flush()
    flush()
    return fields
