"""The held action: kept exactly as the gate held it, and carried out on the user's yes.

When nobody can be asked, the gate's hold stops the run (``needs_confirmation``) and the run
state keeps a :class:`~omg_agent.brain.run_state.HeldAction` (:func:`capture`): the action
as it would have run, the element it landed on (label and anchor) and the amount the
screen showed. A yes given later (``run --resume DIR --answer yes``) is a yes to *that*:
:func:`carry_out` looks at the screen, finds the element again with the one anchor matcher
(:func:`~omg_agent.perception.anchor.match_anchor`) and runs the action on it at once —
through the gate, approved once by the fingerprint the question carried
(:mod:`omg_agent.guards.approvals`), and the driver's executor, with no model turn before it
— only when it is the same element (same anchor, same label) and the same amounts. Otherwise
nothing runs, the approval is withdrawn, and the operator is told why on its next turn (a
sensitive action it reaches for again is asked again, as the screen shows it now). A no is
written into the run's state at once (:func:`record_no`) and stands: a later yes to the same
action is refused (:func:`said_no_to`).

A yes given while the run waits (the terminal, the mirror) is checked the same way by the
gate itself: it looks again after the answer and asks again when the screen changed
(:meth:`~omg_agent.guards.gatekeeper.GateKeeper.review`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omg_agent.brain import honest
from omg_agent.brain.held_rest import carry_on
from omg_agent.brain.resume import STATE_FILE
from omg_agent.brain.run_context import RunContext
from omg_agent.brain.run_state import HeldAction, TurnRecord
from omg_agent.core.actions import Action, AnchorTarget, dump_action, parse_action
from omg_agent.core.observation import Observation, UIElement
from omg_agent.core.results import Failure, FailureKind
from omg_agent.durable import write_atomic
from omg_agent.guards.approvals import screen_amounts
from omg_agent.guards.gatekeeper import GateStop
from omg_agent.perception.anchor import match_anchor

_ANCHOR_KEYS = ("resource_id", "text", "desc")
SAID_NO = "said_no"  # state.json: what the human refused (fingerprints and descriptions)


def capture(stop: GateStop, step: int, rest: Sequence[Action] = ()) -> HeldAction:
    """What the gate held (``stop``), kept for a later yes, with the ``rest`` of its bundle
    (what the model planned after it) re-aimed by anchors (:func:`anchored`)."""
    element, screen = stop.element, stop.screen
    anchor = {k: v for k in _ANCHOR_KEYS if element is not None
              and not (k == "text" and element.password) and (v := getattr(element, k))}
    return HeldAction(
        stop.request.describe, stop.request.cls,
        dump_action(stop.action) if stop.action is not None else {},
        element.label if element is not None and not element.password else "", anchor,
        amount_seen(screen) if screen is not None else "",
        screen.package if screen is not None else "", step, stop.request.fingerprint,
        anchored(rest, screen))


def anchored(rest: Sequence[Action], screen: Observation | None) -> tuple[dict[str, Any], ...]:
    """The actions of ``rest`` as they can run on a later screen: an element id becomes the
    element's anchor on ``screen`` (resource id, text, desc; a password field's text
    never); they end before the first that cannot be found again that way (a point, a
    swipe's ends, an unlabelled element)."""
    out = []
    for action in rest:
        data = dump_action(action)
        if any(k in data for k in ("from", "to", "start")):
            break
        target = data.get("target")
        if isinstance(target, dict) and target.get("kind") == "point":
            break
        if isinstance(target, dict) and target.get("kind") == "element":
            element = next((e for e in screen.elements if e.id == target.get("id")), None) \
                if screen is not None else None
            anchor = {k: v for k in _ANCHOR_KEYS if element is not None
                      and not (k == "text" and element.password) and (v := getattr(element, k))}
            if not anchor:
                break
            data["target"] = {"kind": "anchor", **anchor}
        out.append(data)
    return tuple(out)


def record_no(run_dir: Path) -> HeldAction | None:
    """The human said no to the action the run in ``run_dir`` holds: written into its
    ``state.json`` at once (atomically), before anything else happens — whatever a client
    does next, a later yes to that action is refused (:func:`said_no_to`). The held action,
    or ``None`` when the run holds none."""
    path = Path(run_dir) / STATE_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    held = data.get("held")
    if not isinstance(held, dict):
        return None
    refused = [str(k) for k in data.get(SAID_NO) or [] if isinstance(k, str)]
    data[SAID_NO] = list(dict.fromkeys([*refused, *_keys(held)]))
    write_atomic(path, json.dumps(data, ensure_ascii=False, indent=1))
    return HeldAction.of(held)


def said_no_to(run_dir: Path, held: HeldAction) -> bool:
    """Whether the human already said no to ``held`` in the run in ``run_dir``."""
    try:
        data = json.loads((Path(run_dir) / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    refused = data.get(SAID_NO) if isinstance(data, dict) else None
    return isinstance(refused, list) and any(k in refused for k in _keys(held.as_dict()))


def _keys(held: dict[str, Any]) -> list[str]:
    """What a no is recorded under: the fingerprint of the held action, and its words."""
    return [k for k in (held.get("fingerprint"), held.get("describe"))
            if isinstance(k, str) and k]


def amount_seen(obs: Observation) -> str:
    """The amounts with a currency the app's own screen shows (prices, totals), in order:
    the amounts a yes was given for — read by the one rule the gate's fingerprint uses
    (:func:`~omg_agent.guards.approvals.screen_amounts`). Other windows (status bar clock,
    keyboard) and counters without a currency (a timer, a badge) stay out."""
    return " · ".join(screen_amounts(obs))


def find_again(held: HeldAction, obs: Observation) -> UIElement | str:
    """The held action's element on ``obs`` — same anchor, same label, same amount — or
    why it cannot be the same one."""
    if held.package and obs.package != held.package:
        return f"the phone shows {obs.package or 'another app'}, not {held.package}"
    if not held.anchor:
        return "its target has no text or id to find it by"
    found = match_anchor(AnchorTarget.model_validate(held.anchor), obs.elements)
    if found is None:
        return f"{held.label or held.describe!r} is not on the screen any more"
    if found.ambiguous:
        return f"{held.label!r} shows more than once on the screen now"
    element = found.target
    if element.label != held.label or element.resource_id != held.anchor.get(
            "resource_id", ""):
        return f"the screen shows {element.label!r} where {held.label!r} was"
    amount = amount_seen(obs)
    if amount != held.amount:
        return f"the amounts on the screen changed (then: {held.amount}; now: {amount})"
    return element


def on_element(held: HeldAction, element: UIElement, obs: Observation) -> Action:
    """The held action aimed at ``element`` of ``obs`` (ids and points never carry over
    from the screen it was held on); typing into the focused field stays as it was."""
    data: dict[str, Any] = dict(held.action)
    if "target" in data or (data.get("type") == "type" and obs.focused is not element):
        data["target"] = {"kind": "element", "id": element.id}
    return parse_action(data)


def carry_out(run: RunContext, held: HeldAction) -> None:
    """The user said yes to ``held`` (on resume): run exactly it, now, if the screen still
    shows it; otherwise tell the operator why. The operator's next turn follows either way."""
    s = run.state
    if not held.action or not held.fingerprint:  # saved before yeses were bound to one action
        s.note = (f"The user said yes to: {held.describe} — but that question was asked by "
                  "an older version: look at the screen; a sensitive action is asked again.")
        return
    obs = run.driver.observe()
    s.last_obs = obs
    found = find_again(held, obs)
    if isinstance(found, str):
        run.event("held_action_gone", action=held.describe, reason=found)
        s.note = (f"The user said yes to: {held.describe} — but it was not done: {found}. "
                  "Look at the screen and decide; a sensitive action is asked again.")
        return
    action = on_element(held, found, obs)
    since = 0
    if run.gatekeeper is not None:
        run.gatekeeper.approve(held.fingerprint)
        since = len(run.gatekeeper.passed.entries)
        stop = run.gatekeeper.review([action], obs)
        if stop is not None:  # the gate sees another action on this screen: not the held one
            run.gatekeeper.withdraw(held.fingerprint)
            s.note = (f"The user said yes to: {held.describe} — but it was not done: the "
                      f"screen now asks for {stop.request.describe}. Look and decide.")
            run.event("held_action_gone", action=held.describe,
                      reason=stop.request.describe)
            return
    s.budget.check()  # the turn that asked for it paid its step (issue 27)
    executed = run.driver.execute([action], obs)
    ok = executed.ok and bool(executed.outcomes)
    honest.acted_on(s, executed.outcomes)
    if run.gatekeeper is not None:
        run.gatekeeper.passed.settle(lambda at: ok, since)
    detail = "; ".join(o.detail for o in executed.outcomes if o.detail)
    failure = None if ok else Failure(FailureKind.CLICK_MISSED,
                                      f"{held.describe}: {detail or 'did not go through'}")
    run.event("held_action_done", action=held.describe, ok=ok, detail=detail)
    summary = f"the user confirmed: {held.describe} [{action.type}] → " + (
        "ok" if ok else f"failed: {detail or 'did not go through'}")
    s.records.append(TurnRecord(held.step, summary, obs.screen_hash, failure,
                                intent=held.describe, acted=ok))
    s.attempt = s.attempt.after_turn(obs.screen_hash, failure, acted=ok)
    run.loops.acted(executed, obs)
    s.note = (f"The user confirmed: {held.describe}. It was carried out "
              + ("(look at the screen for its result)." if ok else
                 f"but did not go through: {detail or 'no detail'}."))
    if ok and held.rest:
        s.note += " " + carry_on(run, held)


__all__ = ["amount_seen", "anchored", "capture", "carry_on", "carry_out", "find_again",
           "on_element", "record_no", "said_no_to"]
