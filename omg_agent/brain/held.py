"""The held action: kept exactly as the gate held it, and carried out on the user's yes.

When nobody can be asked, the gate's hold stops the run (``needs_confirmation``) and the run
state keeps a :class:`~omg_agent.brain.run_state.HeldAction` (:func:`capture`): the action
as it would have run, the element it landed on (label and anchor) and the amount the
screen showed. A yes given later (``run --resume DIR --answer yes``) is a yes to *that*:
:func:`carry_out` looks at the screen, finds the element again with the one anchor matcher
(:func:`~omg_agent.perception.anchor.match_anchor`) and runs the action on it at once —
through the gate, approved once, and the driver's executor, with no model turn before it —
only when it is the same element (same anchor, same label) and the same amount. Otherwise
nothing runs, the approval is withdrawn, and the operator is told why on its next turn.

A yes given while the run waits (the terminal, the mirror) needs none of this: the gate
asks before the segment runs and, on a yes, the segment goes on with that very action
(:meth:`~omg_agent.guards.gatekeeper.GateKeeper.review`).
"""

from __future__ import annotations

from typing import Any

from omg_agent.brain import honest
from omg_agent.brain.run_context import RunContext
from omg_agent.brain.run_state import HeldAction, TurnRecord
from omg_agent.core.actions import Action, AnchorTarget, dump_action, parse_action
from omg_agent.core.observation import Observation, UIElement
from omg_agent.core.results import Failure, FailureKind
from omg_agent.guards.gatekeeper import GateStop
from omg_agent.perception.anchor import match_anchor

_ANCHOR_KEYS = ("resource_id", "text", "desc")


def capture(stop: GateStop, step: int) -> HeldAction:
    """What the gate held (``stop``), kept for a later yes."""
    element, screen = stop.element, stop.screen
    anchor = {k: v for k in _ANCHOR_KEYS if element is not None
              and not (k == "text" and element.password) and (v := getattr(element, k))}
    return HeldAction(
        stop.request.describe, stop.request.cls,
        dump_action(stop.action) if stop.action is not None else {},
        element.label if element is not None and not element.password else "", anchor,
        amount_seen(screen) if screen is not None else "",
        screen.package if screen is not None else "", step)


def amount_seen(obs: Observation) -> str:
    """The figures the app's own screen shows (prices, totals, quantities), in order: the
    amount a yes was given for. Other windows (status bar clock, keyboard) stay out."""
    texts = [t for e in obs.elements
             if not e.window and e.package in ("", obs.package) and not e.password
             for t in (e.text, e.desc, *e.extra_texts) if any(c.isdigit() for c in t)]
    return " · ".join(texts)


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
    if not held.action:  # saved before actions were kept: the operator does it again
        if run.gatekeeper is not None:
            run.gatekeeper.approve(held.describe)
        s.note = f"The user confirmed: {held.describe}. Go ahead with it."
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
        run.gatekeeper.approve(held.describe)
        since = len(run.gatekeeper.passed.entries)
        stop = run.gatekeeper.review([action], obs)
        if stop is not None:  # the gate sees another action on this screen: not the held one
            run.gatekeeper.withdraw(held.describe)
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


__all__ = ["amount_seen", "capture", "carry_out", "find_again", "on_element"]
