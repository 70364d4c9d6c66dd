"""The verifier: a plan step's checks evaluated against the screen, the app and memory.

Each :class:`~omg_agent.core.checks.ElementCheck` is decided on the element its anchor finds
(the one matcher, :func:`omg_agent.perception.anchor.match_anchor`) — its text, its checked
or selected state — never by looking for a word anywhere on the screen. Edit fields hold
typed, unsent text and are no evidence unless the check says ``in_field``. A check about a
switch that finds the row's label instead reads the switch in the same row.

:func:`verify_step` is what the orchestrator asks after the operator claims a step (or the
goal) is done: ``None`` when the step is verified, else the typed failure naming the first
check that did not pass. A step without checks has only prose criteria; the caller decides
how to confirm those (the planner, with the screenshot).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence

from omg_agent.core.actions import AnchorTarget
from omg_agent.core.checks import AppCheck, ElementCheck, MemoryCheck, StepCheck
from omg_agent.core.contracts import TaskStep
from omg_agent.core.observation import Observation, UIElement
from omg_agent.core.results import Failure, FailureKind
from omg_agent.drivers.profiles import app_matches
from omg_agent.perception.anchor import match_anchor
from omg_agent.perception.textmatch import TextQuery

Recall = Callable[[str], str | None]  # memory key -> saved value (None: not saved)


def check_failure(check: StepCheck, obs: Observation, recall: Recall) -> str:
    """Why ``check`` does not pass on ``obs`` ('' when it passes)."""
    match check:
        case ElementCheck():
            return _element(check, obs)
        case AppCheck():
            return "" if app_matches(check.app, obs.package) else (
                f"{check.describe()}: the foreground app is {obs.package or 'unknown'}")
        case MemoryCheck():
            return "" if recall(check.key) is not None else (
                f"{check.describe()}: nothing saved under ${check.key}")
    raise TypeError(f"not a check: {check!r}")


def verify_step(step: TaskStep, obs: Observation, recall: Recall,
                substitute: Callable[[str], str] = lambda s: s) -> Failure | None:
    """``None`` when every check of ``step`` (and its ``data_output``) passes on ``obs``."""
    if step.data_output and recall(step.data_output) is None:
        return Failure(FailureKind.NOT_VERIFIED,
                       f"the step must save ${step.data_output} (mem_save) first")
    for check in step.checks:
        why = check_failure(filled(check, substitute), obs, recall)
        if why:
            return Failure(FailureKind.NOT_VERIFIED, f"not verified: {why}")
    return None


def names_present_element(checks: Iterable[StepCheck]) -> bool:
    """Whether ``checks`` name an element that must be on the screen (an element present):
    an absence, the app or a saved value alone also pass on screens on the way (a note's
    editor 'lacks' the note's list row before anything is deleted), so they prove nothing
    alone. The rule for auto-verify, a resume's re-sync and a planner's evidence."""
    return any(isinstance(c, ElementCheck) and c.present for c in checks)


def determines(check: StepCheck, obs: Observation) -> bool:
    """Whether ``obs`` tells ``check``'s value about what it names: a state, shown text or
    selection only where the element is on the screen; presence, absence, the app and memory
    on any screen (honest done compares a check with the first screen that tells)."""
    if not isinstance(check, ElementCheck) or (
            check.shows is None and check.checked is None and check.selected is None):
        return True
    elements = tuple(e for e in obs.elements if check.in_field or not e.editable)
    return _anchored(check.anchor(), dataclasses.replace(obs, elements=elements)) is not None


def filled(check: StepCheck, substitute: Callable[[str], str]) -> StepCheck:
    """``check`` with ``$vars`` in its texts filled in from memory."""
    if not isinstance(check, ElementCheck):
        return check
    update = {k: substitute(v) for k in ("text", "desc", "shows")
              if isinstance(v := getattr(check, k), str) and "$" in v}
    return check.model_copy(update=update) if update else check


def _anchored(anchor: AnchorTarget, obs: Observation) -> UIElement | None:
    """The element acting on ``anchor`` acts on in ``obs`` (tree only), or None."""
    found = match_anchor(anchor, obs.elements, obs.screen.safe_zone)
    return found.target if found is not None else None


def _element(check: ElementCheck, obs: Observation) -> str:
    elements = tuple(e for e in obs.elements if check.in_field or not e.editable)
    found = _anchored(check.anchor(), dataclasses.replace(obs, elements=elements))
    if not check.present:
        return "" if found is None else f"{check.describe()}: it is on the screen"
    if found is None:
        if not check.in_field and _anchored(check.anchor(), obs) is not None:
            return (f"{check.describe()}: found only in an edit field (typed text is no "
                    "evidence; the check would need in_field: true)")
        return f"{check.describe()}: no such element on the screen"
    if check.shows is not None and not _shows(found, check.shows):
        return f"{check.describe()}: it shows {found.label!r}"
    if check.checked is not None:
        switch = found if found.checkable else _row_switch(found, obs.elements)
        if switch is None:
            return f"{check.describe()}: it has no on/off state"
        if switch.checked != check.checked:
            state = "on" if switch.checked else "off"
            return f"{check.describe()}: it is {state}"
    if check.selected is not None and found.selected != check.selected:
        return f"{check.describe()}: it is {'' if found.selected else 'not '}selected"
    return ""


def _shows(element: UIElement, wanted: str) -> bool:
    """The element's text, description or a merged text contains ``wanted`` — compared as
    an anchor's ``contains`` compares (:class:`TextQuery`): "Payment successful" is in
    "Payment successful 支付成功", whose Chinese once made the two normalise apart."""
    query = TextQuery(wanted, "contains")
    return any(query.score(t) is not None
               for t in (element.text, element.desc, *element.extra_texts) if t)


def _row_switch(label: UIElement, elements: Sequence[UIElement]) -> UIElement | None:
    """The checkable element on the same row as ``label`` (a settings row's switch)."""
    y = label.bounds.center.y
    row = [e for e in elements
           if e.checkable and e.bounds.top <= y <= e.bounds.bottom]
    return min(row, key=lambda e: abs(e.bounds.center.x - label.bounds.center.x),
               default=None)


__all__ = ["app_matches", "check_failure", "determines", "filled", "names_present_element",
           "verify_step"]
