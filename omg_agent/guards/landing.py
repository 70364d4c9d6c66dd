"""What an input does: the element it lands on and as what (:func:`landings`), the one
rule behind the choke point (:mod:`omg_agent.guards.choke`) and the operator's segment review
(:mod:`omg_agent.guards.gatekeeper`). See :mod:`omg_agent.guards.choke` for what each kind of
input is judged as.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from omg_agent.core.actions import (
    Action,
    DoubleTap,
    Key,
    LongPress,
    PointTarget,
    Swipe,
    Tap,
    TypeText,
)
from omg_agent.core.geometry import Bounds, Point
from omg_agent.core.keys import ACTIVATING_KEYCODES, HARMLESS_KEYCODES
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers.commands import PACKAGE_NAME, swipe_endpoints
from omg_agent.drivers.inputs import touch_slop_px
from omg_agent.drivers.ports import InputEffect, InputScene
from omg_agent.errors import AnchorNotFound
from omg_agent.guards.cues import label_class
from omg_agent.guards.sensitive import Decision, Gate, Sensitivity
from omg_agent.perception.anchor import Anchorer, is_tappable, tap_receiver

KEY_CALL, KEY_ENTER = 5, 66
ACTIVATING, HARMLESS = ACTIVATING_KEYCODES, HARMLESS_KEYCODES
SUBMITTING = frozenset({66, 160})  # in a text field: the field's action (send, search, go)
Touch = type[Tap] | type[LongPress] | type[DoubleTap]
TOUCHES: dict[str, Touch] = {"tap": Tap, "double_tap": DoubleTap, "long_press": LongPress}
LONG_PRESS_MS = 500  # a held touch within the slop is a long press
OCR_ROW = 4  # a label is read within this many slops above and below the point
SIDEWAYS = 2  # a swipe is sideways when it moves this many times more across than down
SWIPE_AWAY = 0.25  # a sideways swipe this share of the screen's width may remove a row


@dataclass(frozen=True)
class Landing:
    """What an input does, in the gate's terms: ``action`` (a tap, long press, double tap,
    typing or key the gate classifies) on ``element``, and the text read in its pixels."""

    action: Any
    element: UIElement | None
    ocr_text: str | None = None


def landings(effect: InputEffect, scene: InputScene) -> list[Landing] | str:
    """What ``effect`` does on ``scene``: the landings to judge (none: harmless), or why it
    cannot be classified."""
    screen = scene.screen
    if effect.verb == "start":
        return [] if PACKAGE_NAME.fullmatch(effect.package or "") else \
            f"starting {effect.package!r}, which is not a package name"
    if screen is None:
        return f"a {effect.verb} with no screen to place it on"
    match effect.verb:
        case "tap" | "double_tap" | "long_press":
            verb: Touch = TOUCHES[effect.verb]
            return [_touch(verb, effect.point, effect.element, scene, control=False)]
        case "swipe":
            return _swipe(effect, scene)
        case "type":
            field = effect.field if effect.field is not None else screen.focused
            typing = TypeText.model_construct(text=effect.text, clear=effect.clear,
                                              submit=effect.submit, target=None)
            return [Landing(typing, field)]
        case "key":
            return _key(effect.code, screen, scene)
    return f"an input the choke point does not know ({effect.verb})"


def _swipe(effect: InputEffect, scene: InputScene) -> list[Landing] | str:
    start, end = effect.point, effect.end
    if start is None or end is None:
        return "a swipe whose ends cannot be placed"
    if max(abs(end.x - start.x), abs(end.y - start.y)) <= scene.slop_px:  # Android: a tap
        verb = LongPress if effect.duration_ms >= LONG_PRESS_MS else Tap
        return [_touch(verb, p, effect.element, scene, control=False) for p in (start, end)]
    # a drag: judged where it ends — and, across a row, as the row's removal (last: the
    # allowed landing that is kept, so a run's ledger records the delete)
    return [_touch(Tap, end, None, scene, control=True), *_swiped_row(start, end, scene)]


def _swiped_row(start: Point, end: Point, scene: InputScene) -> list[Landing]:
    """A sideways swipe across a list row is swipe-to-delete in many apps (mail, to-do,
    expense lists): the row it starts on, as a swipe the gate classifies (none when the
    swipe is not sideways enough or starts on no row)."""
    screen = scene.screen
    assert screen is not None
    dx, dy = abs(end.x - start.x), abs(end.y - start.y)
    width = screen.screen.size[0]
    if dx < SIDEWAYS * dy or dx < SWIPE_AWAY * width:
        return []
    element = element_at(screen, start)
    row = tap_receiver(element, screen.elements) if element is not None else None
    if row is None or row.role != "item":
        return []
    height = screen.screen.size[1]

    def norm(p: Point) -> PointTarget:
        return PointTarget(x=min(1000, p.x * 1000 / width), y=min(1000, p.y * 1000 / height))

    swipe = Swipe.model_construct(from_=norm(start), to=norm(end), direction=None,
                                  distance=500, start=None, duration_ms=300)
    return [Landing(swipe, row)]


def _touch(verb: Touch, point: Point | None, hint: UIElement | None, scene: InputScene, *,
           control: bool) -> Landing:
    """The control under ``point`` (``hint``, what the executor resolved, when it covers
    the point); its pixels read when it has no label. ``control``: only a control counts
    (a drag ending on a paragraph is a scroll)."""
    screen = scene.screen
    assert screen is not None
    element = hint if hint is not None and point is not None and \
        hint.bounds.contains(point) else element_at(screen, point)
    receiver = tap_receiver(element, screen.elements) if element is not None else None
    width, height = screen.screen.size
    at = point or Point(0, 0)  # the gate reads only what kind of touch it is and where
    action = verb(target=PointTarget(x=min(1000, at.x * 1000 / width),
                                     y=min(1000, at.y * 1000 / height)))
    if control and (receiver is None or not is_tappable(receiver)):
        return Landing(action, None)
    ocr = _pixel_label(receiver, point, scene) if _unlabeled(receiver) else None
    return Landing(action, element, ocr)


def _key(code: int | None, screen: Observation, scene: InputScene) -> list[Landing] | str:
    focused = screen.focused
    control = focused is not None and not focused.editable and focused.enabled
    if code is None:  # a desktop hotkey
        return "a key combination on a focused control" if control else []
    if code == KEY_CALL:
        return [Landing(Key(key=KEY_CALL), None)]
    if code in ACTIVATING:
        if focused is None or not focused.enabled:
            return []
        if focused.editable:
            return [Landing(Key(key=KEY_ENTER), focused)] if code in SUBMITTING else []
        center = focused.bounds.center
        return [_touch(Tap, Point(center.x, center.y), focused, scene, control=False)]
    if code in HARMLESS or focused is None or not focused.enabled:
        return []
    if focused.editable:  # KEYCODE_PASTE puts the clipboard (a secret typed earlier) there
        return f"key {code} in the focused field {focused.label!r}, which it may fill or submit"
    return f"key {code} on the focused control {focused.label!r}"


def element_at(screen: Observation, point: Point | None) -> UIElement | None:
    """The smallest element under ``point`` (the one a touch there reaches first)."""
    if point is None:
        return None
    hits = [e for e in screen.elements if e.bounds.contains(point)]
    return min(hits, key=lambda e: (e.bounds.area, -e.id)) if hits else None


def _unlabeled(e: UIElement | None) -> bool:
    return e is None or not (e.text or e.desc)


def _pixel_label(e: UIElement | None, point: Point | None, scene: InputScene) -> str | None:
    """The words drawn where ``point`` lands in ``e`` (its row of the element's box, or the
    whole box for a key): a sensitive one first, else the nearest one."""
    screen = scene.screen
    if screen is None:
        return None
    box = e.bounds if e is not None else Bounds(0, 0, *screen.screenshot.size)
    if point is not None:
        reach = OCR_ROW * scene.slop_px
        row = Bounds(box.left, max(box.top, point.y - reach), box.right,
                     min(box.bottom, point.y + reach))
        box = row if row.bottom > row.top else box
    boxes = [b for b in screen.ocr or () if box.contains(b.bounds.center)]
    if not boxes and scene.read is not None:
        boxes = list(scene.read(box))
    if not boxes:
        return None
    at = point or box.center
    near = sorted(boxes, key=lambda b: abs(b.bounds.center.x - at.x)
                  + abs(b.bounds.center.y - at.y))
    return next((b.text for b in near if label_class(b.text) is not None), near[0].text)




# -- judging -------------------------------------------------------------------------------
def decide(gate: Gate, effect: InputEffect, scene: InputScene
           ) -> tuple[UIElement | None, Decision]:
    """The gate's decision on ``effect`` and the element it is about: the first landing
    that needs a human's yes (an effect that cannot be classified always does), else the
    last allowed one."""
    found = landings(effect, scene)
    screen = scene.screen
    if isinstance(found, str):
        return None, Decision("confirm", Sensitivity(
            "unclassified", f"the choke point cannot tell what it does: {found}",
            f"send an input it cannot classify ({found})",
            screen.package if screen is not None else ""))
    element, decision = None, Decision("allow")
    for landing in found:
        assert screen is not None, "landings are placed on a screen"
        element = landing.element
        decision = gate.check(landing.action, element, screen, ocr_text=landing.ocr_text)
        if decision.needs_confirmation:
            break
    return element, decision


DEFAULT_DP_WIDTH = 411  # a phone's width in dp, for a slop where the density is not known


def effect_of(action: Action, obs: Observation, anchorer: Anchorer,
              resolved: UIElement | None = None) -> InputEffect | None:
    """The effect a swipe or a key *action* will have on ``obs`` (its targets resolved as
    the executor does), for the segment review to judge it as the choke point will;
    ``None`` for other actions (judged by their target)."""
    match action:
        case Swipe():
            def at(target: Any) -> Point:
                return Point(*anchorer.resolve(target, obs).point)
            try:
                start, end = swipe_endpoints(obs.screen, action, at)
            except (AnchorNotFound, ValueError, TypeError):
                return InputEffect("swipe")  # nowhere to place it: unclassifiable
            return InputEffect("swipe", start, end, action.duration_ms, element=resolved)
        case Key():
            return InputEffect("key", code=None if action.combo else action.keycode)
    return None


def plan_scene(obs: Observation) -> InputScene:
    """The scene of a planned action: ``obs``, with a slop for a density guessed from the
    screen's width."""
    density = round(obs.screen.width / DEFAULT_DP_WIDTH * 160)
    return InputScene(obs, touch_slop_px(density))


__all__ = ["ACTIVATING", "HARMLESS", "Landing", "decide", "effect_of", "element_at",
           "landings", "plan_scene"]
