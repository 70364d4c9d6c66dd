"""A client's action through the sensitive-action gate, and a held one put to the human
(issues 28 and 35).

The gate asks the mirror page mid-call when the server runs ``--approve-on mirror``
(:meth:`~omg_agent.mcp.server.Hub.asks`); otherwise a held action is put to the human behind
the client by elicitation (:mod:`.consent`), each question with a single-use ticket bound to
exactly the held action's fingerprint (:mod:`.grants`): an answer replayed is refused, a no
is remembered for the session, and a yes runs the action only if the screen still shows
what was asked — else the human is asked again about what it shows now.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context

from omg_agent.errors import ConfigError
from omg_agent.guards.confirmation import ConfirmationRequest
from omg_agent.mcp import consent, words
from omg_agent.mcp.acting import Op, act_checked
from omg_agent.mcp.server import Acted, Held, Hub
from omg_agent.phone import ActionHeld


async def gated(hub: Hub, ctx: Context, device: str | None,
                 action: Op) -> Held | Acted:
    """``action`` through the sensitive-action gate: a held one is put to the human (the
    mirror page asks mid-call; else the human behind the client); on the retry round,
    their answer — with its single-use ticket — to this very action decides."""
    got = consent.answered(ctx)
    if got is not None:  # the human's answer to this very action
        state, verdict = got
        key = hub.grants.redeem(state.get("ticket"), state.get("fingerprint"))
        if key is None:
            raise ConfigError("that answer was used already, or never asked for: a yes is "
                              "used once — call the tool again and the user is asked")
        request = ConfirmationRequest("", str(state.get("describe", "")), "",
                                      fingerprint=key)
        if verdict.said is None:
            again = {**state, "ticket": hub.grants.issue(key)}
            return consent.pending(f"{verdict.retry} {state['question']}", again)
        return await _decided(hub, ctx, device, action, request, verdict.said)
    try:
        return await _act(hub, device, action)
    except ActionHeld as held:
        if hub.mirror is not None or held.declined:  # the page was asked: its word stands
            return Acted(status="declined" if held.declined else "needs_confirmation",
                         detail=words.held(held.request.describe, held.request.reason,
                                           held.declined),
                         how_to_approve=consent.how_to_approve(None, hub.approve_on))
        return await _put(hub, ctx, device, action, held.request)


async def _put(hub: Hub, ctx: Context, device: str | None, action: Op,
               request: ConfirmationRequest) -> Held | Acted:
    """Ask the human behind the client about ``request`` — unless they said no to it in
    this session already."""
    if hub.grants.refused(request.describe):
        return Acted(status="declined", detail=f"not done: the user already said no to "
                                               f"{request.describe}")
    if not request.fingerprint:  # no screen it was judged on: a yes could bind to nothing
        return Acted(status="needs_confirmation", detail=f"held: {request.describe} "
                     f"({request.reason}); no screen to bind a yes to — observe, then retry",
                     how_to_approve=consent.how_to_approve(None))
    serial = await anyio.to_thread.run_sync(lambda: hub.phone(device).serial)
    text = consent.question(request.describe, request.reason, serial)
    refused = Acted(status="needs_confirmation", detail=f"held: {request.describe} "
                    f"({request.reason})", how_to_approve=consent.how_to_approve(None))
    state = {"describe": request.describe, "question": text,
             "fingerprint": request.fingerprint,
             "ticket": hub.grants.issue(request.fingerprint)}

    async def carry_out(said: str) -> Held | Acted:
        if hub.grants.redeem(state["ticket"], request.fingerprint) is None:
            raise ConfigError("that answer was used already: a yes is used once")
        return await _decided(hub, ctx, device, action, request, said)
    return await on_hold(ctx, text, state, carry_out, refused)


async def _decided(hub: Hub, ctx: Context, device: str | None, action: Op,
                   request: ConfirmationRequest, said: str) -> Held | Acted:
    """The human's word on ``request``: a no is remembered for the session; a yes runs the
    action once if the screen still shows exactly what was asked — otherwise the human is
    asked again about what it shows now."""
    if said == "no":
        hub.grants.refuse(request.describe)
        return Acted(status="declined", detail=f"not done: the user said no to "
                                               f"{request.describe}")
    try:
        return await _act(hub, device, action, approved=request.fingerprint)
    except ActionHeld as held:  # not what the yes was for (the screen changed since)
        return await _put(hub, ctx, device, action, held.request)


async def _act(hub: Hub, device: str | None, action: Op,
               approved: str | None = None) -> Acted:
    """Run ``action`` (an action dict, or an :data:`~.acting.Op` of several) through the
    gate; ``approved``: the fingerprint of the one held action a human allowed (anything
    else held raises :class:`ActionHeld`, nothing done)."""
    def run() -> Acted:
        with hub.using(device) as phone:
            confirm: Any = hub.asks(phone.serial) if approved is None else (
                lambda request: True if approved and request.fingerprint == approved
                else None)  # no fingerprint: bound to nothing, so it approves nothing
            return act_checked(hub, phone, action, confirm)
    return await anyio.to_thread.run_sync(run)


async def on_hold(ctx: Context, text: str, state: dict[str, Any],
                  carry_out: Callable[[str], Awaitable[Any]], refused: Any) -> Any:
    """Ask the human behind the client ``text``: now (handshake-era client), as an input
    request (2026-07-28), or not at all (no elicitation: ``refused``)."""
    if not consent.can_ask(ctx):
        return refused
    if consent.modern(ctx):
        return consent.pending(text, state)
    for _ in range(3):
        verdict = await consent.ask_now(ctx, text)
        if verdict.said is not None:
            return await carry_out(verdict.said)
        text = f"{verdict.retry} {text}"
    return await carry_out("no")  # no clear yes after three asks
