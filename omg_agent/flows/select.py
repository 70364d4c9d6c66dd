"""Finding a flow selector's element on one observation, with the one anchor matcher.

Text, resource-id and desc are compared by :func:`omg_agent.perception.anchor.match_anchor`
(one element at a time, so every candidate is judged by exactly the rule the executor uses;
no second matcher). What a selector adds on top is ordering and filtering: the n-th match
top to bottom (``index``), state (``enabled`` / ``checked`` / ``selected`` / ``focused``),
and position relative to another selector's element (``below`` / ``above`` / ``childOf``,
which are resolved first on the same screen). Plain words compare ``exact`` (NFKC, case and
spacing folded); text holding regex syntax compares as a regex, as in Maestro.
"""

from __future__ import annotations

import re

from omg_agent.core.actions import AnchorTarget, ElementTarget
from omg_agent.core.observation import Observation, UIElement
from omg_agent.flows.model import Condition, Selector
from omg_agent.perception.anchor import match_anchor

REGEX_SYNTAX = re.compile(r"[.*+?^$\\()\[\]{}|]")


def literal(text: str) -> str:
    """``text`` as a selector text that matches it literally (regex syntax escaped; plain
    words stay plain and compare exactly)."""
    return REGEX_SYNTAX.sub(lambda m: "\\" + m.group(0), text)


def anchor_of(selector: Selector) -> AnchorTarget | None:
    """The anchor for the selector's text / id / desc (``None`` when it names none)."""
    given = {"text": selector.text, "resource_id": selector.id, "desc": selector.desc}
    keys: dict[str, str] = {k: v for k, v in given.items() if v is not None}
    if not keys:
        return None
    regex = any(REGEX_SYNTAX.search(v) for k, v in keys.items() if k != "resource_id")
    if regex and selector.id is not None:
        keys["resource_id"] = literal(selector.id)
    return AnchorTarget(**keys, match="regex" if regex else "exact")  # type: ignore[arg-type]


def candidates(selector: Selector, obs: Observation) -> list[UIElement]:
    """Every element of ``obs`` the selector names, top to bottom: those matching at the
    best tier any element reaches (an exact "Like" rules out "Like post 3" in a desc)."""
    anchor = anchor_of(selector)
    found = [e for e in obs.elements if _state_ok(selector, e)]
    if anchor is not None:  # only the best tier of the matcher counts, as in match_anchor
        tiers = [(m.tier, e) for e in found if (m := match_anchor(anchor, [e])) is not None]
        best = min((t for t, _ in tiers), default=0)
        found = [e for t, e in tiers if t == best]
    found = _relative(selector, found, obs)
    return sorted(found, key=lambda e: (e.bounds.top, e.bounds.left))


def find(selector: Selector, obs: Observation) -> UIElement | None:
    """The element the selector names on ``obs``, or ``None``. Without ``index`` and
    relative parts the anchor matcher's own choice among the candidates wins."""
    found = candidates(selector, obs)
    if not found:
        return None
    if selector.index is not None:
        return found[selector.index] if 0 <= selector.index < len(found) else None
    anchor = anchor_of(selector)
    if anchor is not None and len(found) > 1:
        best = match_anchor(anchor, found, obs.screen.safe_zone)
        if best is not None:
            return best.element
    return found[0]


def target_for(selector: Selector, obs: Observation) -> ElementTarget | AnchorTarget | None:
    """What to hand the executor: the element found in the tree, or — for a plain text the
    tree does not hold — the anchor itself, which the executor looks for by OCR."""
    element = find(selector, obs)
    if element is not None:
        return ElementTarget(id=element.id)
    simple = (selector.text is not None and selector.id is None and selector.desc is None
              and selector.index is None and selector.below is None
              and selector.above is None and selector.child_of is None)
    return anchor_of(selector) if simple else None


def _state_ok(s: Selector, e: UIElement) -> bool:
    checks = ((s.enabled, e.enabled), (s.checked, e.checked),
              (s.selected, e.selected), (s.focused, e.focused))
    return all(want is None or want == have for want, have in checks)


def _relative(s: Selector, found: list[UIElement], obs: Observation) -> list[UIElement]:
    if s.below is not None:
        ref = find(s.below, obs)
        found = [] if ref is None else [e for e in found if e.bounds.top >= ref.bounds.bottom
                                        - 1 and e is not ref]
    if s.above is not None:
        ref = find(s.above, obs)
        found = [] if ref is None else [e for e in found if e.bounds.bottom <= ref.bounds.top
                                        + 1 and e is not ref]
    if s.child_of is not None:
        ref = find(s.child_of, obs)
        found = [] if ref is None else [e for e in found if e is not ref
                                        and ref.bounds.contains(e.bounds.center)]
    return found


SHOWN_TEXTS = 8  # how many of the screen's texts a failed check names


def screen_texts(obs: Observation, limit: int = SHOWN_TEXTS) -> str:
    """A few texts the screen shows, top to bottom, quoted (what a failed check saw)."""
    seen = list(dict.fromkeys(e.label for e in sorted(obs.elements,
                                                      key=lambda e: (e.center[1], e.center[0]))
                              if e.label and not e.password))
    shown = ", ".join(repr(t if len(t) <= 40 else t[:37] + "...") for t in seen[:limit])
    more = f" and {len(seen) - limit} more" if len(seen) > limit else ""
    return f"{obs.package or 'the screen'} shows {shown}{more}" if seen else \
        f"{obs.package or 'the screen'} shows no text"


def awaited(cond: Condition) -> str:
    """What a check waited for, in words: "text='Save' to be visible"."""
    parts = [f"{s.describe()} to be {how}" for s, how in ((cond.visible, "visible"),
                                                         (cond.not_visible, "gone"))
             if s is not None]
    return " and ".join(parts) or "nothing"
