"""Accessibility tree → the compact element list the agent reasons over.

``parse_elements`` reads a ``uiautomator dump`` (from a phone, uiautomator2 or the vphone)
and returns a flat tuple of :class:`~omg_agent.core.observation.UIElement`, numbered 1..N,
window by window from the bottom one up (``perception.windows``), in document order within
a window:

* invisible (``visible-to-user="false"``) subtrees and zero-size nodes are dropped;
* elements a higher window covers are cut to what shows, or dropped when their centre is
  hidden (a keyboard over a form); the keyboard's own elements follow as their own group
  (``window="keyboard"``); status and navigation bars are left out unless asked for
  (``system_bars=True``) — the notification shade stays when it *is* the screen; under a
  touch-modal popup (a dialog, a menu, a system dialog: ``Window.modal``) the windows below
  offer nothing, as no tap reaches them;
* every clickable, long-clickable, scrollable, checkable or editable node is kept;
* a non-interactive node with text (or a description) inside a clickable ancestor is merged
  into that ancestor and disappears: the ancestor's label is its title child's text (an id
  naming a title or name), else the first text, else the first description; the other
  texts go to ``extra_texts``. Merging stops at scrollable nodes (checked first: a list that
  is also long-clickable keeps its rows) and at wrappers covering half their window or more;
* a clickable row whose only controls are check marks it toggles (checkable, not clickable
  themselves: a settings radio row's RadioButton and CheckedTextView title) becomes one
  element with their label, role and state; an unlabeled row with exactly one labelled
  control takes that label;
* elements stacked on the same bounds become one; an unlabeled wrapper filling its window
  around other elements is dropped;
* labels are cleaned (:func:`~omg_agent.perception.textmatch.clean_label`: icon-font glyphs,
  bidi and zero-width marks removed); ``content-desc="null"`` is no label; an input's
  ``hint`` is kept apart and a field whose text equals its hint reads as empty;
* other nodes are kept only if they carry text or a description (pure layout is dropped).

Anything that is not a uiautomator dump (an Appium page source, HTML) raises
:class:`~omg_agent.errors.UITreeError`. The text form of the list (for prompts, the CLI
and the bench) is :mod:`omg_agent.perception.elementlist`;
:func:`~omg_agent.perception.element_diff.changed_elements` diffs two lists, catching small
changes (a toggled switch, a typed character) that a perceptual screen hash may not resolve.
DESIGN.md §4.
"""

from __future__ import annotations

import logging
import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import UIElement
from omg_agent.errors import UITreeError
from omg_agent.perception.element_diff import ElementChange as ElementChange  # re-exported
from omg_agent.perception.element_diff import changed_elements as changed_elements
from omg_agent.perception.textmatch import clean_label
from omg_agent.perception.windows import (
    Window,
    covered_by,
    find_windows,
    under_modal,
    visible_part,
)

log = logging.getLogger(__name__)

_EDIT_CLASSES = ("EditText", "AutoCompleteTextView", "SearchView$SearchAutoComplete")
_LIST_CLASSES = ("RecyclerView", "ListView", "ScrollView", "GridView", "ViewPager",
                 "HorizontalScrollView", "NestedScrollView")
_TITLE_ID = re.compile(r"(?<!sub)title|name|label", re.IGNORECASE)
WRAPPER_SHARE = 0.5  # a clickable node covering this share of its window merges nothing
FILLER_SHARE = 0.9  # an unlabeled clickable this big around other elements is not listed
_FLAGS = ("clickable", "long-clickable", "scrollable", "checkable", "checked", "focused",
          "password", "selected")


@dataclass
class _Pending:
    """An element being built while walking the tree (ids are given at the end)."""

    attrs: dict[str, str]
    bounds: Bounds
    text: str
    desc: str
    hint: str = ""
    parent: _Pending | None = None  # the nearest interactive ancestor
    extra_texts: list[str] = field(default_factory=list)
    _titles: list[str] = field(default_factory=list)
    _texts: list[str] = field(default_factory=list)
    _descs: list[str] = field(default_factory=list)
    window: str = ""

    def flag(self, name: str) -> bool:
        return self.attrs.get(name) == "true"

    @property
    def editable(self) -> bool:
        cls = self.attrs.get("class", "")
        return self.flag("password") or cls.endswith(_EDIT_CLASSES)

    @property
    def interactive(self) -> bool:
        return (self.flag("clickable") or self.flag("long-clickable") or self.flag("scrollable")
                or self.flag("checkable") or self.editable)

    @property
    def labelled(self) -> bool:
        return bool(self.text or self.desc or self.hint)

    def absorb(self, child: _Pending) -> None:
        """Take a non-interactive child's texts (sorted out by :meth:`settle`)."""
        if child.text:
            titled = _TITLE_ID.search(child.attrs.get("resource-id", "").rsplit("/", 1)[-1])
            (self._titles if titled else self._texts).append(child.text)
        if child.desc:
            self._descs.append(child.desc)

    def settle(self) -> None:
        """Choose the label among absorbed texts: title, else text, else description."""
        for value in (*self._titles, *self._texts, *self._descs):
            if not value or value in (self.text, self.desc) or value in self.extra_texts:
                continue
            if not self.text:
                self.text = value
            else:
                self.extra_texts.append(value)
        self._titles, self._texts, self._descs = [], [], []


@dataclass
class ParsedScreen:
    """A parsed dump: its elements, its windows, and what was left out and why."""

    elements: tuple[UIElement, ...]
    windows: list[Window]
    size: tuple[int, int]
    covered: int = 0  # elements dropped because a higher window hides their centre
    bar_elements: int = 0  # elements of system bars left out


def parse_elements(xml: str, *, system_bars: bool = False) -> tuple[UIElement, ...]:
    """The compact element list of a ``uiautomator dump``."""
    return parse_screen(xml, system_bars=system_bars).elements


def parse_screen(xml: str, *, system_bars: bool = False) -> ParsedScreen:
    """:func:`parse_elements` with the windows and the counts of what was left out."""
    root = _parse(xml)
    roots = [root] if root.tag == "node" else root.findall("node")
    windows = find_windows(roots)
    width = max((w.bounds.right for w in windows), default=0)
    height = max((w.bounds.bottom for w in windows), default=0)
    out: list[_Pending] = []
    covered = bars = 0
    for win in windows:
        pending: list[_Pending] = []
        _walk(win.node, None, None, pending, win.bounds.area)
        pending = _tidy(pending, win.bounds.area)
        if win.kind == "bar" and not system_bars:
            bars += len(pending)
            continue
        if under_modal(win, windows):
            covered += len(pending)
            continue
        above = covered_by(win, windows)
        for p in pending:
            shown = visible_part(p.bounds, above) if above else p.bounds
            if shown is None:
                covered += 1
                continue
            p.bounds, p.window = shown, win.label
            out.append(p)
    elements = tuple(_element(i, p) for i, p in enumerate(out, start=1))
    return ParsedScreen(elements, windows, (width, height), covered, bars)


def _parse(xml: str) -> ET.Element:
    # `uiautomator dump /dev/tty` appends a status line; some tools prepend one.
    start, end = xml.find("<"), xml.rfind(">")
    if start < 0 or end < start:
        raise UITreeError("no XML in the hierarchy dump")
    try:
        root = ET.fromstring(xml[start:end + 1])
    except ET.ParseError as e:
        raise UITreeError(f"hierarchy dump is not well-formed XML: {e}") from None
    if root.tag == "node":
        return root
    children = {child.tag for child in root}
    if root.tag != "hierarchy" or children - {"node"}:
        found = f"<{root.tag}>" + (f" holding <{sorted(children - {'node'})[0]}>"
                                   if root.tag == "hierarchy" else "")
        raise UITreeError(f"not a uiautomator dump: found {found}; accepted: <hierarchy> "
                          f"of <node> elements, as `uiautomator dump` writes (an Appium "
                          f"page source names its elements by class and is not one)")
    return root


def _label(attrs: dict[str, str], key: str) -> str:
    value = clean_label(attrs.get(key, ""))
    return "" if key == "content-desc" and value.lower() == "null" else value


def _walk(node: ET.Element, host: _Pending | None, parent: _Pending | None,
          out: list[_Pending], window_area: int) -> None:
    attrs = node.attrib
    if attrs.get("visible-to-user") == "false":
        return
    try:
        bounds = Bounds.parse(attrs.get("bounds", ""))
    except ValueError:
        log.debug("node without readable bounds skipped: %s", attrs.get("class"))
        bounds = Bounds(0, 0, 0, 0)
    me = _Pending(dict(attrs), bounds, _label(attrs, "text"), _label(attrs, "content-desc"),
                  _label(attrs, "hint"), parent)
    if me.editable and me.hint and me.text == me.hint:
        me.text = ""  # the hint shown in an empty field is not its value
    child_host, child_parent = host, parent
    if not bounds.empty:
        if me.interactive:
            out.append(me)
            child_parent = me
            wrapper = window_area > 0 and bounds.area >= WRAPPER_SHARE * window_area
            if me.flag("scrollable") or wrapper:
                child_host = None
            elif (me.flag("clickable") or me.flag("long-clickable")) and not me.editable:
                child_host = me
        elif me.text or me.desc:
            if host is not None:
                host.absorb(me)
            else:
                out.append(me)
    for child in node.findall("node"):
        _walk(child, child_host, child_parent, out, window_area)


def _tidy(pending: list[_Pending], window_area: int) -> list[_Pending]:
    """Settle labels, lend rows their children's labels, fold stacks (see the docstring)."""
    for p in pending:
        p.settle()
    kids: dict[int, list[_Pending]] = {}
    for p in pending:
        if p.parent is not None and p.interactive:
            kids.setdefault(id(p.parent), []).append(p)
    gone: set[int] = set()
    for p in pending:
        mine = kids.get(id(p), [])
        if not (p.flag("clickable") and not p.editable):
            continue
        named = [k for k in mine if k.text or k.desc]
        if mine and len(named) <= 1 and all(_foldable(k, kids) for k in mine):
            _fold(p, mine)
            gone.update(id(k) for k in mine)
        elif (not p.labelled and p.bounds.area < WRAPPER_SHARE * window_area
              and len(named) == 1):  # a row of several labelled controls is no one's row
            p.text = named[0].text or named[0].desc
    kept = [p for p in pending if id(p) not in gone]
    return _destack(kept, window_area)


def _foldable(kid: _Pending, kids: dict[int, list[_Pending]]) -> bool:
    """A check mark the row's tap toggles: checkable, not tappable by itself, no children."""
    return (kid.flag("checkable") and not (kid.flag("clickable") or kid.flag("long-clickable"))
            and not kid.editable and not kids.get(id(kid)))


def _fold(row: _Pending, boxes: list[_Pending]) -> None:
    """A settings row and its check marks (a radio, a checkbox, its checked title) become
    one element: the row, labelled by the mark's text if it had none, with its state."""
    row.attrs["checkable"] = "true"
    if any(b.flag("checked") for b in boxes):
        row.attrs["checked"] = "true"
    marks = [b.attrs.get("class", "") for b in boxes]
    row.attrs["folded-class"] = next((c for c in marks if not c.endswith("CheckedTextView")),
                                     marks[0])
    for b in boxes:
        for value in (b.text, b.desc):
            if not value or value in (row.text, row.desc) or value in row.extra_texts:
                continue
            if not row.text:
                row.text = value
            else:
                row.extra_texts.append(value)


def _destack(pending: list[_Pending], window_area: int) -> list[_Pending]:
    by_place: dict[Bounds, _Pending] = {}
    out: list[_Pending] = []
    for p in pending:
        first = by_place.get(p.bounds)
        if first is None:
            by_place[p.bounds] = p
            out.append(p)
            continue
        _merge_into(first, p)
    def filler(p: _Pending) -> bool:
        return (p.flag("clickable") and not p.labelled and not p.flag("scrollable")
                and not p.editable and window_area > 0
                and p.bounds.area >= FILLER_SHARE * window_area
                and any(q is not p and p.bounds.intersection(q.bounds) == q.bounds
                        for q in out))

    return [p for p in out if not filler(p)]


def _merge_into(first: _Pending, other: _Pending) -> None:
    """Two elements on the same bounds become one: flags joined, labels kept."""
    for name in _FLAGS:
        if other.flag(name):
            first.attrs[name] = "true"
    if other.editable and not first.editable:
        first.attrs["class"] = other.attrs.get("class", "")
    for key in ("resource-id",):
        if not first.attrs.get(key) and other.attrs.get(key):
            first.attrs[key] = other.attrs[key]
    if not first.hint:
        first.hint = other.hint
    for value in (other.text, other.desc, *other.extra_texts):
        if not value or value in (first.text, first.desc) or value in first.extra_texts:
            continue
        if not first.text:
            first.text = value
        else:
            first.extra_texts.append(value)
    if first.attrs.get("class", "").rsplit(".", 1)[-1] in ("View", "FrameLayout",
                                                             "LinearLayout", "ViewGroup"):
        first.attrs["class"] = other.attrs.get("class", first.attrs.get("class", ""))


def _element(element_id: int, p: _Pending) -> UIElement:
    return UIElement(
        id=element_id, cls=p.attrs.get("class", ""), role=_role(p), bounds=p.bounds,
        text=p.text, desc=p.desc, resource_id=p.attrs.get("resource-id", ""),
        package=p.attrs.get("package", ""), extra_texts=tuple(p.extra_texts),
        clickable=p.flag("clickable"), long_clickable=p.flag("long-clickable"),
        scrollable=p.flag("scrollable"), checkable=p.flag("checkable"),
        checked=p.flag("checked"), focused=p.flag("focused"),
        enabled=p.attrs.get("enabled", "true") != "false", password=p.flag("password"),
        editable=p.editable, selected=p.flag("selected"), hint=p.hint, window=p.window,
    )


def _role(p: _Pending) -> str:
    short = (p.attrs.get("folded-class") or p.attrs.get("class", "")).rsplit(".", 1)[-1]
    tappable = p.flag("clickable") or p.flag("long-clickable")
    rules: list[tuple[bool, str]] = [
        (p.editable, "input"),
        ("Switch" in short or "Toggle" in short, "switch"),
        ("CheckBox" in short or "CheckedTextView" in short, "checkbox"),
        ("RadioButton" in short, "radio"),
        ("Spinner" in short, "dropdown"),  # shows its choice; a tap opens the others
        ("SeekBar" in short or "RatingBar" in short or "Slider" in short, "slider"),
        ("ProgressBar" in short, "progress"),
        ("WebView" in short, "web"),
        ("Button" in short, "button"),
        ("Image" in short, "button" if tappable else "image"),
        (p.flag("scrollable") or short.endswith(_LIST_CLASSES), "list"),
        ("Tab" in short, "tab"),
        (p.flag("checkable"), "checkbox"),
        (tappable and "Text" in short, "button"),
        (tappable, "item"),
        (bool(p.text), "text"),
    ]
    return next((role for hit, role in rules if hit), "view")


# -- sizes --------------------------------------------------------------------------------
def estimate_tokens(text: str) -> int:
    """A model-independent token estimate: one token per four characters.

    (tiktoken would need its encoding files downloaded at run time, which an offline
    install cannot do; both sides of every ratio we report use this same proxy.)
    """
    return math.ceil(len(text) / 4)
