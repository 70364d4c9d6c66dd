"""Accessibility tree → the compact element list the agent reasons over.

``parse_elements`` reads a ``uiautomator dump`` (from a phone, uiautomator2 or the vphone)
and returns a flat tuple of :class:`~omg_agent.core.observation.UIElement`, numbered 1..N in
document order:

* invisible (``visible-to-user="false"``) subtrees and zero-size nodes are dropped;
* every clickable, long-clickable, scrollable, checkable or editable node is kept;
* a non-interactive node with text (or a description) inside a clickable ancestor is merged
  into that ancestor — the ancestor takes the first text if it has none, later texts go to
  ``extra_texts`` — and disappears; a scrollable node stops merging upwards;
* other nodes are kept only if they carry text or a description (pure layout is dropped).

The text form of the list (for prompts, the CLI and the bench) is
:mod:`omg_agent.perception.elementlist`; ``changed_elements`` diffs two lists, catching
small changes (a toggled switch, a typed character) that a perceptual screen hash may not
resolve. DESIGN.md §4.
"""

from __future__ import annotations

import logging
import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field

from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import UIElement
from omg_agent.errors import UITreeError

log = logging.getLogger(__name__)

_EDIT_CLASSES = ("EditText", "AutoCompleteTextView", "SearchView$SearchAutoComplete")
_LIST_CLASSES = ("RecyclerView", "ListView", "ScrollView", "GridView", "ViewPager",
                 "HorizontalScrollView", "NestedScrollView")
_STATE_FIELDS = ("text", "desc", "extra_texts", "checked", "focused", "enabled", "selected")


@dataclass
class _Pending:
    """An element being built while walking the tree (ids are given at the end)."""

    attrs: dict[str, str]
    bounds: Bounds
    text: str
    desc: str
    extra_texts: list[str] = field(default_factory=list)

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
    def absorbs(self) -> bool:
        """Whether texts of non-interactive descendants merge into this node."""
        return (self.flag("clickable") or self.flag("long-clickable")) and not self.editable

    def absorb(self, child: _Pending) -> None:
        for value in (child.text, child.desc, *child.extra_texts):
            if not value or value in (self.text, self.desc) or value in self.extra_texts:
                continue
            if not self.text:
                self.text = value
            else:
                self.extra_texts.append(value)


def parse_elements(xml: str) -> tuple[UIElement, ...]:
    """The compact element list of a ``uiautomator dump``."""
    root = _parse(xml)
    out: list[_Pending] = []
    for node in [root] if root.tag == "node" else root.findall("node"):
        _walk(node, None, out)
    return tuple(_element(i, p) for i, p in enumerate(out, start=1))


def _parse(xml: str) -> ET.Element:
    # `uiautomator dump /dev/tty` appends a status line; some tools prepend one.
    start, end = xml.find("<"), xml.rfind(">")
    if start < 0 or end < start:
        raise UITreeError("no XML in the hierarchy dump")
    try:
        return ET.fromstring(xml[start:end + 1])
    except ET.ParseError as e:
        raise UITreeError(f"hierarchy dump is not well-formed XML: {e}") from None


def _walk(node: ET.Element, host: _Pending | None, out: list[_Pending]) -> None:
    attrs = node.attrib
    if attrs.get("visible-to-user") == "false":
        return
    try:
        bounds = Bounds.parse(attrs.get("bounds", ""))
    except ValueError:
        log.debug("node without readable bounds skipped: %s", attrs.get("class"))
        bounds = Bounds(0, 0, 0, 0)
    me = _Pending(dict(attrs), bounds, attrs.get("text", ""), attrs.get("content-desc", ""))
    child_host = host
    if not bounds.empty:
        if me.interactive:
            out.append(me)
            if me.absorbs:
                child_host = me
            elif me.flag("scrollable"):
                child_host = None
        elif me.text or me.desc:
            if host is not None:
                host.absorb(me)
            else:
                out.append(me)
    for child in node.findall("node"):
        _walk(child, child_host, out)


def _element(element_id: int, p: _Pending) -> UIElement:
    return UIElement(
        id=element_id, cls=p.attrs.get("class", ""), role=_role(p), bounds=p.bounds,
        text=p.text, desc=p.desc, resource_id=p.attrs.get("resource-id", ""),
        package=p.attrs.get("package", ""), extra_texts=tuple(p.extra_texts),
        clickable=p.flag("clickable"), long_clickable=p.flag("long-clickable"),
        scrollable=p.flag("scrollable"), checkable=p.flag("checkable"),
        checked=p.flag("checked"), focused=p.flag("focused"),
        enabled=p.attrs.get("enabled", "true") != "false", password=p.flag("password"),
        editable=p.editable, selected=p.flag("selected"),
    )


def _role(p: _Pending) -> str:
    short = p.attrs.get("class", "").rsplit(".", 1)[-1]
    tappable = p.flag("clickable") or p.flag("long-clickable")
    rules: list[tuple[bool, str]] = [
        (p.editable, "input"),
        ("Switch" in short or "Toggle" in short, "switch"),
        ("CheckBox" in short or "CheckedTextView" in short, "checkbox"),
        ("RadioButton" in short, "radio"),
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


# -- diffing ------------------------------------------------------------------------------
@dataclass(frozen=True)
class ElementChange:
    """One difference between two element lists: added (``old`` None), removed (``new``
    None), or changed in ``fields``."""

    old: UIElement | None
    new: UIElement | None
    fields: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        if self.old is None:
            return "added"
        return "removed" if self.new is None else "changed"


def changed_elements(old: Sequence[UIElement], new: Sequence[UIElement]) -> list[ElementChange]:
    """What differs between two element lists, matching elements by class, id and bounds.

    A toggled switch or typed text shows as ``changed``; a scroll or a new screen shows as
    elements ``removed`` and ``added``. Empty when the lists show the same UI state.
    """
    def key(e: UIElement) -> tuple:
        return (e.cls, e.resource_id, e.bounds)

    pool: dict[tuple, list[UIElement]] = {}
    for e in old:
        pool.setdefault(key(e), []).append(e)
    changes: list[ElementChange] = []
    for e in new:
        bucket = pool.get(key(e))
        if not bucket:
            changes.append(ElementChange(None, e))
            continue
        before = bucket.pop(0)
        diff = tuple(f for f in _STATE_FIELDS if getattr(before, f) != getattr(e, f))
        if diff:
            changes.append(ElementChange(before, e, diff))
    changes.extend(ElementChange(e, None) for bucket in pool.values() for e in bucket)
    return changes
