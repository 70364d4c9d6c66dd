"""Anchoring: turn a decision's target into the pixel point a driver taps.

A target (``core.actions``) is an element id, an anchor (``text=`` / ``desc=`` /
``resource_id=``, compared ``exact`` / ``contains`` / ``regex`` as in ``textmatch``), or a
0–1000 point. :meth:`Anchorer.resolve` answers with a :class:`Resolved`: the point, how it was
found (``source``), the element it lands on, and how far a raw point had to move. Evidence
is tried in the order of DESIGN.md §4:

1. ``element`` — the id in the observation's element list (exact bounds);
2. ``tree`` — the element list searched by text / extra texts / desc / hint /
   resource-id. Better tiers win (exact beats contains); among equals: the element that
   is (or sits in) a clickable one, enabled, on screen, then the smallest, then the
   topmost — and when
   equally good matches sit elsewhere the result names them (``candidates``, "ambiguous"
   in ``detail``) instead of choosing silently;
3. ``ocr`` — recognised text boxes (``observation.ocr``, else the OCR engine run on the
   screenshot: first on a crop around where the same text was found last time, then on the
   whole frame, whose read is cached by screen hash; boxes outside the safe zone are
   ignored) — for WebViews, canvases and games whose text is not in the tree;
4. ``grid`` — a labelled grid cell the model picks from the overlay of ``perception.grid``.
   An anchor or a point cannot name a cell, so this step is its own call,
   :meth:`Anchorer.resolve_cell`; the brain uses it when 1–3 raised ``AnchorNotFound``.

A raw point is clamped into the safe zone of the screen and then *snapped*: inside a
clickable element it stays put; otherwise it moves to the centre of the nearest clickable
element within the snap tolerance, and the distance it was off is logged and returned —
our answer to taps that land next to the button. A point that is off every clickable
element by more than the tolerance is accepted only when something is there to tap (a
text element under it, or drawn content around it: a WebView card the tree does not show);
on empty background it raises ``AnchorNotFound`` unless the caller passes ``allow_blind``.

Snap tolerance: 48 dp — Android's minimum touch-target size, so a point off by more than a
whole touch target is a different intention, not an imprecise tap (132 px at 440 dpi,
96 px at 320 dpi). Without the density we fall back to 60 px, the 48 dp of a ~200 dpi
screen: small enough not to pull taps across a list row on any phone.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageStat

from omg_agent.core.actions import AnchorTarget, ElementTarget, PointTarget
from omg_agent.core.geometry import Bounds, Point, ScreenGeometry
from omg_agent.core.observation import Observation, OcrBox, UIElement
from omg_agent.errors import AnchorNotFound
from omg_agent.perception.grid import Grid
from omg_agent.perception.ocr import OcrEngine, best_matches
from omg_agent.perception.textmatch import EXACT_TIERS, TextQuery

log = logging.getLogger(__name__)

TOUCH_TARGET_DP = 48
FALLBACK_SNAP_PX = 60
CONTENT_MIN_RANGE = 24  # grey levels: less than this around a point is "empty background"
_HINT_MARGIN = 0.5  # region OCR crops the last known box grown by this share of its size

GRID_NEXT = "next: pick a cell of the labelled grid"  # the model's next way; MCP words it


@dataclass(frozen=True)
class Resolved:
    """Where a target landed. ``snap_px`` is how far a raw point was off its element."""

    point: Point
    source: str  # "element" | "tree" | "ocr" | "grid" | "point"
    element: UIElement | None = None
    snap_px: float = 0.0
    detail: str = ""
    candidates: tuple[UIElement, ...] = ()  # other elements an ambiguous anchor names


def is_tappable(e: UIElement) -> bool:
    """Whether a tap (or typing) on ``e`` does something: the one rule the anchorer and the
    gate's re-tap check share."""
    return e.clickable or e.long_clickable or e.checkable or e.editable


def _describe(e: UIElement, matched: str | None = None) -> str:
    """How a result names ``e``: by ``matched`` (the text an anchor found) when given."""
    label = "<password>" if e.password else (
        matched or e.label or e.resource_id.rsplit("/", 1)[-1])
    return f"[{e.id}] {e.role} {label!r}"


class Anchorer:
    """Resolves targets on one screen geometry; holds the OCR engine and region hints."""

    def __init__(self, geometry: ScreenGeometry, ocr: OcrEngine | None = None,
                 snap_tolerance_px: int | None = None, *, density: int | None = None) -> None:
        self.geometry = geometry
        self.ocr = ocr
        if snap_tolerance_px is None:
            snap_tolerance_px = (round(TOUCH_TARGET_DP * density / 160) if density
                                 else FALLBACK_SNAP_PX)
        if snap_tolerance_px < 0:
            raise ValueError("snap tolerance must not be negative")
        self.snap_tolerance_px = snap_tolerance_px
        self._hints: dict[tuple[str, str], Bounds] = {}  # (package, text) -> last OCR box

    # -- entry points ----------------------------------------------------------------------
    def resolve(self, target: PointTarget | ElementTarget | AnchorTarget,
                observation: Observation | None, *, allow_blind: bool = False,
                region: Bounds | None = None) -> Resolved:
        """The pixel point for ``target`` on ``observation`` (raises ``AnchorNotFound``).

        ``region`` (pixels) limits OCR to a part of the screen when the caller knows where
        to look. Without an observation only a point with ``allow_blind`` can be resolved.
        """
        if observation is None:
            if isinstance(target, PointTarget) and allow_blind:
                raw = self.geometry.to_pixels((target.x, target.y))
                return Resolved(raw, "point", None, 0.0, "blind: no observation")
            raise AnchorNotFound(str(target), "nothing: no observation of the screen")
        match target:
            case ElementTarget():
                return self._by_id(target, observation)
            case AnchorTarget():
                return self._by_anchor(target, observation, region)
            case PointTarget():
                return self._by_point(target, observation, allow_blind)
        raise TypeError(f"not a target: {target!r}")

    @property
    def grid(self) -> Grid:
        """The labelled grid to draw for the model (``grid.draw(screenshot)``)."""
        return Grid.for_screen(self.geometry)

    def resolve_cell(self, label: str, observation: Observation) -> Resolved:
        """The centre of cell ``label`` (e.g. ``"C4"``) of :attr:`grid`, snapped like a raw
        point but never refused: the model chose the cell looking at the picture."""
        raw = self.geometry.clamp(self.grid.cell_center(label))
        snapped = self._snap(raw, observation.elements, allow_blind=True,
                             screenshot=observation.screenshot, label=f"cell {label}")
        return Resolved(snapped.point, "grid", snapped.element, snapped.snap_px,
                        f"cell {label.strip().upper()}: {snapped.detail}")

    def resolve_pixel(self, point: Point | tuple[int, int], observation: Observation, *,
                      allow_blind: bool = False) -> Resolved:
        """A pixel point (e.g. from ``--point`` or a recorded flow) clamped into the safe
        zone and snapped like a model's point."""
        raw = self.geometry.clamp(point)
        return self._snap(raw, observation.elements, allow_blind=allow_blind,
                          screenshot=observation.screenshot, label=f"pixel {tuple(point)}")

    # -- element id ------------------------------------------------------------------------
    def _by_id(self, target: ElementTarget, observation: Observation) -> Resolved:
        element = observation.element(target.id)
        if element is None:
            raise AnchorNotFound(f"element {target.id}",
                                 f"element list of {len(observation.elements)} elements")
        return Resolved(self._safe_center(element.bounds), "element", element, 0.0,
                        _describe(element))

    # -- anchors ---------------------------------------------------------------------------
    def _by_anchor(self, target: AnchorTarget, observation: Observation,
                   region: Bounds | None) -> Resolved:
        tried = [f"tree ({len(observation.elements)} elements)"]
        found = self.find_in_tree(target, observation.elements)
        if found is not None:
            return found
        if target.text is not None and target.resource_id is None and target.desc is None:
            hit, how = self._by_ocr(target, observation, region)
            tried.append(how)
            if hit is not None:
                return hit
        raise AnchorNotFound(_target_text(target), "; ".join(tried)
                             + "; " + GRID_NEXT)

    def find_in_tree(self, target: AnchorTarget,
                     elements: Sequence[UIElement]) -> Resolved | None:
        """The best element of ``elements`` for ``target``, or ``None``."""
        found = match_anchor(target, elements, self.geometry.safe_zone)
        if found is None:
            return None
        # named by the text that matched (a row found by "Bob" is not "'You: …'"); the tier
        # is ours, not the model's business
        detail = _describe(found.element, _matched_text(target, found.element))
        if found.host is not None and found.host is not found.element:
            detail += f" inside clickable {_describe(found.host)}"
        if found.candidates:
            detail += "; ambiguous, also: " + ", ".join(map(_describe, found.candidates))
            log.info("ambiguous anchor %s: %s", _target_text(target), detail)
        return Resolved(self._safe_center(found.element.bounds), "tree", found.target, 0.0,
                        detail, found.candidates)

    def _by_ocr(self, target: AnchorTarget, observation: Observation,
                region: Bounds | None) -> tuple[Resolved | None, str]:
        assert target.text is not None
        if observation.ocr is not None:
            hit = next(iter(best_matches(observation.ocr, target.text, target.match)), None)
            how = f"ocr boxes of the observation ({len(observation.ocr)})"
            return (self._ocr_result(hit, observation), how)
        if self.ocr is None:
            return None, "ocr (no engine)"
        key = (observation.package, target.text)
        # A crop first when we know where to look; then the whole frame, whose read is
        # cached by screen hash and shared with every other OCR user of this screen.
        regions = [r for r in (region, self._hint_region(key)) if r is not None]
        tried = []
        zone = self.geometry.safe_zone
        boxes: Sequence[OcrBox]
        for crop in (*dict.fromkeys(regions), None):
            boxes = self.ocr.read(observation.screenshot, region=crop,
                                  key=observation.screen_hash or None)
            tried.append(str(crop or "full frame"))
            boxes = [b for b in boxes if zone.contains(b.bounds.center)]
            hit = next(iter(best_matches(boxes, target.text, target.match)), None)
            if hit is not None:
                self._hints[key] = hit.bounds
                return self._ocr_result(hit, observation), ""
        return None, "ocr in " + ", ".join(tried)

    def _ocr_result(self, box: OcrBox | None, observation: Observation) -> Resolved | None:
        if box is None:
            return None
        point = self._safe_center(box.bounds)
        host = _smallest_tappable_at(point, observation.elements)
        detail = f"ocr {box.text!r} conf {box.confidence:.2f} at {box.bounds}"
        return Resolved(point, "ocr", host, 0.0, detail)

    def _hint_region(self, key: tuple[str, str]) -> Bounds | None:
        box = self._hints.get(key)
        if box is None:
            return None
        dx = max(round(box.width * _HINT_MARGIN), 24)
        dy = max(round(box.height * _HINT_MARGIN), 24)
        grown = Bounds(box.left - dx, box.top - dy, box.right + dx, box.bottom + dy)
        return grown.intersection(self.geometry.safe_zone)

    # -- points ----------------------------------------------------------------------------
    def _by_point(self, target: PointTarget, observation: Observation,
                  allow_blind: bool) -> Resolved:
        raw = self.geometry.to_pixels((target.x, target.y))
        return self._snap(raw, observation.elements, allow_blind=allow_blind,
                          screenshot=observation.screenshot,
                          label=f"point ({target.x:g},{target.y:g})")

    def _snap(self, raw: Point, elements: Sequence[UIElement], *, allow_blind: bool,
              screenshot: Image.Image | None, label: str = "") -> Resolved:
        inside = _smallest_tappable_at(raw, elements)
        if inside is not None:
            return Resolved(raw, "point", inside, 0.0, f"on {_describe(inside)}")
        near = [(e.bounds.distance_to(raw), e.bounds.area, e.id, e)
                for e in elements if is_tappable(e)]
        near = [n for n in near if n[0] <= self.snap_tolerance_px]
        if near:
            distance, *_, e = min(near)
            point = self._safe_center(e.bounds)
            log.info("snapped %s %.0f px onto %s at %s", label or raw, distance,
                     _describe(e), point)
            return Resolved(point, "point", e, distance,
                            f"snapped {distance:.0f} px onto {_describe(e)}")
        under = [e for e in elements if e.bounds.contains(raw)]
        if under:
            e = min(under, key=lambda u: u.bounds.area)
            return Resolved(raw, "point", e, 0.0, f"on non-clickable {_describe(e)}")
        if screenshot is not None and self._has_content(screenshot, raw):
            return Resolved(raw, "point", None, 0.0, "no element; drawn content under point")
        if allow_blind:
            log.info("blind point %s: nothing within %d px", raw, self.snap_tolerance_px)
            return Resolved(raw, "point", None, 0.0, "blind: empty background")
        raise AnchorNotFound(label or f"point {tuple(raw)}",
                             f"no clickable element within {self.snap_tolerance_px} px of "
                             f"pixel {tuple(raw)} and only empty background under it")

    def _has_content(self, screenshot: Image.Image, point: Point) -> bool:
        r = max(8, self.snap_tolerance_px // 2)
        x, y = point
        box = (max(0, x - r), max(0, y - r), min(screenshot.width, x + r + 1),
               min(screenshot.height, y + r + 1))
        lo, hi = ImageStat.Stat(screenshot.crop(box).convert("L")).extrema[0]
        return hi - lo >= CONTENT_MIN_RANGE

    def _safe_center(self, bounds: Bounds) -> Point:
        shown = bounds.intersection(self.geometry.safe_zone)
        return self.geometry.clamp((shown or bounds).center)


# -- the anchor matcher -------------------------------------------------------------------
@dataclass(frozen=True)
class AnchorMatch:
    """The element an anchor names, and the clickable element a tap on it lands on."""

    element: UIElement
    host: UIElement | None  # ``element`` itself when tappable, else the clickable around it
    tier: int  # the textmatch tier (0 identical … 4 substring)
    candidates: tuple[UIElement, ...] = ()  # as good matches elsewhere: the anchor is
    # ambiguous (the choice among them is by the tie-breaks below, and is reported)

    @property
    def ambiguous(self) -> bool:
        return bool(self.candidates)

    @property
    def target(self) -> UIElement:
        """What acting on the anchor acts on: the clickable host, else the element."""
        return self.host or self.element


def match_anchor(target: AnchorTarget, elements: Sequence[UIElement],
                 visible: Bounds | None = None) -> AnchorMatch | None:
    """The element of ``elements`` that ``target`` names, or ``None`` — the one matcher.

    Texts are compared with :class:`~omg_agent.perception.textmatch.TextQuery` (NFKC, case
    and spacing folded; ``contains`` and ``regex`` as asked). Better tiers win; among equals
    the element that is (or sits in) a clickable one, enabled, inside ``visible`` (pixels;
    every element counts as visible without it), then the smallest, then the topmost.
    Elements that match exactly as well (same tier and field, same kind of host) at places
    a tap on the chosen one does not reach are returned as ``candidates``.
    """
    queries = _queries(target)
    limit = 4 if target.match == "contains" else EXACT_TIERS
    # a description the model named is looked for in descriptions first: an element's text
    # stands in only when no description matches (a results title "“ThinkPad X1”" once
    # took a tap meant for the row whose desc is "联想 ThinkPad X1")
    field_first = "desc" in queries and "text" not in queries
    found: list[tuple[tuple, UIElement, UIElement | None]] = []
    for e in elements:
        tier = _element_tier(e, queries)
        if tier is None or (target.match != "regex" and tier[0] > limit):
            continue
        host = e if is_tappable(e) else _clickable_host(e, elements)
        hidden = visible is not None and not visible.contains(e.center)
        key = ((tier[1], tier[0]) if field_first else tier, host is None, not e.enabled,
               hidden, e.bounds.area, e.bounds.top, e.bounds.left)
        found.append((key, e, host))
    if not found:
        return None
    key, e, host = min(found, key=lambda f: f[0])
    point = e.bounds.center
    others = tuple(o for k, o, _ in found if o is not e and k[:2] == key[:2]
                   and not o.bounds.contains(point) and not e.bounds.contains(o.center))
    return AnchorMatch(e, host, key[0][1] if field_first else key[0][0], others)


# -- helpers -------------------------------------------------------------------------------
def _target_text(target: AnchorTarget) -> str:
    parts = [f"{k}={v!r}" for k in ("text", "desc", "resource_id")
             if (v := getattr(target, k)) is not None]
    return "anchor " + " ".join(parts) + f" ({target.match})"


def _matched_text(target: AnchorTarget, e: UIElement) -> str | None:
    """The text or description of ``e`` that ``target`` matched best, if any."""
    for key, query in _queries(target).items():
        if key == "resource_id":
            continue
        values = [e.desc, e.text] if key == "desc" else [e.text, *e.extra_texts, e.desc,
                                                           e.hint]
        scored = [(tier, i, v) for i, v in enumerate(values)
                  if v and (tier := query.score(v)) is not None]
        if scored:
            return min(scored)[2]
    return None


def _queries(target: AnchorTarget) -> dict[str, TextQuery]:
    return {k: TextQuery(v, target.match) for k in ("text", "desc", "resource_id")
            if (v := getattr(target, k)) is not None}


def _element_tier(e: UIElement, queries: dict[str, TextQuery]) -> tuple[int, int] | None:
    """(worst tier over the keys, field rank) for ``e``, or ``None`` if a key misses."""
    worst, rank = 0, 0
    for key, query in queries.items():
        if key == "text":
            fields = [] if e.password else [(e.text, 0)]
            fields += [(t, 1) for t in e.extra_texts] + [(e.desc, 1), (e.hint, 1)]
        elif key == "desc":
            fields = [(e.desc, 0), (e.text, 1)]
        else:
            short = e.resource_id.rsplit("/", 1)[-1]
            fields = [(e.resource_id, 0), (short, 0)]
        scored = [(tier, r) for value, r in fields if (tier := query.score(value)) is not None]
        if not scored:
            return None
        tier, r = min(scored)
        worst, rank = max(worst, tier), max(rank, r)
    return worst, rank


def tap_receiver(e: UIElement, elements: Sequence[UIElement]) -> UIElement:
    """The element a tap on ``e`` reaches: ``e`` if it is tappable, else the smallest
    tappable element around its centre (a text inside a row taps the row), else ``e``."""
    return e if is_tappable(e) else (_clickable_host(e, elements) or e)


def _clickable_host(e: UIElement, elements: Sequence[UIElement]) -> UIElement | None:
    hosts = [h for h in elements if is_tappable(h) and h.bounds.contains(e.center)]
    return min(hosts, key=lambda h: h.bounds.area) if hosts else None


def _smallest_tappable_at(point: Point, elements: Sequence[UIElement]) -> UIElement | None:
    hits = [e for e in elements if is_tappable(e) and e.bounds.contains(point)]
    return min(hits, key=lambda e: (e.bounds.area, -e.id)) if hits else None
