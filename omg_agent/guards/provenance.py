"""Where a task's words came from decides whether they grant (issue 35).

Permissions stated in words — "you may pay in Shop", "可以付款", "send hi to Bob" — grant
only where a human wrote the words: the CLI's task argument and ``--allow``, the user's
config (``human``). A task handed in by a program — an MCP client's ``run_task``, a fleet
file's ``goal``, a Python caller's string (``client``) — is written by whoever calls us,
often a model: the permissions found in it grant nothing by themselves. They are put to the
human once, before the run acts (:func:`asks_request`: "This run asks to: pay in Shop.
Allow?"), through the channel the human uses; or the caller passes them explicitly
(``allow=`` in Python, ``--allow`` for ``omg-agent mcp`` / ``fleet run``). Limits stated in
any words always hold: they only ever restrict.

:func:`word_authorisations` is the one rule every run path applies
(:func:`omg_agent.brain.agent.gatekeeper`); :func:`run_asks` is what a client's task asks
for; the composition root (:mod:`omg_agent.taskrun`) asks and records the answer in the
run's saved state, so a resumed run keeps it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Literal

from omg_agent.guards.authorisation import Authorisation, parse_authorisations
from omg_agent.guards.confirmation import ConfirmationRequest

WordsFrom = Literal["human", "client"]
WORDS_FROM: tuple[WordsFrom, ...] = ("human", "client")
ASK_CLASS = "run_permissions"  # the ConfirmationRequest.cls of the question before a run

_VERBS = {"payment": "pay", "delete": "delete", "send": "send", "install": "install",
          "permission": "grant permissions", "secret_entry": "type secrets",
          "account_security": "change account security"}


def word_authorisations(task: str, *, grant: bool) -> list[Authorisation]:
    """What the words of ``task`` authorise: everything they say when ``grant`` (a human
    wrote them, or allowed what they ask), else only the limits they state."""
    found = parse_authorisations(task)
    if grant:
        return found
    # a limit that came with a permission ("buy a cable, spend no more than ¥50") still
    # restricts: it is kept, as a restriction only
    return [a if not a.grants else dataclasses.replace(a, grants=False)
            for a in found if not a.grants or a.limit is not None]


def run_asks(task: str, allowed: Sequence[Authorisation] = ()) -> list[Authorisation]:
    """The permissions a client's ``task`` asks for that ``allowed`` (the user's own
    ``--allow`` / config) does not already give class-wide."""
    wide = {a.cls for a in allowed if a.grants and a.target is None and a.limit is None}
    return [a for a in parse_authorisations(task) if a.grants and a.cls not in wide]


def describe_grant(a: Authorisation) -> str:
    """One permission in the user's words: "pay up to ¥100 in Shop", "send "hi" to Bob"."""
    verb = _VERBS.get(a.cls, a.cls)
    out = verb
    if a.cls == "payment" and a.limit is not None:
        out += f" {a.limit}"
    if a.cls == "send" and a.text is not None:
        out += f" {a.text!r}"
    if a.target:
        out += (" to " if a.cls == "send" else " in ") + a.target
    return out


def asks_request(asks: Sequence[Authorisation], task: str) -> ConfirmationRequest:
    """The one question put to the human before a client's task runs."""
    listed = "; ".join(describe_grant(a) for a in asks)
    return ConfirmationRequest(
        ASK_CLASS, f"run with these permissions: {listed}",
        "the task was written by the program that started this run, not typed by you; "
        "without your yes each such action is asked (or held) when it comes", task=task)


def asks_question(asks: Sequence[Authorisation], device: str = "") -> str:
    """The same question as one line, for a channel that shows only text (MCP), naming
    the phone the run drives when it is known."""
    listed = "; ".join(describe_grant(a) for a in asks)
    on = f", on the phone {device}" if device else ""
    return (f"This run asks to: {listed}{on}. The task came from the client, not from you. "
            "Allow? (yes/no) — with no, each such action is asked when it comes.")
