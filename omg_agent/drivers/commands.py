"""Actions as device shell commands, and bundles of them as few shell calls as possible.

Pure functions, no I/O. The ADB driver resolves each action's target to pixels first
(``perception.anchor``), then asks this module for the command, then runs the packed calls
(DESIGN.md §3 "Within a boundary, actions are sent to the device as one batched shell call").

Joining: fragments of one call are joined with ``&&``, not ``;``. The actions of a bundle
depend on each other (the text goes into the field the tap before focused), so after a
failure — ``input`` refused by the security policy, a bad keycode, a missing package — the
rest must not run against a screen in an unknown state; and the call's exit status is then
the failed command's. No ``sleep`` goes between commands: ``input`` injects in
wait-for-finish mode, so an event has been dispatched to the app when the next one starts,
and the bundle ends at the first boundary anyway, so nothing runs after a screen change.
When a call carries several actions, ``echo OMG_OK:<i>`` after each action but the last tells
the driver how far a failed call got (:func:`completed_actions`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from omg_agent.core.geometry import NORM_MAX, Point, ScreenGeometry, norm_to_pixel
from omg_agent.drivers.appnames import lookup_app, normalize_name
from omg_agent.drivers.textinput import ime_envelope

if TYPE_CHECKING:  # the action models (pydantic) load with the first action, not with this
    from omg_agent.core.actions import Action, Back, Home, Key, Swipe

KEY_HOME, KEY_BACK = 3, 4
MAX_CALL_BYTES = 4000  # an OPEN payload every adbd accepts (Android < 9 caps it at 4096)
PACKAGE_NAME = re.compile(r"[A-Za-z]\w*(\.[A-Za-z_]\w*)+")
_DONE = re.compile(rb"^OMG_OK:(\d+)\r?$", re.MULTILINE)


# -- single actions ----------------------------------------------------------------------
def tap(p: Point) -> str:
    return f"input tap {p.x} {p.y}"


def double_tap(p: Point) -> str:
    """Two taps in one call: one shell start, so both land within the double-tap timeout."""
    return f"{tap(p)} && {tap(p)}"


def long_press(p: Point, duration_ms: int) -> str:
    """A swipe that does not move, held ``duration_ms``: how ``input`` long-presses."""
    return f"input swipe {p.x} {p.y} {p.x} {p.y} {duration_ms}"


def swipe(start: Point, end: Point, duration_ms: int) -> str:
    return f"input swipe {start.x} {start.y} {end.x} {end.y} {duration_ms}"


_AXIS = {"up": (1, -1), "down": (1, 1), "left": (0, -1), "right": (0, 1)}


def swipe_points(geometry: ScreenGeometry, start: Point | None, direction: str,
                 distance: int) -> tuple[Point, Point]:
    """Pixel endpoints of a swipe by ``direction`` over ``distance`` (0–1000 units).

    The distance scales with the axis it runs along (500 on a 2400 px tall screen is 1200 px
    up or down) and is what the finger travels, cut only where the safe zone ends (the
    status and nav bars, the side margins). A given ``start`` (pixels) stays where it is, so
    a swipe from near an edge toward it is short. Without one the swipe starts at the centre
    and, when the distance does not fit from there, the start moves back along the axis
    until it does: 600 up on a phone is 600, not the ~455 left above the centre.
    """
    if direction not in _AXIS:
        raise ValueError(f"unknown swipe direction {direction!r}; use up, down, left or "
                         "right")
    axis, sign = _AXIS[direction]
    travel = round(norm_to_pixel((distance, distance), geometry.size)[axis])
    zone = geometry.safe_zone
    lo, hi = (zone.left, zone.right - 1) if axis == 0 else (zone.top, zone.bottom - 1)
    moved = start is None
    first = list(geometry.clamp(start if start is not None
                                else geometry.to_pixels((NORM_MAX // 2, NORM_MAX // 2))))
    begin = first[axis]
    end = begin + sign * travel
    if moved:  # slide the whole path back inside, keeping its length while it fits
        shift = max(lo - end, 0) - max(end - hi, 0)
        begin = min(max(begin + shift, lo), hi)
    first[axis] = begin
    last = list(first)
    last[axis] = min(max(begin + sign * travel, lo), hi)
    return Point(*first), Point(*last)


def swipe_travel(geometry: ScreenGeometry, start: Point, end: Point) -> int:
    """How far a swipe from ``start`` to ``end`` (pixels) moves, in 0–1000 units of the axis
    it mostly runs along."""
    dx, dy = abs(end.x - start.x), abs(end.y - start.y)
    return round(dx * NORM_MAX / geometry.width if dx > dy else dy * NORM_MAX / geometry.height)


def swipe_endpoints(geometry: ScreenGeometry, action: Swipe,
                    resolve: Callable[[Any], Point]) -> tuple[Point, Point]:
    """Pixel start and end of a swipe action: ``from``/``to`` targets, or a start (default the
    centre) plus direction and distance. Point targets are taken as they are (a drag path is
    not snapped to elements); other targets go through ``resolve``."""
    from omg_agent.core.actions import PointTarget

    def point(target: Any) -> Point:
        if isinstance(target, PointTarget):
            return geometry.to_pixels((target.x, target.y))
        return resolve(target)

    if action.from_ is not None and action.to is not None:
        return point(action.from_), point(action.to)
    start = point(action.start) if action.start is not None else None
    return swipe_points(geometry, start, action.direction or "up", action.distance)


def targets_need_screen(action: Action) -> bool:
    """Whether resolving the action's targets needs an observation (anything but points)."""
    from omg_agent.core.actions import PointTarget, Swipe

    if isinstance(action, Swipe):
        return any(t is not None and not isinstance(t, PointTarget)
                   for t in (action.from_, action.to, action.start))
    return getattr(action, "target", None) is not None


def keyevent(*codes: int) -> str:
    if not codes:
        raise ValueError("keyevent needs at least one keycode")
    return "input keyevent " + " ".join(str(int(c)) for c in codes)


def back() -> str:
    return keyevent(KEY_BACK)


def home() -> str:
    return keyevent(KEY_HOME)


def launch(package: str, *, restart: bool = False) -> str:
    """Start ``package``'s launcher activity (``monkey`` resolves it on the device);
    ``restart``: force-stop it first, so it opens on its first screen."""
    stop = f"am force-stop {shlex.quote(package)}; " if restart else ""
    return (f"{stop}monkey -p {shlex.quote(package)} -c android.intent.category.LAUNCHER 1"
            " >/dev/null")


# -- app names --------------------------------------------------------------------------
def alias_package(app: str, aliases: Mapping[str, str]) -> str | None:
    """The package an alias table (name → package) gives ``app``, compared as people say app
    names (:mod:`omg_agent.drivers.appnames`: case, width, spaces and filler words)."""
    table: dict[str, list[str]] = {}
    for name, pkg in aliases.items():
        table.setdefault(pkg, []).append(name)
    hit = lookup_app(app, table)
    return hit if hit in table else None


def resolve_package(app: str, *, packages: Iterable[str] = (),
                    aliases: Mapping[str, str] | None = None) -> str | None:
    """The package ``app`` names, from the installed ``packages`` and an alias table.

    In order: an installed package name; an alias (e.g. ``{"备忘录": "com.omg.notes",
    "WeChat": "com.tencent.mm"}``, see :func:`alias_package`); an installed package whose
    last name segment is the app name (``Notes`` → ``com.omg.notes``); ``None`` if nothing
    (or more than one package) matches — then the driver looks for the label on the home
    screen. With no package list, a name that looks like a package is taken as one.
    """
    installed = list(packages)
    if app in installed:
        return app
    hit = alias_package(app, aliases or {})
    if hit is not None:
        return hit
    if not installed:
        return app.strip() if PACKAGE_NAME.fullmatch(app.strip()) else None
    wanted = normalize_name(app)
    hits = [p for p in installed if normalize_name(p.rsplit(".", 1)[-1]) == wanted]
    return hits[0] if len(hits) == 1 else None


# ``exec:`` has no exit status: a stream a device drop cut short reads like a short list, and
# the list is read once per run, so the end line proves the whole list arrived.
PACKAGES_END = "omg:packages-end"
PACKAGES_CMD = f"pm list packages; echo {PACKAGES_END}"


def parse_package_list(output: str) -> list[str]:
    """Package names from ``pm list packages`` output (``package:com.x`` per line)."""
    return [line.split(":", 1)[1].strip() for line in output.splitlines()
            if line.startswith("package:") and line.split(":", 1)[1].strip()]


def whole_package_list(output: str) -> list[str] | None:
    """The names of :data:`PACKAGES_CMD`'s output; None when its end line is missing (the
    answer was cut short: read it again)."""
    return parse_package_list(output) if output.rstrip().endswith(PACKAGES_END) else None


# -- batching ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """The fragments of one action, ready to be joined into a call."""

    index: int  # the action's position in the bundle
    fragments: tuple[str, ...]
    label: str  # what logs and errors may show (typed secrets are redacted)
    needs_ime: bool = False


@dataclass(frozen=True)
class ImeSwitch:
    """How to make the ADB-Keyboard IME current for a call, and what to restore after."""

    user_ime: str
    settle_s: float = 0.0


@dataclass(frozen=True)
class Call:
    """One shell round trip: the command line and the actions it finishes, in order."""

    command: str
    label: str
    indices: tuple[int, ...]  # actions whose last fragment is in this call


def _marker(index: int) -> str:
    return f"echo OMG_OK:{index}"


def pack(steps: Sequence[Step], *, ime: ImeSwitch | None = None,
         max_bytes: int = MAX_CALL_BYTES) -> list[Call]:
    """Join ``steps`` into as few calls as fit ``max_bytes`` each.

    A call holding a step that needs the IME is wrapped in :func:`~.textinput.ime_envelope`
    (select ADB-Keyboard, run, restore the user's IME), once for the whole call. A step
    longer than one call is spread over several (its fragments stay in order).
    """
    calls: list[Call] = []
    parts: list[str] = []
    labels: list[str] = []
    done: list[int] = []
    uses_ime = False

    def flush() -> None:
        nonlocal parts, labels, done, uses_ime
        if not parts:
            return
        body = " && ".join(parts)
        if uses_ime:
            if ime is None:
                raise ValueError("a step needs the ADB IME but no ImeSwitch was given")
            body = ime_envelope(body, user_ime=ime.user_ime, settle_s=ime.settle_s)
        calls.append(Call(body, "; ".join(labels), tuple(done)))
        parts, labels, done, uses_ime = [], [], [], False

    budget = max_bytes - 200  # room for the envelope
    for step in steps:
        if _merge_keys(parts, step):  # one `input` process for a run of key presses
            labels.append(step.label)
            done.append(step.index)
            continue
        if parts:  # the previous step finished in this call
            parts.append(_marker(done[-1]))
        for fragment in step.fragments:
            size = sum(len(p) + 4 for p in parts) + len(fragment)
            if parts and size > budget:
                if parts[-1].startswith("echo OMG_OK:"):
                    parts.pop()
                flush()
            parts.append(fragment)
            uses_ime = uses_ime or step.needs_ime
        if step.label not in labels:
            labels.append(step.label)
        done.append(step.index)
    flush()
    return calls


_KEYS = "input keyevent "


def _merge_keys(parts: list[str], step: Step) -> bool:
    """Append a lone key press to the previous ``input keyevent`` of this call, if that is
    the last command: ``input keyevent`` takes several codes and each ``input`` invocation
    costs a process start (a Java VM up to Android 11), so a run of keys costs one. The
    merged actions succeed or fail together."""
    if (len(step.fragments) != 1 or not step.fragments[0].startswith(_KEYS) or step.needs_ime
            or not parts or not parts[-1].startswith(_KEYS)
            or len(parts[-1]) + len(step.fragments[0]) > 1000):
        return False
    parts[-1] += " " + step.fragments[0][len(_KEYS):]
    return True


def completed_actions(call: Call, stdout: bytes, status: int) -> int:
    """How many of ``call.indices`` finished, from its exit status and markers.

    On failure the first unfinished action of the bundle is the one that failed (it may be
    an action that started in this call and was to finish in the next).
    """
    if status == 0:
        return len(call.indices)
    marks = {int(m.group(1)) for m in _DONE.finditer(stdout)}
    # Markers run in order, and merged key presses share the marker of their last action,
    # so the last marked action says how many finished.
    return max((pos + 1 for pos, index in enumerate(call.indices) if index in marks),
               default=0)


# -- what the executor reports to the model ----------------------------------------------
def model_units(geometry: ScreenGeometry, point: Point) -> str:
    """A pixel point as the model names points: 0–1000 of the screen's width and height
    (the executor's reports reach the model; pixels there read as the wrong place)."""
    n = geometry.to_normalized(point)
    return f"{n.x},{n.y}"


def swipe_report(geometry: ScreenGeometry, action: Swipe, start: Point, end: Point) -> str:
    """What a swipe by direction moved, in 0–1000 units, and whether the edge cut it."""
    if action.direction is None:
        return ""
    moved = swipe_travel(geometry, start, end)
    if moved >= action.distance - 1:  # a pixel of rounding is not a cut
        return f" (moved {moved} units {action.direction})"
    return (f" (moved {moved} of {action.distance} units {action.direction}: "
            "cut at the screen edge)")


def keycode_of(action: Key | Back | Home) -> int:
    """The keycode a key action sends (BACK and HOME have their own actions)."""
    from omg_agent.core.actions import Back, Key

    if isinstance(action, Key):
        return action.keycode
    return KEY_BACK if isinstance(action, Back) else KEY_HOME
