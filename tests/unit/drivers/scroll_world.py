"""A scrolling list for the scan's unit tests: a device and a port over one viewport.

Rows are stacks of texts (each with a resource-id and a height); the viewport shows what
lies between the list's offset and offset + its height, clipped at both edges as Android
clips them; a swipe scrolls by the finger's travel, clamped at both ends. ``grow`` adds rows
when the end comes near (an endless list), ``on_scroll`` may change rows as the list moves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from PIL import Image

from omg_agent.core.geometry import Bounds, Point, ScreenGeometry
from omg_agent.core.observation import Observation, UIElement
from omg_agent.perception.anchor import Anchorer

GEO = ScreenGeometry(1000, 2000, status_bar=50, nav_bar=100)
LIST = Bounds(0, 200, 1000, 1800)
GAP = 30  # between rows

Row = list[tuple[str, str, int]]  # (resource-id, text, height)


def product(name: str, price: str) -> Row:
    return [("app:id/name", name, 60), ("app:id/price", price, 40)]


@dataclass
class ScrollWorld:
    rows: list[Row]
    offset: int = 0
    grow: Callable[[ScrollWorld], None] | None = None
    on_scroll: Callable[[ScrollWorld], None] | None = None
    taps: list[str] = field(default_factory=list)  # the text under each tap

    def height(self) -> int:
        return sum(sum(h for _, _, h in r) + GAP for r in self.rows)

    def scroll(self, by: int) -> None:
        before = self.offset
        self.offset = max(0, min(self.height() - LIST.height, self.offset + by))
        if self.offset != before and self.on_scroll is not None:
            self.on_scroll(self)
        if self.grow is not None and self.offset >= self.height() - 2 * LIST.height:
            self.grow(self)

    def elements(self) -> list[UIElement]:
        out = [UIElement(1, "androidx.recyclerview.widget.RecyclerView", "list", LIST,
                         resource_id="app:id/list", scrollable=True)]
        y = LIST.top - self.offset
        for row in self.rows:
            for rid, text, h in row:
                top, bottom = max(y, LIST.top), min(y + h, LIST.bottom)
                if bottom > top:
                    out.append(UIElement(len(out) + 1, "android.widget.TextView", "text",
                                         Bounds(0, top, 1000, bottom), text=text,
                                         resource_id=rid))
                y += h
            y += GAP
        return out

    def observation(self) -> Observation:
        return Observation(Image.new("RGB", GEO.size), tuple(self.elements()), package="app",
                           screen_hash=f"at {self.offset}", geometry=GEO)


class ScrollDevice:
    serial = "fake"

    def __init__(self, world: ScrollWorld) -> None:
        self.world = world
        self.geometry = GEO
        self.anchorer = Anchorer(GEO)
        self.last_observation: Observation | None = None
        self.observed = 0

    def observe(self, *, ocr: bool = False) -> Observation:
        self.observed += 1
        self.last_observation = self.world.observation()
        return self.last_observation

    def current_app(self) -> tuple[str, str]:
        return "app", ""

    def wait_settled(self, timeout: float | None = None, *, previous: str = "") -> bool:
        return True


class ScrollPort:
    """The port: swipes scroll the world, taps note what they land on."""

    def __init__(self, world: ScrollWorld) -> None:
        self.world = world
        self.calls = 0
        self.swipes = 0
        self._queued: list[int] = []
        self._acts: list[Callable[[], None]] = []

    def begin(self, index: int) -> None:
        self._queued.append(index)

    def tap(self, p: Point) -> None:
        def land() -> None:
            hit = [e for e in self.world.elements()[1:] if e.bounds.contains(p)]
            self.world.taps.append(hit[0].text if hit else "")
        self._acts.append(land)

    def swipe(self, start: Point, end: Point, duration_ms: int) -> None:
        def move() -> None:
            self.swipes += 1
            self.world.scroll(start.y - end.y)
        self._acts.append(move)

    def double_tap(self, p: Point) -> None:
        self.tap(p)

    def long_press(self, p: Point, duration_ms: int) -> None:
        self.tap(p)

    def key(self, code: int) -> None:
        pass

    def type(self, text: str, *, clear: bool, field: UIElement | None,
             after_tap: bool) -> str:
        return "typed"

    def start(self, package: str) -> None:
        pass

    def discard(self) -> None:
        self._queued.pop()

    def batch(self) -> list[int]:
        self.calls += 1
        for act in self._acts:
            act()
        ran, self._queued, self._acts = self._queued, [], []
        return ran

    def packages(self) -> list[str]:
        return ["app"]
