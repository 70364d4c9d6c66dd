"""Flows as data: a readable list of anchored steps that runs with no model (DESIGN.md §7).

A :class:`Flow` is what :mod:`.parse` reads from YAML (our files and the supported subset of
Maestro flow files) and what :mod:`.record` writes: an optional ``appId`` header, ``env``
defaults for ``$vars`` and a list of commands. The command names are Maestro's where the
meaning is the same (``launchApp``, ``tapOn``, ``inputText``, ``assertVisible``,
``scrollUntilVisible``, ``back``, ``repeat``, ``runFlow`` with ``when``, ``retry``,
``extendedWaitUntil``); ``memSave`` is ours. A :class:`Selector` names an element the way a
person reads the screen — text (a regex), resource-id, content-desc, the n-th match,
relative to another element (``below`` / ``above`` / ``childOf``) and its state — and is
resolved on each screen anew by :mod:`.select`, so a flow survives moved buttons and other
screen sizes. Pure data, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

# Classes of sensitive steps that cannot be undone, and what a replay that stopped after one
# says: the outcome is on the phone and must be checked there, never tried again.
ONCE: dict[str, str] = {"payment": "paid once", "send": "sent once", "delete": "deleted once",
                        "install": "installed once", "account_security": "changed once"}


@dataclass(frozen=True)
class Selector:
    text: str | None = None  # a regex (Maestro's meaning); plain words compare exactly
    id: str | None = None  # resource-id, full or the part after ":id/"
    desc: str | None = None
    index: int | None = None  # the n-th match, top to bottom (0-based)
    below: Selector | None = None
    above: Selector | None = None
    child_of: Selector | None = None
    enabled: bool | None = None
    checked: bool | None = None
    selected: bool | None = None
    focused: bool | None = None

    def describe(self) -> str:
        parts = [f"{k}={v!r}" for k, v in (("text", self.text), ("id", self.id),
                                           ("desc", self.desc)) if v is not None]
        parts += [f"{k}={v}" for k, v in (("index", self.index), ("enabled", self.enabled),
                                          ("checked", self.checked),
                                          ("selected", self.selected),
                                          ("focused", self.focused)) if v is not None]
        parts += [f"{k} ({v.describe()})" for k, v in (("below", self.below),
                                                       ("above", self.above),
                                                       ("childOf", self.child_of))
                  if v is not None]
        return " ".join(parts) or "(any element)"


@dataclass(frozen=True)
class Condition:
    """``when`` / ``while`` / ``extendedWaitUntil``: what must (not) be on the screen."""

    visible: Selector | None = None
    not_visible: Selector | None = None


@dataclass(frozen=True)
class Command:
    """One step. ``name`` is the YAML command; the fields used depend on it (see parse)."""

    name: str
    selector: Selector | None = None
    text: str = ""  # inputText / launchApp app / pressKey key / memSave value / label
    key: str = ""  # memSave key; takeScreenshot name
    point: tuple[float, float] | None = None  # tapOn point, in per cent of the screen
    direction: Literal["up", "down", "left", "right"] = "down"
    times: int = 1  # repeat times / retry maxRetries / eraseText characters
    timeout_s: float = 5.0
    condition: Condition | None = None  # runFlow when / repeat while / extendedWaitUntil
    commands: tuple[Command, ...] = ()  # repeat / runFlow / retry bodies
    file: str = ""  # runFlow file
    optional: bool = False
    long: bool = False  # longPressOn
    clear: bool = False  # inputText into an emptied field
    line: int = 0  # 1-based position in its list, for messages

    def label(self) -> str:
        what = self.selector.describe() if self.selector is not None else self.text
        return f"{self.name} {what}".strip()


@dataclass(frozen=True)
class Flow:
    commands: tuple[Command, ...]
    app_id: str = ""
    name: str = ""
    env: dict[str, str] = field(default_factory=dict)
    source: str = ""  # the file it came from, for runFlow paths and messages

    @property
    def variables(self) -> list[str]:
        """``$vars`` the flow reads that ``env`` does not define and no ``memSave`` sets."""
        from omg_agent.core.actions import VAR_PATTERN

        saved: set[str] = set()
        needed: list[str] = []
        for c in walk(self.commands):
            if c.name == "memSave":
                saved.add(c.key)
            texts = [c.text, *_selector_texts(c.selector)]
            if c.condition is not None:
                texts += [*_selector_texts(c.condition.visible),
                          *_selector_texts(c.condition.not_visible)]
            for a, b in (m for t in texts for m in VAR_PATTERN.findall(t)):
                name = a or b
                if name not in saved and name not in self.env and name not in needed:
                    needed.append(name)
        return needed


def _selector_texts(s: Selector | None) -> list[str]:
    if s is None:
        return []
    own = [t for t in (s.text, s.id, s.desc) if t]
    return own + [t for rel in (s.below, s.above, s.child_of) for t in _selector_texts(rel)]


def walk(commands: tuple[Command, ...]) -> Iterator[Command]:
    """Every command, nested bodies included, in order."""
    for c in commands:
        yield c
        yield from walk(c.commands)
