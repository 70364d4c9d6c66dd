"""The choke point's seat in the drivers: :class:`JudgedPort`, the executor's port with the
:class:`~omg_agent.drivers.ports.InputJudge` in front of every verb.

DESIGN.md §5 "one choke point, closed world": whoever calls ``execute`` — the operator,
a flow's replay, a macro, the replay cache, MCP, the Python API, the CLI's device commands,
a recovery move, the list scanner's swipes, a launch by label — reaches the device through
these verbs, so each input is turned into an :class:`~omg_agent.drivers.ports.InputEffect`
and judged (:mod:`omg_agent.guards.choke`) before the transport sees it. The judge is
given the screen the input lands on (the one the segment was planned on, else the last one
seen, else a fresh look), the device's touch slop and a way to read pixels. Only the
human's own gestures (:class:`~omg_agent.drivers.ports.HumanHands`) pass unjudged.

A screen is trusted only as far as the inputs since it was seen are known to leave it: the
executor's own rule for going on within a segment (:func:`~omg_agent.core.actions.is_boundary`):
text typed into a field (the screen is updated with it, :func:`typed_screen`), a tap on an
edit field or a switch, a key that neither activates nor moves the focus. An input after
any other — a tap on a button, a swipe, Tab or the D-pad (the focus moved, maybe with
nothing drawn), SPACE — is judged on a fresh look once the screen settles; while inputs wait
in the port's queue (not on the device yet, so no look can show their effect) it is judged
with no screen at all: it cannot be classified, and is asked (attack round
"follow-through": [Tab, Space] on the control before Pay paid with no question, both keys
judged on the checkout screen as planned, where the focus was on "Navigate up").
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from omg_agent.core.actions import stays_on_screen
from omg_agent.core.geometry import Bounds, Point
from omg_agent.core.keys import BOUNDARY_KEYCODES, FOCUS_KEYCODES
from omg_agent.core.observation import Observation, OcrBox, UIElement
from omg_agent.drivers.ports import (
    ActionPort,
    Device,
    InputEffect,
    InputJudge,
    InputScene,
)

TOUCH_SLOP_DP = 8  # Android's ViewConfiguration touch slop
SLOP_MARGIN = 1.25  # judged a little wider than the device: what might be a tap is one


def touch_slop_px(density: int) -> int:
    """How far a touch may move (pixels) and still count as a tap, judged a little wider
    than Android's 8 dp so that no device's tap passes as a drag."""
    return math.ceil(TOUCH_SLOP_DP * (density or 160) / 160 * SLOP_MARGIN)


class JudgedPort:
    """``inner`` with ``judge`` asked before every verb (see the module docstring)."""

    def __init__(self, inner: ActionPort, judge: InputJudge, device: Device) -> None:
        self.inner, self.judge, self.device = inner, judge, device
        self.screen: Observation | None = None  # what the segment was planned on
        self.aim: UIElement | None = None  # what the executor resolved the action's touch to
        self._typed: InputEffect | None = None  # this action typed: an ENTER submits it
        # the screen an input that may change it was judged on: never the next one's scene
        self._changed: Observation | None = None
        self._queued = False  # inputs judged and waiting in the port's queue
        self._tapped_on: Observation | None = None  # the screen the last tap was placed on

    @property
    def calls(self) -> int:
        return self.inner.calls

    def begin(self, index: int) -> None:
        self._typed = None
        self.inner.begin(index)

    def tap(self, p: Point) -> None:
        self._tapped_on = self._judge(InputEffect("tap", p, element=self.aim))
        self.inner.tap(p)

    def double_tap(self, p: Point) -> None:
        self._judge(InputEffect("double_tap", p, element=self.aim))
        self.inner.double_tap(p)

    def long_press(self, p: Point, duration_ms: int) -> None:
        self._judge(InputEffect("long_press", p, duration_ms=duration_ms, element=self.aim))
        self.inner.long_press(p, duration_ms)

    def swipe(self, start: Point, end: Point, duration_ms: int) -> None:
        self._judge(InputEffect("swipe", start, end, duration_ms, element=self.aim))
        self.inner.swipe(start, end, duration_ms)

    def key(self, code: int) -> None:
        typed = self._typed
        if typed is not None:  # the ENTER of a typing action: judged as its submit
            self._judge(InputEffect("type", code=code, text=typed.text, field=typed.field,
                                    clear=typed.clear, submit=True))
        else:
            self._judge(InputEffect("key", code=code))
        self.inner.key(code)

    def type(self, text: str, *, clear: bool, field: UIElement | None,
             after_tap: bool) -> str:
        effect = InputEffect("type", text=text, field=field, clear=clear)
        # after its own focus tap, the text goes to the field that tap was placed on: it is
        # judged there, not on a look the focus itself changed (a placeholder gone)
        self._judge(effect, on=self._tapped_on if after_tap else None)
        label = self.inner.type(text, clear=clear, field=field, after_tap=after_tap)
        self._typed = effect
        if self.screen is not None:  # the next input of the segment finds the text there
            self.screen = typed_screen(self.screen, field, text, clear=clear)
        return label

    def start(self, package: str, *, restart: bool = False) -> None:
        self._judge(InputEffect("start", package=package))
        if restart:
            self.inner.start(package, restart=True)
        else:
            self.inner.start(package)

    def batch(self) -> list[int]:
        self._queued = False
        return self.inner.batch()

    def discard(self) -> None:
        self._queued = False
        self.inner.discard()

    def packages(self) -> list[str]:
        return self.inner.packages()

    def __getattr__(self, name: str) -> Any:  # what a transport offers besides its verbs
        found = getattr(self.inner, name)  # AttributeError when it has none (a phone: hotkey)
        if name != "hotkey":
            return found

        def hotkey(keys: list[str]) -> None:  # a desktop's key combination: judged too
            self._judge(InputEffect("key", code=None, text="+".join(keys)))
            found(keys)
        return hotkey

    # -- the scene -------------------------------------------------------------------------
    def _judge(self, effect: InputEffect, on: Observation | None = None) -> Observation | None:
        """Judge ``effect`` placed ``on`` a given screen, else where :meth:`_scene` says;
        the screen it was placed on."""
        scene = self._scene(effect) if on is None else InputScene(
            on, touch_slop_px(_density(self.device)), self._reader(on),
            look=None if self._queued else self.device.observe)
        self.judge.judge(effect, scene)
        self._queued = True
        if not keeps_screen(effect, scene.screen, self.aim) and scene.screen is not None:
            self._changed = scene.screen  # (placed on no screen: the one before stays stale)
        return scene.screen

    def _scene(self, effect: InputEffect) -> InputScene:
        screen = self.screen or self.device.last_observation
        if screen is not None and screen is self._changed and effect.verb != "start":
            if self._queued:  # its effect is not on the device yet: nothing shows it
                return InputScene(None, touch_slop_px(_density(self.device)))
            screen = self._look()  # an input since may have changed it
        if screen is None and effect.verb != "start":
            screen = self.device.observe()  # a touch is placed on a screen, never blind
        # the screen now shows none of the queued inputs' effects: no look compares with it
        look = None if self._queued else self.device.observe
        return InputScene(screen, touch_slop_px(_density(self.device)), self._reader(screen),
                          look=look)

    def _look(self) -> Observation:
        """The screen now, once it settles after the inputs sent (the segment's inputs
        after this are placed on it)."""
        settle = getattr(self.device, "wait_settled", None)
        if callable(settle):
            settle()
        screen = self.device.observe()
        if self.screen is not None:
            self.screen = screen
        return screen

    def _reader(self, screen: Observation | None) -> Any:
        ocr = getattr(self.device.anchorer, "ocr", None)
        if screen is None or ocr is None or not callable(getattr(ocr, "read", None)):
            return None

        def read(box: Bounds) -> tuple[OcrBox, ...]:
            return tuple(ocr.read(screen.screenshot, box, key=screen.screen_hash or None))
        return read


def keeps_screen(effect: InputEffect, screen: Observation | None,
                 aim: UIElement | None = None) -> bool:
    """Whether ``effect`` is known to leave ``screen`` as it is (or as :func:`typed_screen`
    records it): typing, a key that neither is a boundary nor moves the focus, a tap on an
    edit field or a switch (``aim``: what the tap was resolved to, else the element under
    it). The one rule for how far a screen is trusted: an input after one that does not
    keep it is judged on a fresh look — here for the port's verbs, and for a macro's chunk
    (:func:`omg_agent.macros.compile.plan_chunk` ends the chunk at such a tap)."""
    if effect.verb == "type" and not effect.submit:
        return True
    if effect.verb == "key":
        return effect.code is not None and effect.code not in BOUNDARY_KEYCODES \
            and effect.code not in FOCUS_KEYCODES
    if effect.verb != "tap" or screen is None or effect.point is None:
        return False
    p = effect.point
    under = aim if aim is not None and aim.bounds.contains(p) else \
        screen.element_at((p.x, p.y))
    return stays_on_screen(under)


def typed_screen(screen: Observation, field: UIElement | None, text: str, *,
                 clear: bool) -> Observation:
    """``screen`` as typing ``text`` into ``field`` (``None``: the focused one) leaves it:
    the field holds the text (after what it held, unless ``clear``), so an input after it
    in the same segment is judged on what it will act on — a Send tapped after its message
    was typed sends that message, not the empty box of the screen planned on. The segment
    review (:mod:`omg_agent.guards.gatekeeper`) and the choke point both use it. A password
    field stays as it was: a secret never joins a screen's text."""
    target = field if field is not None else screen.focused
    if target is None or not target.editable or target.password:
        return screen
    typed = dataclasses.replace(target, text=text if clear else target.text + text)
    elements = tuple(typed if e is target or e == target else e for e in screen.elements)
    return dataclasses.replace(screen, elements=elements)


@contextmanager
def looking_at(port: ActionPort, screen: Observation | None) -> Iterator[None]:
    """While the block runs, a judged ``port`` places inputs on ``screen`` (the one the
    segment was planned on); any other port is left as it is."""
    if not isinstance(port, JudgedPort):
        yield
        return
    port.screen = screen
    try:
        yield
    finally:
        port.screen = port.aim = None


def aim(port: ActionPort, element: UIElement | None, *, look: bool = False) -> None:
    """Tell a judged ``port`` what the next action's touch was resolved to; ``look``: the
    screen it was planned on is gone (a scan or a launch looked since)."""
    if isinstance(port, JudgedPort):
        port.aim = element
        if look:
            port.screen = None


def _density(device: Device) -> int:
    info = getattr(device, "info", None)
    try:
        return int(info().density) if callable(info) else 160
    except (AttributeError, TypeError, ValueError):
        return 160


def judge_of(driver: Any) -> InputJudge | None:
    """The choke point of the driver under any wrappers (``inner``), or ``None``."""
    seen: set[int] = set()
    while driver is not None and id(driver) not in seen:
        seen.add(id(driver))
        executor = getattr(driver, "_executor", None)
        if executor is not None:
            return getattr(executor, "judge", None)
        driver = getattr(driver, "inner", None)
    return None


__all__ = ["JudgedPort", "TOUCH_SLOP_DP", "aim", "judge_of", "keeps_screen", "looking_at",
           "touch_slop_px", "typed_screen"]
