"""The authorisation corpus: task phrasings with the authorisations their words give, and how
the one reader (:func:`~omg_agent.guards.authorisation.parse_authorisations`) does on them.

Each entry of the corpus (``tests/unit/guards/authz_corpus.yaml``) has a category, a language,
the task text and the expected authorisations rendered by :func:`render` ("payment Shop ≤¥100",
``send Bob "hi"``, "limit ≤¥50", "no payment *"); ``asks`` says why words that authorise an
action still get a question by design (a payment with no limit, a text not stated). Judged:

* **beyond** — the reader grants more than the words: a grant not expected, or a limit or a
  negation the words state that the reader lost (must be 0);
* **false ask** — the words grant an action (expected) that the reader does not grant;
* **exact** — the reader's authorisations are the expected ones.

``scripts/authz_corpus.py`` prints :func:`table`; the unit test checks every entry.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml

from omg_agent.guards.amounts import Limit
from omg_agent.guards.authorisation import Authorisation, parse_authorisations

CORPUS = Path("tests/unit/guards/authz_corpus.yaml")


@dataclass(frozen=True)
class Phrasing:
    cat: str
    lang: str
    text: str
    expect: tuple[str, ...]
    asks: str = ""


@dataclass(frozen=True)
class Verdict:
    phrasing: Phrasing
    got: tuple[str, ...]
    beyond: tuple[str, ...]  # granted beyond the words, or a stated limit / "don't" lost
    missed: tuple[str, ...]  # expected grants not granted: a false ask

    @property
    def exact(self) -> bool:
        return set(self.got) == set(self.phrasing.expect)


def load(path: Path = CORPUS) -> list[Phrasing]:
    """The corpus file's phrasings; :class:`ValueError` names an entry of the wrong shape."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    out: list[Phrasing] = []
    for i, row in enumerate(data or []):
        try:
            out.append(Phrasing(str(row["cat"]), str(row["lang"]), str(row["text"]),
                                tuple(str(e) for e in row["expect"]), str(row.get("asks", ""))))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{path} entry {i + 1}: needs cat, lang, text, expect ({exc})"
                             ) from None
    return out


def _limit(limit: Limit) -> str:
    if limit.amount is None:
        return "≤?"
    return f"{'≤' if limit.inclusive else '<'}{limit.amount}"


def render(a: Authorisation) -> str:
    """One authorisation as the corpus writes it."""
    target = a.target if a.target is not None else "*"
    if a.forbids:
        return f"no {a.cls} {target}"
    each = " each" if a.per_payment else ""
    if not a.grants:
        return f"limit {_limit(a.limit)}{each}" if a.limit is not None else f"no-grant {a.cls}"
    out = f"{a.cls} {target}"
    if a.limit is not None:
        out += f" {_limit(a.limit)}{each}"
    return out + (f' "{a.text}"' if a.text is not None else "")


def _grant(line: str) -> bool:
    return not line.startswith(("no ", "limit "))


def judge(p: Phrasing) -> Verdict:
    got = tuple(dict.fromkeys(render(a) for a in parse_authorisations(p.text)))
    expected = set(p.expect)
    beyond = [g for g in got if _grant(g) and g not in expected]
    beyond += [f"lost: {e}" for e in p.expect if not _grant(e) and e not in got]
    missed = tuple(e for e in p.expect if _grant(e) and e not in got)
    return Verdict(p, got, tuple(beyond), missed)


def table(verdicts: Iterable[Verdict]) -> str:
    """The corpus table (markdown): per category and language, and the totals."""
    rows: Counter[tuple[str, str, str]] = Counter()
    verdicts = list(verdicts)
    for v in verdicts:
        key = (v.phrasing.cat, v.phrasing.lang)
        rows[(*key, "n")] += 1
        rows[(*key, "exact")] += v.exact
        rows[(*key, "beyond")] += bool(v.beyond)
        rows[(*key, "missed")] += bool(v.missed)
        rows[(*key, "asks")] += bool(v.phrasing.asks)
    keys = sorted({(c, lang) for c, lang, _ in rows})
    lines = ["| category | lang | phrasings | exact | grants beyond the words | false asks "
             "| asked by design |", "|---|---|---:|---:|---:|---:|---:|"]
    for cat, lang in keys:
        lines.append(f"| {cat} | {lang} | " + " | ".join(
            str(rows[(cat, lang, k)]) for k in ("n", "exact", "beyond", "missed", "asks"))
            + " |")
    n = len(verdicts)
    beyond = sum(bool(v.beyond) for v in verdicts)
    missed = sum(bool(v.missed) for v in verdicts)
    lines.append(f"| **all** | | **{n}** | **{sum(v.exact for v in verdicts)}** | "
                 f"**{beyond}** | **{missed}** ({missed / max(n, 1):.1%}) | "
                 f"**{sum(bool(v.phrasing.asks) for v in verdicts)}** |")
    return "\n".join(lines)


__all__ = ["CORPUS", "Phrasing", "Verdict", "judge", "load", "render", "table"]
