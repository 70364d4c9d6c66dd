"""A scrolling list read page by page: the items each screen shows, merged by identity.

The ``scan`` action (issue 27) scrolls a list and hands the model one consolidated list
instead of one screenshot per page. This module is its pure part — the driver side that
swipes and observes is :mod:`omg_agent.drivers.scanning`:

* :func:`read_page` splits one observation's list into items. The element list is flat (no
  hierarchy), so items are found geometrically: the list is the largest scrollable element
  of the app; its rows repeat resource-ids, and the most repeated one that shows first in a
  row (a product's name, a post's author) is each item's *head*; an item is the elements
  from its head down to the next head. What shows above the first head is the tail of an
  item cut by the top edge (dropped: the page before showed it whole); the last item is
  *partial* when it is cut by the bottom edge or lacks fields the whole items have.
* :class:`ListMerge` merges pages by identity, not by position: a page's first items are
  the previous page's last ones (the scroll overlaps), found by comparing texts — the same
  texts, a partial row whose texts the whole row holds, or a row whose texts *changed* (the
  same head, at least half the same texts: the list changed while it was read, and the
  newer texts are kept). A page that does not overlap the previous one but repeats items
  seen before means the list moved under the scan: its items are matched against all
  items, and the scan says so.
* :func:`anchor_of` gives each item the text that finds it again (unique in the list).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from omg_agent.core.observation import Observation, UIElement

EDGE_PX = 2  # a row this close to the list's edge is cut by it
DESC = "@desc"  # marks a field read from a content-description


@dataclass(frozen=True)
class PageItem:
    """One row as one page shows it: its texts (in reading order) with the resource-id
    (or role) each came from."""

    fields: tuple[tuple[str, str], ...]  # (resource-id or role, text)
    whole: bool = True
    top: int = 0  # pixels, for the scroll back

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(t for _, t in self.fields)

    @property
    def head(self) -> str:
        return self.fields[0][1] if self.fields else ""


@dataclass(frozen=True)
class ListPage:
    container: UIElement
    items: tuple[PageItem, ...]
    signature: tuple[tuple[str, int], ...]  # texts and tops: equal pages did not move


def list_container(obs: Observation) -> UIElement | None:
    """The app's scrolling list: the largest scrollable element of its own window."""
    lists = [e for e in obs.elements if e.scrollable and not e.window]
    return max(lists, key=lambda e: e.bounds.area) if lists else None


OVER_APP = ("popup", "system")  # windows over the app's screen (perception/windows.py kinds)


def over_app(obs: Observation) -> list[UIElement]:
    """The elements of a popup, dialog or system panel over the app's screen (its list and
    text are then hidden: uiautomator lists nothing under a touch-modal window)."""
    return [e for e in obs.elements if e.window in OVER_APP]


def read_page(obs: Observation, container: UIElement | None = None) -> ListPage | None:
    """The items ``obs`` shows in its list (``None`` when it shows no scrolling list)."""
    box = container or list_container(obs)
    if box is None:
        return None
    members = sorted((e for e in obs.elements if e is not box and not e.scrollable
                      and not e.window and box.bounds.contains(e.center) and _texts(e)),
                     key=lambda e: (e.bounds.top, e.bounds.left))
    signature = tuple((t, e.bounds.top) for e in members for t in _texts(e))
    heads = _heads(members)
    tops = [h.bounds.top for h in heads]
    rows: list[list[UIElement]] = [[] for _ in heads]
    for e in members:  # a row runs from its head's top to the next head's
        at = bisect_right(tops, e.center.y) - 1
        if at >= 0:
            rows[at].append(e)
    full: dict[str, int] = {}
    for e in members:
        full[_key(e)] = max(full.get(_key(e), 0), e.bounds.height)
    items: list[PageItem] = []
    for head, row in zip(heads, rows, strict=True):
        # the head leads even when the top edge clips it below a neighbour (an avatar)
        row = [head, *(e for e in row if e is not head)]
        cut = any(e.bounds.height < full[_key(e)] - EDGE_PX and (
            e.bounds.top <= box.bounds.top + EDGE_PX
            or e.bounds.bottom >= box.bounds.bottom - EDGE_PX) for e in row)
        items.append(PageItem(tuple(_fields(row)), not cut, head.bounds.top))
    if len(items) > 1:  # a last row missing fields every whole row has was cut short
        every = set.intersection(*({k for k, _ in it.fields} for it in items[:-1]))
        last = items[-1]
        if not every <= {k for k, _ in last.fields}:
            items[-1] = PageItem(last.fields, False, last.top)
    return ListPage(box, tuple(items), signature)


def _texts(e: UIElement) -> list[str]:
    texts = [t for t in (e.text, *e.extra_texts) if t]
    if e.desc and e.desc not in texts:
        texts.append(e.desc)
    return texts


def _fields(row: Sequence[UIElement]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for e in row:
        if e.password:  # a secret is never read into a list
            continue
        key = _key(e)
        pairs = [(key, t) for t in (e.text, *e.extra_texts) if t]
        if e.desc and e.desc not in (t for _, t in pairs):
            pairs.append((key + DESC, e.desc))
        out += [p for p in pairs if p not in out]
    return out


def _key(e: UIElement) -> str:
    return e.resource_id.rsplit("/", 1)[-1] or e.role


def _heads(members: Sequence[UIElement]) -> list[UIElement]:
    """The first element of each row. Rows repeat resource-ids; of those repeated (nearly)
    the most — a row cut at an edge lacks some — the head is the one with the widest gap
    above it: the space between rows. Every element is its own row when nothing repeats."""
    counts = Counter(e.resource_id for e in members if e.resource_id)
    most = max(counts.values(), default=0)
    if most < 2:
        return list(members)
    gaps: dict[str, list[int]] = {}
    for before, e in zip(members, members[1:], strict=False):
        if e.resource_id and counts[e.resource_id] >= most - 1:
            gaps.setdefault(e.resource_id, []).append(e.bounds.top - before.bounds.bottom)
    if not gaps:
        return list(members)
    head = max(gaps, key=lambda rid: (sorted(gaps[rid])[len(gaps[rid]) // 2], counts[rid]))
    return [e for e in members if e.resource_id == head]


# -- merging ------------------------------------------------------------------------------
@dataclass
class ListItem:
    """One item of the merged list."""

    id: int
    fields: tuple[tuple[str, str], ...]
    page: int  # the page it was last seen whole on (0: the top of the list)
    whole: bool

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(t for _, t in self.fields)


def same_item(a: tuple[tuple[str, str], ...], b: tuple[tuple[str, str], ...]) -> str:
    """How rows ``a`` and ``b`` are the same item: ``"same"``, ``"partial"`` (one's texts
    are all in the other: a row cut by an edge), ``"changed"`` (same head, at least half
    the same texts), or ``""`` when they are different items."""
    if a == b:
        return "same"
    sa, sb = set(a), set(b)
    if sa and sb and (sa <= sb or sb <= sa):
        return "partial"
    if a and b and a[0] == b[0] and 2 * len(sa & sb) >= max(len(sa), len(sb)):
        return "changed"
    return ""


@dataclass
class ListMerge:
    """The items of every page read so far, each once."""

    items: list[ListItem] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)  # how the list moved while read
    _last: list[int] = field(default_factory=list)  # item indices the last page showed

    def add(self, page: ListPage, number: int) -> int:
        """Merge page ``number``; returns how many new items it brought."""
        rows = list(page.items)
        k = self._overlap(rows)
        shown: list[int] = []
        for j in range(k):
            index = self._last[len(self._last) - k + j]
            self._update(index, rows[j], number)
            shown.append(index)
        new = 0
        moved = k == 0 and bool(self._last)
        for row in rows[k:]:
            found = self._find(row, exclude=shown) if moved else None
            if found is None:
                self.items.append(ListItem(len(self.items) + 1, row.fields, number,
                                           row.whole))
                found, new = len(self.items) - 1, new + 1
            else:
                self._update(found, row, number)
            shown.append(found)
        if moved and new < len(rows):
            self._note(f"page {number + 1} did not follow on from page {number} (its items "
                       "were matched by their texts)")
        self._last = shown
        return new

    def _overlap(self, rows: list[PageItem]) -> int:
        """The most leading ``rows`` that are the last page's trailing items, in order."""
        last = self._last
        for k in range(min(len(last), len(rows)), 0, -1):
            if all(same_item(self.items[last[len(last) - k + j]].fields, rows[j].fields)
                   for j in range(k)):
                return k
        return 0

    def _find(self, row: PageItem, exclude: list[int]) -> int | None:
        """The item ``row`` is, by its texts: the same or partial first, else changed."""
        for levels in (("same", "partial"), ("changed",)):
            for i, item in enumerate(self.items):
                if i not in exclude and same_item(item.fields, row.fields) in levels:
                    return i
        return None

    def _update(self, index: int, row: PageItem, number: int) -> None:
        item = self.items[index]
        how = same_item(item.fields, row.fields)
        if how == "changed" and item.whole and row.whole:
            before = " · ".join(t for t in item.texts if t not in row.texts)
            after = " · ".join(t for t in row.texts if t not in item.texts)
            self._note(f"#{item.id} {before} -> {after}")
        if row.whole or not item.whole and len(row.fields) >= len(item.fields):
            item.fields, item.whole, item.page = row.fields, row.whole, number

    def _note(self, text: str) -> None:
        if text not in self.changes:
            self.changes.append(text)


def anchor_of(item: ListItem, items: Sequence[ListItem]) -> tuple[str, str] | None:
    """The anchor that finds ``item`` again — ``("text", …)`` or ``("desc", …)``: its
    first field no other item shows, a name before a number (a price or a count can
    change), else ``None``."""
    others = Counter(t for it in items if it is not item for t in set(it.texts))
    unique = [(k, t) for k, t in item.fields if not others[t]]
    unique.sort(key=lambda f: not any(c.isalpha() for c in f[1]))
    if not unique:
        return None
    key, text = unique[0]
    return ("desc" if key.endswith(DESC) else "text"), text
