"""The MCP client's words for what the gate, the anchoring and the validation say (issue 37
item 5).

The rules stay where they are — the gate decides in :mod:`omg_agent.guards`, the anchoring
in :mod:`omg_agent.perception.anchor` — and their messages are written for the Python API
and the agent's model ("pass confirm=", "pick a cell of the labelled grid"). An MCP client
has neither: this module gives the same facts in the words of the tools it does have, and
every text passes :func:`~omg_agent.mcp.consent.for_model` (no self-approval recipe).
"""

from __future__ import annotations

from pydantic import ValidationError

from omg_agent.mcp import consent
from omg_agent.perception.anchor import GRID_NEXT

MCP_NEXT = "next: observe, then tap an element by its number or a 0–1000 point"
USER_ONLY = "only the user can approve it: the server asks them"


def held(describe: str, reason: str, declined: bool) -> str:
    """A held action as the client reads it (the Python API says "pass confirm=")."""
    how = "the user said no" if declined else f"needs_confirmation: {USER_ONLY}"
    return f"held: {describe} ({reason}) — {how}"


def text(said: str) -> str:
    """``said`` (a detail or an error) in the client's words."""
    return consent.for_model(said.replace(GRID_NEXT, MCP_NEXT))


def error(exc: BaseException) -> str:
    """An error raised inside a tool, on one line, in the client's words: a validation
    error names each field and what it accepts."""
    from omg_agent.phone import ActionHeld

    if isinstance(exc, ActionHeld):
        return text(held(exc.request.describe, exc.request.reason, exc.declined))
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err["loc"] if not isinstance(p, int))
            message = str(err["msg"]).removeprefix("Value error, ")
            parts.append(f"{where}: {message}" if where else message)
        return text("; ".join(parts))
    return text(" ".join(str(exc).split()))
