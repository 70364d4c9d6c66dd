"""What history compaction never drops (issue 40): the operator sees its last
:data:`~omg_agent.brain.operator.HISTORY` turns, but a scan's result is evidence a long list
task needs until its end ("like every post by X": the 30-post scan, then nine likes).

- :class:`KeptResults` keeps each scan's report as a named artifact (``scan1``, ``scan2``…),
  the newest :data:`SCANS_KEPT` whole, shown under "Kept" every turn; the turn's history line
  points to it instead of repeating it. They are saved with the run's state (a resumed run
  shows them too). Facts saved from screens are memory values
  (``mem_save``), shown whole under "Memory" every turn (:meth:`MemoryBank.prompt_listing`).
- :func:`compacted` is the history as the prompt shows it: the last turns, and one line
  that says what the earlier ones did (their intents) and where their results are kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

SCANS_KEPT = 2  # the newest scans shown whole; an older one is named as replaced
INTENT_CHARS = 60  # of each earlier turn's intent, in the compaction line
INTENTS_NAMED = 8  # the latest distinct intents the compaction line names; older are counted


@dataclass(frozen=True)
class Kept:
    name: str
    turn: int
    text: str


@dataclass
class KeptResults:
    """The scans of one run, by name; the newest :data:`SCANS_KEPT` shown whole."""

    scans: list[Kept] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    count: int = 0

    def keep(self, results: list[dict[str, Any]], turn: int) -> None:
        """Keep each scan report of a turn's ``results`` (and name it in the result)."""
        for result in results:
            if result.get("type") != "scan" or not result.get("ok") or not result.get("detail"):
                continue
            self.count += 1
            result["kept_as"] = f"scan{self.count}"
            self.scans.append(Kept(result["kept_as"], turn, str(result["detail"])))
            while len(self.scans) > SCANS_KEPT:
                self.dropped.append(self.scans.pop(0).name)

    def as_data(self) -> dict[str, Any]:
        """What ``state.json`` keeps (a resumed run shows the same Kept section)."""
        return {"scans": [[k.name, k.turn, k.text] for k in self.scans],
                "dropped": list(self.dropped), "count": self.count}

    @classmethod
    def of(cls, data: object) -> KeptResults:
        """The kept scans :meth:`as_data` wrote (none from a state saved without them)."""
        if not isinstance(data, dict):
            return cls()
        scans = [Kept(str(s[0]), int(s[1]), str(s[2])) for s in data.get("scans") or ()
                 if isinstance(s, list) and len(s) == 3 and isinstance(s[1], int)]
        count = data.get("count")
        return cls(scans[-SCANS_KEPT:], [str(n) for n in data.get("dropped") or ()],
                   max(count if isinstance(count, int) else 0, len(scans)))

    def section(self) -> str:
        """The "Kept" prompt section ('' when nothing is kept)."""
        if not self.scans:
            return ""
        head = ("Kept (never dropped from the history; name an item as scan2 #4, tap it by "
                "its anchor):")
        if self.dropped:
            head += f" {', '.join(self.dropped)} replaced by newer scans."
        return "\n".join([head, *(f"[{k.name}, turn {k.turn}] {k.text}" for k in self.scans)])


def pointer(result: dict[str, Any]) -> str:
    """A scan's detail as a history line says it: its first line and where it is kept."""
    detail = str(result.get("detail", ""))
    name = result.get("kept_as")
    return f"{detail.splitlines()[0]} (whole under Kept as {name})" if name else detail


def compacted(history: Sequence[str], shown: int, *, kept: bool = True,
              saved: bool = True) -> list[str]:
    """The history lines the prompt shows: the last ``shown``, after one line saying what
    the earlier turns did (their intents) and where their results stay — naming only the
    sections the prompt shows: Kept (``kept``) and Memory (``saved``: a value is saved)."""
    recent = list(history[-shown:]) if shown else []
    earlier = history[:len(history) - len(recent)]
    if not earlier:
        return recent
    intents = list(dict.fromkeys(_intent(h) for h in earlier))
    did = "; ".join(intents[-INTENTS_NAMED:])
    if len(intents) > INTENTS_NAMED:
        did = f"{len(intents) - INTENTS_NAMED} more, then {did}"
    n = len(earlier)
    where = [w for w, shows in (("scan results are under Kept", kept),
                                ("saved values are under Memory", saved)) if shows]
    tail = f"; their {' and '.join(where)}" if where else ""
    return [f"({n} earlier turn{'s' * (n > 1)} summarised: {did}{tail})", *recent]


def _intent(line: str) -> str:
    """The intent of a history line ``(step N) intent [acts] → status (said)``."""
    text = line.split(") ", 1)[1] if line.startswith("(") and ") " in line else line
    text = text.split(" [", 1)[0].split(" → ", 1)[0].strip()
    return text if len(text) <= INTENT_CHARS else text[:INTENT_CHARS - 1] + "…"
