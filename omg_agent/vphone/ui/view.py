"""Views: the one tree behind the vphone's pixels, its uiautomator XML and its hit testing.

Apps build a fresh tree from their state on every frame (immediate mode): there is no
retained widget state to drift out of sync. Bounds are absolute screen pixels
``(left, top, right, bottom)``. A scrollable container clips its children: children outside
its viewport are neither drawn, dumped nor hittable, and partly visible ones are dumped with
their bounds clipped, as a real RecyclerView behaves under uiautomator.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

Bounds = tuple[int, int, int, int]
Handler = Callable[[], object]  # a view callback; whatever it returns is ignored


@dataclass(eq=False)
class View:
    cls: str = "android.widget.FrameLayout"
    bounds: Bounds = (0, 0, 0, 0)
    text: str = ""
    resource_id: str = ""
    desc: str = ""
    package: str = ""
    kind: str = "box"  # how the renderer draws it: box, text, button, edit, switch, icon, ...
    style: dict = field(default_factory=dict)
    children: list[View] = field(default_factory=list)
    clickable: bool = False
    long_clickable: bool = False
    scrollable: bool = False
    checkable: bool = False
    checked: bool = False
    enabled: bool = True
    focusable: bool = False
    focused: bool = False
    password: bool = False
    selected: bool = False
    on_click: Handler | None = None
    on_long_click: Handler | None = None
    on_touch: Callable[[int, int], None] | None = None  # gets the tap point (sliders)
    on_scroll: Callable[[int], None] | None = None  # called with content delta in px (+ = down)
    on_swipe: Callable[[int], None] | None = None  # a horizontal swipe on it: dx in px (+ = right)
    hint: str = ""  # EditText: its placeholder (shown as the text while the field is empty)
    field_key: str | None = None  # EditText: the app field this view edits
    clips: bool = False  # children are clipped to this view's bounds
    opaque_to_tree: bool = False  # WebView-like: drawn, but exposes no child nodes
    modal: bool = False  # blocks hits to everything drawn before it

    def add(self, *views: View) -> View:
        self.children.extend(views)
        return self

    @property
    def center(self) -> tuple[int, int]:
        left, top, right, bottom = self.bounds
        return (left + right) // 2, (top + bottom) // 2

    def walk(self) -> Iterator[View]:
        yield self
        for child in self.children:
            yield from child.walk()


def contains(bounds: Bounds, x: int, y: int) -> bool:
    left, top, right, bottom = bounds
    return left <= x < right and top <= y < bottom


def intersect(a: Bounds, b: Bounds) -> Bounds | None:
    left, top = max(a[0], b[0]), max(a[1], b[1])
    right, bottom = min(a[2], b[2]), min(a[3], b[3])
    if right <= left or bottom <= top:
        return None
    return (left, top, right, bottom)


def visible_children(view: View, clip: Bounds) -> Iterator[tuple[View, Bounds]]:
    """Children with their visible bounds under ``clip`` (skipping fully hidden ones)."""
    child_clip = intersect(clip, view.bounds) if view.clips else clip
    if child_clip is None:
        return
    for child in view.children:
        shown = intersect(child.bounds, child_clip)
        if shown is not None:
            yield child, shown


def hit_test(root: View, x: int, y: int, want: Callable[[View], bool]) -> View | None:
    """The topmost view under (x, y) that ``want`` accepts; modal views block what is below."""
    return _hit(root, (0, 0, 1 << 30, 1 << 30), x, y, want)


def _hit(view: View, clip: Bounds, x: int, y: int, want: Callable[[View], bool]) -> View | None:
    shown = intersect(view.bounds, clip)
    if shown is None or not contains(shown, x, y):
        return None
    child_clip = intersect(clip, view.bounds) if view.clips else clip
    if child_clip is not None:
        for child in reversed(view.children):
            found = _hit(child, child_clip, x, y, want)
            if found is not None:
                return found
            if child.modal and contains(child.bounds, x, y):
                return child if want(child) else _Blocked
    return view if want(view) else None


# A sentinel returned when a modal view swallows a touch that nothing inside it accepted.
_Blocked = View(cls="blocked")


def is_blocked(view: View | None) -> bool:
    return view is _Blocked


def find(root: View, pred: Callable[[View], bool]) -> View | None:
    return next((v for v in root.walk() if pred(v)), None)
