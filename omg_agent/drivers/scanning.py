"""The ``scan`` action on a device: scroll a list from its top to its end, no model call.

:class:`ListScanner` is the executor's (:mod:`.executor`) for one driver. It swipes through
the driver's :class:`~omg_agent.drivers.ports.ActionPort` and looks with the driver's
``observe`` — so the adb, u2 and desktop drivers scan the same way — and merges what each
page shows with :mod:`omg_agent.perception.listpages` (items by identity, not position).

* It first goes back to the list's top (swiping down until the content stops moving), then
  reads page after page, each swipe moving :data:`SWIPE_SHARE` of the list's height so a
  row cut at one page's edge shows whole on the next.
* It stops at the end (the content stops moving), after ``count`` items, once
  ``until_text`` shows, or at a bound (:data:`MAX_PAGES` pages, :data:`MAX_ITEMS` items) —
  an endless list stops there and the report says the list may go on.
* A screen with no scrolling list is read as it is: its items, and a note saying so; one
  that a popup or dialog covers is refused, naming the popup's buttons (dismiss it first).
* :meth:`ListScanner.reach` scrolls back to an item of the last scan: a later tap on an
  anchor the screen does not show, but the scan read (any text of the item: its like
  button's description too), swipes toward the page it was read on until it shows — as a
  bundle's first action, or first after a screen change once the scanned list shows.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from omg_agent.core.actions import AnchorTarget, Scan
from omg_agent.core.geometry import Bounds, Point
from omg_agent.core.observation import Observation, UIElement
from omg_agent.errors import ActionRejected
from omg_agent.perception.anchor import match_anchor
from omg_agent.perception.listpages import (
    ListItem,
    ListMerge,
    ListPage,
    anchor_of,
    over_app,
    read_page,
    same_item,
)
from omg_agent.perception.textmatch import EXACT_TIERS, TextQuery

if TYPE_CHECKING:
    from omg_agent.drivers.ports import ActionPort, Device

log = logging.getLogger(__name__)

MAX_PAGES = 30  # swipes per scan (and per way, going to the top or reaching an item)
MAX_ITEMS = 200
SWIPE_SHARE = 0.6  # of the list's height: the rows at a page's edges show whole next
SWIPE_MS = 600  # slow enough not to fling past a page

StopKind = Literal["end", "count", "text", "pages", "items", "lost", "screen"]
Way = Literal["down", "up"]  # where the content goes: "down" reads further down the list


@dataclass
class ScanReport:
    """What a scan read: the merged items, why it stopped, what moved meanwhile."""

    items: list[ListItem]
    pages: int
    stop: StopKind
    changes: list[str] = field(default_factory=list)
    until: str = ""
    from_top: bool = True

    def render(self) -> str:
        """The report the model reads next turn: one line per item with its anchor."""
        n = len(self.items)
        why = {"end": "to the end of the list (it stopped moving)",
               "count": "stopped at the count asked for",
               "text": f"stopped where {self.until!r} shows",
               "pages": f"stopped after {self.pages} pages (the bound): the list may go on",
               "items": f"stopped at {MAX_ITEMS} items (the bound): the list may go on",
               "lost": "stopped: the list left the screen",
               "screen": "no scrolling list: these are the items on screen"}[self.stop]
        head = [f"scan read {n} item{'s' * (n != 1)} in {self.pages} page"
                f"{'s' * (self.pages != 1)}, {why}."]
        if not self.from_top:
            head.append("It could not reach the list's top: items above may be missing.")
        if self.changes:
            more = len(self.changes) - 5
            head.append("The list changed while it was read (the newest texts are kept): "
                        + "; ".join(self.changes[:5]) + (f"; {more} more" if more > 0 else "")
                        + ".")
        head.append("Each item: #id texts [anchor]; a tap on the anchor or any text of the item "
                    "scrolls back to it.")
        lines = []
        for item in self.items:
            anchor = anchor_of(item, self.items)
            where = json.dumps({anchor[0]: anchor[1]}, ensure_ascii=False) if anchor else \
                "no unique text"
            lines.append(f"#{item.id} {' | '.join(_shown(item))} [{where}]")
        return "\n".join(head + lines)


def _shown(item: ListItem) -> list[str]:
    """An item's texts without repeats (an avatar's description repeats the author)."""
    return list(dict.fromkeys(item.texts))


class ListScanner:
    """Scans for one driver (``device``) through its transport (``port``); remembers the
    last scan so a later tap can scroll back to what it read."""

    def __init__(self, device: Device, port: ActionPort) -> None:
        self.device = device
        self.port = port
        self.last: ScanReport | None = None
        self.at = 0  # the page of the last scan the list shows now

    # -- scanning -------------------------------------------------------------------------
    def scan(self, request: Scan, obs: Observation | None, index: int) -> ScanReport:
        obs = obs or self.device.observe()
        page = read_page(obs)
        if page is None:
            return self._screen(request, obs)
        page, obs, from_top = self._to_top(page, obs, index)
        merge = ListMerge()
        merge.add(page, 0)
        pages, stop = 1, self._stop(request, merge, page, obs)
        while stop is None:
            if pages >= MAX_PAGES:
                stop = "pages"
                break
            obs = self._swipe("down", page.container, obs, index)
            new = read_page(obs)
            if new is None:
                stop = "lost"
            elif new.signature == page.signature:
                stop = "end"
            else:
                merge.add(new, pages)
                pages, page = pages + 1, new
                stop = self._stop(request, merge, page, obs)
        items = merge.items[:request.count] if request.count else merge.items[:MAX_ITEMS]
        self.last = ScanReport(items, pages, stop, merge.changes, request.until_text or "",
                               from_top)
        self.at = pages - 1
        log.info("%s: scan read %d items in %d pages (%s)", self.device.serial, len(items),
                 pages, stop)
        return self.last

    def _screen(self, request: Scan, obs: Observation) -> ScanReport:
        """No scrolling list: the items the screen shows, read as one page of a list as
        tall as the screen (a settings page that fits; relay round 27 lost a bundle to a
        failed scan there)."""
        page = read_page(obs, _whole_screen(obs))
        if (page is None or not page.items) and (popup := over_app(obs)):
            buttons = ", ".join(repr(e.label) for e in popup if e.clickable and e.label)
            raise ActionRejected("scan: a popup covers the screen: dismiss it first"
                                 + (f" (its buttons: {buttons})" if buttons else ""),
                                 serial=self.device.serial)
        if page is None or not page.items:
            raise ActionRejected("scan: no scrolling list and no text on this screen",
                                 serial=self.device.serial)
        merge = ListMerge()
        merge.add(page, 0)
        items = merge.items[:request.count] if request.count else merge.items[:MAX_ITEMS]
        self.last, self.at = ScanReport(items, 1, "screen"), 0
        return self.last

    def _to_top(self, page: ListPage, obs: Observation,
                index: int) -> tuple[ListPage, Observation, bool]:
        for _ in range(MAX_PAGES):
            obs = self._swipe("up", page.container, obs, index)
            new = read_page(obs)
            if new is None or new.signature == page.signature:
                return page, obs, True
            page = new
        return page, obs, False

    def _stop(self, request: Scan, merge: ListMerge, page: ListPage,
              obs: Observation) -> StopKind | None:
        if request.until_text and _shows(request.until_text, page, obs):
            return "text"
        if request.count and len(merge.items) >= request.count:
            return "count"
        return "items" if len(merge.items) >= MAX_ITEMS else None

    # -- scrolling back -------------------------------------------------------------------
    def knows(self, anchor: AnchorTarget) -> bool:
        """Whether the last scan read an item ``anchor`` names."""
        return self._page_of(anchor) is not None

    def shows_scanned(self, obs: Observation) -> bool:
        """Whether ``obs`` shows the list the last scan read (one of its items), so a
        swipe there moves that list and not another screen's."""
        page = read_page(obs) if self.last is not None else None
        return page is not None and self.last is not None and any(
            same_item(row.fields, item.fields) for row in page.items for item in self.last.items)

    def reach(self, anchor: AnchorTarget, obs: Observation, index: int) -> Observation:
        """Swipe toward the page the scan read ``anchor`` on until it shows (the screen
        after, whether it shows or not)."""
        page_no = self._page_of(anchor)
        page = read_page(obs)
        if page_no is None or page is None:
            return obs
        first: Way = "up" if page_no < self.at else "down"
        for way in (first, "down" if first == "up" else "up"):
            for _ in range(MAX_PAGES):
                obs = self._swipe(way, page.container, obs, index)
                self.at += 1 if way == "down" else -1
                if match_anchor(anchor, obs.elements, obs.screen.safe_zone) is not None:
                    return obs
                new = read_page(obs)
                if new is None or new.signature == page.signature:
                    break
                page = new
        return obs

    def _page_of(self, anchor: AnchorTarget) -> int | None:
        if self.last is None:
            return None
        wanted = [(anchor.text, "text"), (anchor.desc, "desc")]
        for item in self.last.items:
            for value, _ in wanted:
                if value is None:
                    continue
                query = TextQuery(value, anchor.match)
                limit = 4 if anchor.match == "contains" else EXACT_TIERS
                if any((tier := query.score(t)) is not None and tier <= limit
                       for t in item.texts):
                    return item.page
        return None

    # -- the device -----------------------------------------------------------------------
    def _swipe(self, way: Way, container: UIElement, obs: Observation,
               index: int) -> Observation:
        box = container.bounds
        x = box.left + box.width // 2
        near = box.top + round(box.height * (1 - SWIPE_SHARE) / 2)
        far = box.bottom - round(box.height * (1 - SWIPE_SHARE) / 2)
        start, end = (far, near) if way == "down" else (near, far)
        from omg_agent.drivers.ports import PortFailed

        self.port.begin(index)
        self.port.swipe(Point(x, start), Point(x, end), SWIPE_MS)
        try:
            self.port.batch()
        except PortFailed as exc:
            raise ActionRejected(f"scan: a swipe failed: {exc.detail}",
                                 serial=self.device.serial) from None
        self.device.wait_settled(previous=obs.screen_hash)
        return self.device.observe()


def _whole_screen(obs: Observation) -> UIElement:
    """A stand-in list container as large as the screen."""
    width, height = obs.screenshot.size
    return UIElement(0, "screen", "screen", Bounds(0, 0, width, height))


def _shows(text: str, page: ListPage, obs: Observation) -> bool:
    inside = [e for e in obs.elements if page.container.bounds.contains(e.center)]
    return match_anchor(AnchorTarget(text=text, match="contains"), inside) is not None
