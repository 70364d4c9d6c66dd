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
screen sizes.

A step is a :data:`Command`: a discriminated union of frozen pydantic models, one per
command, picked by ``name`` (as plans and macros are) — each holds only its own fields
(``Repeat.times``, ``Retry.max_retries``, ``SaveValue.key``), so no field changes meaning
with the command. :class:`FlowResult` is what a replay did. Pure data, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

Direction = Literal["up", "down", "left", "right"]

# Classes of sensitive steps that cannot be undone, and what a replay that stopped after one
# says: the outcome is on the phone and must be checked there, never tried again.
ONCE: dict[str, str] = {"payment": "paid once", "send": "sent once", "delete": "deleted once",
                        "install": "installed once", "account_security": "changed once"}

REPEAT_INDEX = "repeatIndex"  # a repeat's round, 1-based: names the n-th item (idempotent)


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


class FlowStep(BaseModel):
    """What every command has: ``optional`` (skipped with a note when it cannot run), its
    1-based ``line`` in its list (for messages) and ``timeout_s``, how long it waits for its
    element or its check."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    _TEXTS: ClassVar[tuple[str, ...]] = ()  # fields that may hold $vars

    optional: bool = False
    line: int = 0
    timeout_s: float = 5.0

    def label(self) -> str:
        return f"{getattr(self, 'name', '?')} {self._what()}".strip()

    def _what(self) -> str:
        selector = getattr(self, "selector", None)
        if selector is not None:
            return str(selector.describe())
        return str(getattr(self, self._TEXTS[0])) if self._TEXTS else ""

    def texts(self) -> list[str]:
        """The texts of this step a ``$var`` may sit in (its selectors' too)."""
        own = [str(getattr(self, f)) for f in self._TEXTS]
        selector = getattr(self, "selector", None)
        condition = getattr(self, "condition", None)
        if condition is not None:
            own += _selector_texts(condition.visible) + _selector_texts(condition.not_visible)
        return own + _selector_texts(selector)

    def repeats(self) -> int:
        """How many times it may go round (bounded by the parser); 0 for a plain step."""
        return 0


class LaunchApp(FlowStep):
    """Opens ``app`` on its first screen: stopped first unless ``stop`` is off (Maestro's
    ``stopApp: false``: brought to the front as it is)."""

    name: Literal["launchApp"] = "launchApp"
    _TEXTS = ("app",)
    app: str = ""  # "" launches the flow's appId
    stop: bool = True


class TapOn(FlowStep):
    """A tap on an element (``selector``) or, from a recording, at a per-cent ``point``."""

    name: Literal["tapOn"] = "tapOn"
    selector: Selector | None = None
    point: tuple[float, float] | None = None  # per cent of the screen


class LongPressOn(FlowStep):
    name: Literal["longPressOn"] = "longPressOn"
    selector: Selector | None = None
    point: tuple[float, float] | None = None


class InputText(FlowStep):
    """Typing ``text``: into the focused field, or into the field ``selector`` names."""

    name: Literal["inputText"] = "inputText"
    _TEXTS = ("text",)
    text: str = ""
    selector: Selector | None = None
    clear: bool = False  # empty the field first


class EraseText(FlowStep):
    name: Literal["eraseText"] = "eraseText"
    count: int = 50  # characters

    def repeats(self) -> int:
        return self.count


class AssertVisible(FlowStep):
    name: Literal["assertVisible"] = "assertVisible"
    selector: Selector


class AssertNotVisible(FlowStep):
    name: Literal["assertNotVisible"] = "assertNotVisible"
    selector: Selector


class ScrollUntilVisible(FlowStep):
    name: Literal["scrollUntilVisible"] = "scrollUntilVisible"
    selector: Selector
    direction: Direction = "down"  # where the content comes from (the finger goes the other way)
    timeout_s: float = 20.0
    max_swipes: int = 20

    def repeats(self) -> int:
        return self.max_swipes


class Scroll(FlowStep):
    name: Literal["scroll"] = "scroll"


class SwipeScreen(FlowStep):
    name: Literal["swipe"] = "swipe"
    direction: Direction = "down"


class PressBack(FlowStep):
    name: Literal["back"] = "back"


class PressKey(FlowStep):
    name: Literal["pressKey"] = "pressKey"
    _TEXTS = ("key",)
    key: str


class WaitForAnimationToEnd(FlowStep):
    name: Literal["waitForAnimationToEnd"] = "waitForAnimationToEnd"


class TakeScreenshot(FlowStep):
    name: Literal["takeScreenshot"] = "takeScreenshot"
    path: str = "screenshot"


class SaveValue(FlowStep):
    """``$key`` set to ``value``, or to the text of the element ``selector`` names."""

    name: Literal["memSave"] = "memSave"
    _TEXTS = ("value",)
    key: str
    value: str = ""
    selector: Selector | None = None


class WaitSeconds(FlowStep):
    name: Literal["wait"] = "wait"
    seconds: float = 1.0


class ExtendedWaitUntil(FlowStep):
    name: Literal["extendedWaitUntil"] = "extendedWaitUntil"
    condition: Condition
    timeout_s: float = 10.0


class Repeat(FlowStep):
    """``commands`` ``times`` times (or ``times_var``'s value), while ``condition`` holds."""

    name: Literal["repeat"] = "repeat"
    _TEXTS = ("times_var",)
    times: int = 0
    times_var: str = ""  # "$count": read when the repeat starts
    condition: Condition | None = None
    commands: tuple[Command, ...] = ()

    def repeats(self) -> int:
        return self.times


class RunFlow(FlowStep):
    """``commands``, or the flow in ``file`` (next to this one), when ``condition`` holds."""

    name: Literal["runFlow"] = "runFlow"
    file: str = ""
    commands: tuple[Command, ...] = ()
    condition: Condition | None = None


class Retry(FlowStep):
    """``commands`` (or ``file``) again, up to ``max_retries`` more times, until they pass."""

    name: Literal["retry"] = "retry"
    file: str = ""
    commands: tuple[Command, ...] = ()
    max_retries: int = 1

    def repeats(self) -> int:
        return self.max_retries


Command = Annotated[
    LaunchApp | TapOn | LongPressOn | InputText | EraseText | AssertVisible | AssertNotVisible
    | ScrollUntilVisible | Scroll | SwipeScreen | PressBack | PressKey | WaitForAnimationToEnd
    | TakeScreenshot | SaveValue | WaitSeconds | ExtendedWaitUntil | Repeat | RunFlow | Retry,
    Field(discriminator="name")]
"""One step of a flow: the YAML command's name picks the model (a discriminated union)."""
Block = Repeat | RunFlow | Retry  # the commands with a body
Touch = TapOn | LongPressOn


@dataclass(frozen=True)
class Flow:
    commands: tuple[Command, ...]
    app_id: str = ""
    name: str = ""
    env: dict[str, str] = field(default_factory=dict)
    source: str = ""  # the file it came from, for runFlow paths and messages

    @property
    def variables(self) -> list[str]:
        """``$vars`` the flow reads that ``env`` does not define, no ``memSave`` sets and a
        ``repeat`` does not give (``$repeatIndex``, its round)."""
        from omg_agent.core.actions import VAR_PATTERN

        saved: set[str] = {REPEAT_INDEX}
        needed: list[str] = []
        for c in walk(self.commands):
            if isinstance(c, SaveValue):
                saved.add(c.key)
            for a, b in (m for t in c.texts() for m in VAR_PATTERN.findall(t)):
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
        if isinstance(c, Block):
            yield from walk(c.commands)


def saved_keys(flow: Flow) -> list[str]:
    """The names the flow's ``memSave`` steps set, in order (what its output shows)."""
    return list(dict.fromkeys(c.key for c in walk(flow.commands) if isinstance(c, SaveValue)))


for _model in (Repeat, RunFlow, Retry):  # their bodies name Command, defined after them
    _model.model_rebuild()


@dataclass
class FlowResult:
    status: Literal["done", "failed", "needs_confirmation"]
    commands: int = 0  # commands that ran (bodies counted one by one)
    actions: int = 0  # device actions sent
    observations: int = 0
    device_calls: int = 0  # round trips of the actions (observations not included)
    wall_s: float = 0.0
    failed: str = ""  # the step and why it stopped
    failed_step: int = 0  # its trace step number
    variables: dict[str, str] = field(default_factory=dict)
    irreversible: list[str] = field(default_factory=list)  # what was sent that cannot be undone
    refused: str = ""  # what the user said no to when the gate asked (the flow stopped there)

    @property
    def ok(self) -> bool:
        return self.status == "done"

    @property
    def once(self) -> str:
        """"paid once", "paid once, sent once" …: what a failed replay already did ("" when
        it did nothing that cannot be undone)."""
        return ", ".join(dict.fromkeys(ONCE[c] for c in self.irreversible if c in ONCE))
