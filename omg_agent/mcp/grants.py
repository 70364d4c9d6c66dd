"""What the MCP server remembers of the human's answers in one session (issue 35 item 2).

- **Tickets.** Every question put to the human by elicitation carries a ticket, a random
  nonce bound to exactly the held action it asks about (its fingerprint, or the run that
  holds it). The answer that comes back with the ticket redeems it once: a client that
  sends the same ``request_state`` and answer again — after the cart was refilled — gets
  nothing (:meth:`Grants.redeem` returns ``None``; the tool is refused).
- **Nos.** What the human said no to in this session is not asked again: a retry of the
  same held action is declined at once (:meth:`Grants.refused`).
- **The mirror as the channel.** With ``omg-agent mcp --approve-on mirror`` the gate asks
  the mirror page the human opened from the server's one-time link
  (:class:`MirrorAsks`), never the client; a no there is remembered the same way.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field

from omg_agent.guards.confirmation import ConfirmationChannel, ConfirmationRequest

MAX_TICKETS = 256  # open questions kept per session (the oldest is dropped first)


@dataclass
class Grants:
    tickets: dict[str, str] = field(default_factory=dict)  # nonce -> the key it is for
    said_no: set[str] = field(default_factory=set)  # describes the human refused
    lock: threading.Lock = field(default_factory=threading.Lock)

    def issue(self, key: str) -> str:
        """A ticket for a question about ``key`` (one held action)."""
        nonce = secrets.token_urlsafe(18)
        with self.lock:
            self.tickets[nonce] = key
            while len(self.tickets) > MAX_TICKETS:
                self.tickets.pop(next(iter(self.tickets)))
        return nonce

    def redeem(self, nonce: object, key: str | None = None) -> str | None:
        """The key ``nonce`` was issued for, once (``None``: used already, never issued, or
        issued for another key than ``key``)."""
        if not isinstance(nonce, str):
            return None
        with self.lock:
            found = self.tickets.pop(nonce, None)
        return found if found is not None and (key is None or found == key) else None

    def refuse(self, describe: str) -> None:
        with self.lock:
            self.said_no.add(describe)

    def refused(self, describe: str) -> bool:
        with self.lock:
            return describe in self.said_no


class SessionAsks:
    """A confirmation channel that asks ``inner`` (the mirror page) unless the human already
    said no to the same action in this session; a no is remembered in ``grants``."""

    def __init__(self, inner: ConfirmationChannel, grants: Grants, device: str) -> None:
        self.inner, self.grants, self.device = inner, grants, device

    def confirm(self, request: ConfirmationRequest) -> bool | None:
        if self.grants.refused(request.describe):
            return False
        named = ConfirmationRequest(request.cls, request.describe, request.reason,
                                    request.package, request.task, request.fingerprint,
                                    " ".join(p for p in (f"Phone {self.device}:",
                                                         request.note) if p))
        answer = self.inner.confirm(named)
        if answer is False:
            self.grants.refuse(request.describe)
        return answer


__all__ = ["MAX_TICKETS", "Grants", "SessionAsks"]
