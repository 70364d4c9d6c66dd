"""``omg-agent bench perception DIR``: what the element list makes of real screens.

Every ``*.xml`` / ``*.uix`` file of a folder is read as a ``uiautomator dump``, parsed
(``perception.uitree``) and rendered (``perception.elementlist``); the raw XML is then read
again, independently, to check what the model is shown:

* ``interactive`` / ``kept`` — visible interactive nodes (in windows the list shows, centre
  not under a higher window) and how many have an element under their centre; unlabeled
  clickables filling their window that the list leaves out on purpose are counted apart
  (``fillers``);
* ``lost`` — labels of visible nodes missing from the rendered text, not counting those an
  explicit ``(+N more)`` accounts for (``more``);
* ``raw_tok`` / ``list_tok`` — token estimates of the XML and of the list;
* ``stacked`` — elements on the same bounds as another, and lines identical but for the id;
* ``under`` — elements whose centre a higher window covers; ``bars`` — elements of status
  or navigation bars in the list; ``unlabeled`` / ``tappable`` — tappables with no text,
  description or hint (``anonymous``: not even a resource id);
* the anchor check — for every labelled interactive element, an anchor by its label (text,
  else desc) is resolved over the list: ``ok`` (the point is inside the element),
  ``ambig`` (reported ambiguous with the element among its candidates), ``wrong`` (another
  element, silently). Files that are not dumps are listed with the error they raise.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from omg_agent.core.actions import AnchorTarget
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import UIElement
from omg_agent.errors import UITreeError
from omg_agent.perception.anchor import match_anchor
from omg_agent.perception.elementlist import MAX_EXTRA, render, shown, shown_extras
from omg_agent.perception.textmatch import clean_label
from omg_agent.perception.uitree import FILLER_SHARE, ParsedScreen, estimate_tokens, parse_screen
from omg_agent.perception.windows import Window, covered_by

SUFFIXES = (".xml", ".uix")
_ACTS = ("clickable", "long-clickable", "scrollable", "checkable")


@dataclass
class DumpStats:
    """The measurements of one dump (see the module docstring)."""

    name: str
    elements: int = 0
    interactive: int = 0
    kept: int = 0
    fillers: int = 0  # unlabeled clickables filling their window, left out on purpose
    labels: int = 0
    lost: int = 0
    more: int = 0
    raw_tok: int = 0
    list_tok: int = 0
    stacked: int = 0
    under: int = 0
    covered: int = 0
    bars: int = 0
    bars_left_out: int = 0
    tappable: int = 0
    unlabeled: int = 0
    anonymous: int = 0  # unlabeled and without a resource id either
    unlabeled_raw: int = 0
    anchors: int = 0
    ok: int = 0
    ambig: int = 0
    wrong: int = 0
    error: str = ""
    wrong_examples: tuple[str, ...] = ()


COUNTED = tuple(f.name for f in fields(DumpStats)
                if f.name not in ("name", "error", "wrong_examples"))


def dump_files(folder: Path) -> list[Path]:
    """The dump files of ``folder`` (sorted), recursively."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)


def measure(path: Path) -> DumpStats:
    """The measurements of one file."""
    stats = DumpStats(path.name)
    xml = path.read_text(encoding="utf-8", errors="replace")
    try:
        screen = parse_screen(xml)
    except UITreeError as exc:
        stats.error = str(exc)
        return stats
    text = render(screen.elements, screen.size)
    stats.elements = len(screen.elements)
    stats.raw_tok, stats.list_tok = estimate_tokens(xml), estimate_tokens(text)
    stats.covered, stats.bars_left_out = screen.covered, screen.bar_elements
    _nodes(screen, text, stats)
    _lines(screen, text, stats)
    _anchors(screen.elements, stats)
    return stats


def _rank(e: UIElement, windows: list[Window]) -> Window | None:
    same = [w for w in windows if w.label == e.window and (not e.window or w.package == e.package)]
    return max(same, key=lambda w: w.rank) if same else None


def _hidden(point: tuple[int, int], win: Window, windows: list[Window]) -> bool:
    return any(c.contains(point) for c in covered_by(win, windows))


def _nodes(screen: ParsedScreen, text: str, stats: DumpStats) -> None:
    """Raw nodes against the list: interactive ones kept, labels shown."""
    more_hidden = {t for e in screen.elements
                   for t in e.extra_texts[len(shown_extras(e.extra_texts)):]}
    stats.more = sum(len(e.extra_texts) - len(shown_extras(e.extra_texts))
                     for e in screen.elements)
    actors = [e for e in screen.elements if e.interactive]
    for win in screen.windows:
        if win.kind == "bar":
            continue
        for node in win.node.iter("node"):
            if node.get("visible-to-user") == "false":
                continue
            try:
                box = Bounds.parse(node.get("bounds", ""))
            except ValueError:
                continue
            if box.empty or _hidden(box.center, win, screen.windows):
                continue
            acts = any(node.get(f) == "true" for f in _ACTS) or node.get("password") == "true"
            acts = acts or node.get("class", "").endswith(("EditText", "AutoCompleteTextView"))
            if acts:
                kept = any(e.bounds.contains(box.center) or e.bounds == box for e in actors)
                filler = (not kept and box.area >= FILLER_SHARE * win.bounds.area
                          and node.get("scrollable") != "true")
                stats.fillers += filler
                stats.interactive += not filler
                stats.kept += kept
            if node.get("password") == "true":
                continue
            hint = clean_label(node.get("hint", ""))
            for key in ("text", "content-desc"):
                label = clean_label(node.get(key, ""))
                if not label or label.lower() == "null" or (key == "text" and label == hint):
                    continue
                stats.labels += 1
                if label in more_hidden:
                    continue
                probe = json.dumps(shown(label, MAX_EXTRA).rstrip("…"), ensure_ascii=False)
                stats.lost += probe[1:-1] not in text


def _lines(screen: ParsedScreen, text: str, stats: DumpStats) -> None:
    places: dict[Bounds, int] = {}
    for e in screen.elements:
        places[e.bounds] = places.get(e.bounds, 0) + 1
    bodies = [line.split("] ", 1)[-1] for line in text.splitlines() if line.startswith("[")]
    stats.stacked = (sum(n for n in places.values() if n > 1)
                     + len(bodies) - len(set(bodies)))
    bars = [w for w in screen.windows if w.kind == "bar"]
    for e in screen.elements:
        win = _rank(e, screen.windows)
        if win is not None and _hidden(e.center, win, screen.windows):
            stats.under += 1
        stats.bars += any(w.bounds.contains(e.center) and e.package == w.package for w in bars)
        if e.clickable or e.long_clickable or e.checkable or e.editable:
            stats.tappable += 1
            unlabeled = not (e.text or e.desc or e.hint)
            stats.unlabeled += unlabeled
            stats.anonymous += unlabeled and not e.resource_id
    stats.unlabeled_raw = _unlabeled_raw(screen)


def _unlabeled_raw(screen: ParsedScreen) -> int:
    """Tappable nodes of the shown windows with no text or description of their own or of
    any descendant: what a naive list would show unlabeled."""
    count = 0
    for win in screen.windows:
        if win.kind == "bar":
            continue
        for node in win.node.iter("node"):
            if not any(node.get(f) == "true" for f in ("clickable", "long-clickable",
                                                        "checkable")):
                continue
            count += not any(clean_label(n.get("text", "")) or clean_label(
                n.get("content-desc", "")) for n in node.iter("node"))
    return count


def _anchors(elements: tuple[UIElement, ...], stats: DumpStats) -> None:
    wrong: list[str] = []
    for e in elements:
        if not e.interactive or not (e.text or e.desc):
            continue
        target = (AnchorTarget(text=e.text) if e.text and not e.password
                  else AnchorTarget(desc=e.desc) if e.desc else None)
        if target is None:
            continue
        stats.anchors += 1
        found = match_anchor(target, elements)
        if found is not None and e.bounds.contains(found.element.bounds.center):
            stats.ok += 1
        elif found is not None and e in found.candidates:
            stats.ambig += 1
        else:
            stats.wrong += 1
            got = "nothing" if found is None else f"[{found.element.id}]"
            wrong.append(f"[{e.id}] {e.label!r} -> {got}")
    stats.wrong_examples = tuple(wrong[:5])


def totals(rows: list[DumpStats]) -> DumpStats:
    """The sums over ``rows`` (files that raised are not counted)."""
    total = DumpStats("TOTAL")
    for r in rows:
        if r.error:
            continue
        for name in COUNTED:
            setattr(total, name, getattr(total, name) + getattr(r, name))
    return total


_COLUMNS = ("elements", "interactive", "kept", "labels", "lost", "more", "raw_tok",
            "list_tok", "stacked", "under", "bars", "unlabeled", "anonymous", "tappable",
            "anchors", "ok", "ambig", "wrong")


def table(rows: list[DumpStats]) -> str:
    """A markdown table: one row per dump, then the totals, then the files that raised."""
    head = "| dump | " + " | ".join(_COLUMNS) + " |"
    lines = [head, "|" + "---|" * (len(_COLUMNS) + 1)]
    good = [r for r in rows if not r.error]
    for r in [*good, totals(rows)]:
        name = f"**{r.name}**" if r.name == "TOTAL" else r.name
        lines.append(f"| {name} | " + " | ".join(str(getattr(r, c)) for c in _COLUMNS) + " |")
    t = totals(rows)
    ratio = t.raw_tok / t.list_tok if t.list_tok else 0.0
    lines.append("")
    lines.append(f"{len(good)} dumps: {t.kept}/{t.interactive} interactive nodes kept "
                 f"({t.fillers} unlabeled full-window fillers left out); "
                 f"{t.lost} of {t.labels} labels lost ({t.more} behind an explicit "
                 f"'+N more'); tokens {t.raw_tok} → {t.list_tok} ({ratio:.1f}× fewer); "
                 f"{t.stacked} stacked/duplicate; {t.under} under a higher window "
                 f"({t.covered} covered elements left out); {t.bars} system-bar elements "
                 f"listed ({t.bars_left_out} left out); {t.unlabeled} of {t.tappable} "
                 f"tappables unlabeled, {t.anonymous} of them without a resource id either "
                 f"(raw tree: {t.unlabeled_raw} tappable nodes without any text); "
                 f"anchors {t.ok} ok, {t.ambig} reported ambiguous, {t.wrong} wrong of "
                 f"{t.anchors}.")
    for r in rows:
        if r.wrong_examples:
            lines.append(f"wrong anchors in {r.name}: " + "; ".join(r.wrong_examples))
    for r in rows:
        if r.error:
            lines.append(f"not a dump: {r.name}: {r.error}")
    return "\n".join(lines)


def run(folder: Path) -> list[DumpStats]:
    """Measure every dump file of ``folder``."""
    return [measure(p) for p in dump_files(folder)]


def as_json(rows: list[DumpStats]) -> list[dict]:
    return [asdict(r) for r in [*rows, totals(rows)]]


def check_folder(folder: Path) -> None:
    """Raise ``ValueError`` naming what is wrong when ``folder`` holds no dump files."""
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder; give a folder of uiautomator dump "
                         f"files ({', '.join(SUFFIXES)})")
    if not dump_files(folder):
        raise ValueError(f"{folder} holds no {' or '.join(SUFFIXES)} files; give a folder "
                         f"of uiautomator dump files")


