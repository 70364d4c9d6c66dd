"""A human's yes to a held action, reached through the MCP client (issue 28).

An MCP client is a model: it may not approve what the gate holds. The yes comes from the
human behind the client, asked by MCP elicitation — mid-call on the handshake-era protocol
(``ctx.elicit``), and on 2026-07-28 and later as an ``InputRequiredResult`` the client
fulfils and retries with (the held thing rides the SDK-sealed ``request_state``). The
answer is read by the one answer rule (:mod:`omg_agent.guards.answers`); an unclear one is
asked again. A client without elicitation gets ``needs_confirmation`` and how a human
approves (:func:`how_to_approve`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mcp.server.elicitation import AcceptedElicitation
from mcp.server.mcpserver import Context
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult
from mcp_types.version import is_version_at_least
from pydantic import BaseModel, Field

from omg_agent.guards.answers import read_answer, unclear

KEY = "confirm"  # the input request's key: one question per round
MODERN = "2026-07-28"  # the first revision that carries elicitation in InputRequiredResult
MAX_ANSWER = 200


class Answer(BaseModel):
    """What the human types: yes or no, in their words."""

    answer: str = Field(max_length=MAX_ANSWER,
                        description="yes to allow exactly this action, no to refuse it")


@dataclass(frozen=True)
class Verdict:
    """The human's reply: ``yes`` / ``no``, or ``None`` while it is unclear (then
    ``retry`` says why and asks again)."""

    said: str | None
    retry: str = ""


def can_ask(ctx: Context) -> bool:
    """Whether the client declared elicitation (a human can be asked through it)."""
    caps = ctx.client_capabilities
    return caps is not None and caps.elicitation is not None


def question(describe: str, reason: str) -> str:
    return (f"The phone agent wants to {describe}. This is a sensitive action: {reason}. "
            "Allow it? Answer yes or no.")


async def ask_now(ctx: Context, text: str) -> Verdict:
    """Ask the human ``text`` mid-call (a handshake-era client; see :func:`pending` for a
    2026-07-28 one)."""
    outcome = await ctx.elicit(text, Answer)
    if not isinstance(outcome, AcceptedElicitation):
        return Verdict("no")  # declined or cancelled: not a yes
    return _verdict(outcome.data.answer)


def modern(ctx: Context) -> bool:
    """Whether the client speaks 2026-07-28 or later (elicitation rides the result)."""
    return is_version_at_least(ctx.protocol_version or "", MODERN)


def pending(text: str, state: dict[str, Any]) -> InputRequiredResult:
    """The input request that asks the human ``text``; ``state`` comes back on retry."""
    schema = {"type": "object", "properties": {"answer": {
        "type": "string", "title": "yes or no", "maxLength": MAX_ANSWER,
        "description": "yes to allow exactly this action, no to refuse it"}},
        "required": ["answer"]}
    request = ElicitRequest(params=ElicitRequestFormParams(message=text,
                                                           requested_schema=schema))
    return InputRequiredResult(input_requests={KEY: request},
                               request_state=json.dumps(state, ensure_ascii=False))


def answered(ctx: Context) -> tuple[dict[str, Any], Verdict] | None:
    """On a retry round: the held thing's state and the human's verdict."""
    responses = ctx.input_responses or {}
    raw_state = ctx.request_state
    reply = responses.get(KEY)
    if raw_state is None or not isinstance(reply, ElicitResult):
        return None
    state = json.loads(raw_state)
    if reply.action != "accept" or not reply.content:
        return state, Verdict("no")
    return state, _verdict(str(reply.content.get("answer", "")))


def _verdict(text: str) -> Verdict:
    said = read_answer(text)
    return Verdict(said) if said is not None else Verdict(None, unclear(text.strip()))


def how_to_approve(run_dir: str | None) -> str:
    """What a human does when the client cannot ask them."""
    if run_dir:
        return ("a human approves it: in a terminal, omg-agent run --resume "
                f"{run_dir} --answer yes (or no); or from an MCP client that supports "
                "elicitation, call approve with this run_dir")
    return ("a human approves it from an MCP client that supports elicitation (the client "
            "asks them), or pre-authorises the class for this server: omg-agent mcp --allow "
            "CLASS; the client cannot approve it itself")
