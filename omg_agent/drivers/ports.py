"""The executor's ports: what :class:`~omg_agent.drivers.executor.BundleExecutor` needs of
a transport (:class:`ActionPort`: the adb shell batch, uiautomator2's JSON-RPC, a desktop),
of its driver (:class:`Device`) and of its caller (:class:`Reviewer`, shown each segment as
:class:`Planned` actions before it runs), the bookkeeping a port that acts at once
shares (:class:`ImmediatePort`), and the choke point every input passes
(:class:`InputJudge`, asked about each :class:`InputEffect` on its :class:`InputScene`;
implemented above the drivers, in :mod:`omg_agent.guards.choke`; :class:`InputHeld` when
it may not reach the device; :class:`HumanHands` marks the human's own gestures)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from omg_agent.core.actions import Action
from omg_agent.core.geometry import Bounds, Point, ScreenGeometry
from omg_agent.core.observation import Observation, OcrBox, UIElement
from omg_agent.errors import ActionRejected


class PortFailed(Exception):
    """A queued batch failed at action ``index``; ``done`` finished before it."""

    def __init__(self, done: list[int], index: int, detail: str) -> None:
        super().__init__(detail)
        self.done, self.index, self.detail = done, index, detail


class ImmediatePort:
    """The bookkeeping of a port whose verbs act at once (no queued batch): :meth:`begin`
    notes each action, :meth:`batch` hands back the ones that ran, :meth:`discard` drops
    the last one (it was planned but not run)."""

    def __init__(self) -> None:
        self._ran: list[int] = []

    def begin(self, index: int) -> None:
        self._ran.append(index)

    def discard(self) -> None:
        if self._ran:
            self._ran.pop()

    def batch(self) -> list[int]:
        ran, self._ran = self._ran, []
        return ran


class ActionPort(Protocol):
    """One transport's verbs, in pixels and key codes. Calls between :meth:`begin` calls
    belong to one action; :meth:`batch` runs what is queued (a port that runs each call at
    once just answers which actions it ran) and raises :class:`PortFailed`."""

    @property
    def calls(self) -> int: ...  # device round trips so far

    def begin(self, index: int) -> None: ...

    def tap(self, p: Point) -> None: ...

    def double_tap(self, p: Point) -> None: ...

    def long_press(self, p: Point, duration_ms: int) -> None: ...

    def swipe(self, start: Point, end: Point, duration_ms: int) -> None: ...

    def key(self, code: int) -> None: ...

    def type(self, text: str, *, clear: bool, field: UIElement | None,
             after_tap: bool) -> str: ...  # returns a label that never holds a secret

    def start(self, package: str, *, restart: bool = False) -> None: ...  # restart: stop first

    def batch(self) -> list[int]: ...

    def discard(self) -> None: ...  # drop what the current action queued

    def packages(self) -> list[str]: ...


class Device(Protocol):
    """What the executor needs of its driver besides the port."""

    serial: str
    last_observation: Observation | None

    @property
    def anchorer(self) -> Any: ...

    @property
    def geometry(self) -> ScreenGeometry: ...

    def observe(self, *, ocr: bool = False) -> Observation: ...

    def current_app(self) -> tuple[str, str]: ...

    def wait_settled(self, timeout: float | None = None, *, previous: str = "") -> bool: ...



class Reviewer(Protocol):
    """The caller's say over each segment before it runs (the operator's: its ``mem_save``
    reads the screen planned on, the gate judges the elements planned, at its tolerance)."""

    @property
    def unseen(self) -> bool: ...  # the segment starts on a screen the model has not seen

    def review(self, planned: Sequence[Planned], screen: Observation | None) -> int | None:
        """The index of the first planned action that may not run (``None``: all may)."""
        ...

    def stopped(self, why: str, screen: Observation | None) -> None:
        """The segment may not run on the unseen ``screen`` (``None``: not looked at)."""
        ...


@dataclass
class Planned:
    """One planned action: resolved points, the element touched, and what to report."""

    index: int
    action: Action
    point: Point | None = None
    end: Point | None = None
    source: str = ""
    element: UIElement | None = None
    package: str = ""
    label_launch: bool = False
    detail: str = ""


Verb = Literal["tap", "double_tap", "long_press", "swipe", "key", "type", "start"]


@dataclass(frozen=True)
class InputEffect:
    """One input as it reaches the device, in pixels and key codes: a touch from ``point``
    (to ``end`` for a swipe), a key ``code`` (``None``: a desktop hotkey), ``text`` typed
    into ``field`` (``submit``: the ENTER after it, same action), an app ``package`` to
    start. ``element`` is what the executor resolved the touch to, when it did."""

    verb: Verb
    point: Point | None = None
    end: Point | None = None
    duration_ms: int = 0
    code: int | None = None
    text: str = ""
    field: UIElement | None = None
    clear: bool = False
    submit: bool = False
    package: str = ""
    element: UIElement | None = None


@dataclass(frozen=True)
class InputScene:
    """Where an input lands: the ``screen`` it acts on (``None``: none could be had), the
    device's touch slop in pixels, ``read`` — OCR of a box of the screen's pixels — and
    ``look``: the screen now (after a human's answer, what the input would land on)."""

    screen: Observation | None
    slop_px: int
    read: Callable[[Bounds], tuple[OcrBox, ...]] | None = None
    look: Callable[[], Observation] | None = None


class InputJudge(Protocol):
    """The one choke point (DESIGN.md §5): every input of every caller passes
    :meth:`judge` before it reaches the device."""

    def judge(self, effect: InputEffect, scene: InputScene) -> None:
        """Return when ``effect`` may reach the device; raise :class:`InputHeld` if not."""
        ...


class InputHeld(ActionRejected):
    """The choke point held an input: ``request`` is what a human was (or would be) asked,
    ``answer`` what they said (``None``: nobody could be asked; ``False``: no)."""

    def __init__(self, message: str, *, serial: str, request: Any,
                 answer: bool | None) -> None:
        super().__init__(message, serial=serial)
        self.request, self.answer = request, answer


class HumanHands:
    """The :class:`Reviewer` of the human's own gestures (the mirror's takeover): the one
    caller whose inputs are not judged — a human is not asked about what they do."""

    unseen = False

    def review(self, planned: Sequence[Planned], screen: Observation | None) -> int | None:
        return None

    def stopped(self, why: str, screen: Observation | None) -> None:
        return None


__all__ = ["ActionPort", "Device", "HumanHands", "ImmediatePort", "InputEffect", "InputHeld",
           "InputJudge", "InputScene", "Planned", "PortFailed", "Reviewer"]
