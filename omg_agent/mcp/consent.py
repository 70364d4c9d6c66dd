"""A human's yes to a held action, reached through the MCP client (issues 28 and 35).

An MCP client is a model: it may not approve what the gate holds. By default the yes comes
from the human behind the client, asked by MCP elicitation — mid-call on the handshake-era
protocol (``ctx.elicit``), and on 2026-07-28 and later as an ``InputRequiredResult`` the
client fulfils and retries with (the held thing rides the SDK-sealed ``request_state``,
with a single-use ticket: :mod:`.grants`). Elicitation proves only that *the client*
answered: a client can answer its own question. Where that is not enough, ``omg-agent mcp
--approve-on mirror`` asks on the mirror page instead (:mod:`.grants`), which the client
cannot reach. The question is yes / no and names the phone; the answer is read by the one
answer rule (:mod:`omg_agent.guards.answers`). A client without elicitation gets
``needs_confirmation``, and no result the model reads ever holds a command that would
approve it (:func:`for_model`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

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
    """What the human picks: yes or no."""

    answer: Literal["yes", "no"] = Field(
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


def question(describe: str, reason: str, device: str = "") -> str:
    on = f" on the phone {device}" if device else ""
    return (f"The phone agent wants to {describe}{on}. This is a sensitive action: {reason}. "
            "Allow exactly this, once? Answer yes or no.")


async def ask_now(ctx: Context, text: str) -> Verdict:
    """Ask the human ``text`` mid-call (a handshake-era client; see :func:`pending` for a
    2026-07-28 one)."""
    try:
        outcome = await ctx.elicit(text, Answer)
    except ValueError:  # accepted with something that is not yes or no
        return Verdict(None, unclear(""))
    if not isinstance(outcome, AcceptedElicitation):
        return Verdict("no")  # declined or cancelled: not a yes
    return _verdict(outcome.data.answer)


def modern(ctx: Context) -> bool:
    """Whether the client speaks 2026-07-28 or later (elicitation rides the result)."""
    return is_version_at_least(ctx.protocol_version or "", MODERN)


def pending(text: str, state: dict[str, Any]) -> InputRequiredResult:
    """The input request that asks the human ``text``; ``state`` comes back on retry."""
    schema = {"type": "object", "properties": {"answer": {
        "type": "string", "title": "yes or no", "enum": ["yes", "no"],
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
    return state, _verdict(str(reply.content.get("answer", ""))[:MAX_ANSWER])


def _verdict(text: str) -> Verdict:
    said = read_answer(text)
    return Verdict(said) if said is not None else Verdict(None, unclear(text.strip()))


def how_to_approve(run_dir: str | None, approve_on: str = "elicitation") -> str:
    """What a human does when the client cannot ask them (never a command the client could
    run to approve it itself)."""
    if approve_on == "mirror":
        return ("the user approves it on the mirror page this server printed a link to; "
                "the client cannot approve it")
    if run_dir:
        return (f"only the user can approve it: call approve with run_dir {run_dir!r} from "
                "an MCP client that supports elicitation (the user is asked), or decline")
    return ("only the user can approve it: from an MCP client that supports elicitation "
            "(the client asks them); the client cannot approve it itself")


# a clause naming a command-line switch that would approve or pre-authorise: a model that
# reads it may run it from a shell (one did: --resume … --answer yes paid). Found by its
# switch, then widened to its clause — linear in the text (a run's report is megabytes of
# HTML and base64 with no full stop in it); a tag's angle bracket ends a clause too
_SWITCH = re.compile(r"--answer|--allow|--resume|--yes\b|allow=", re.IGNORECASE)
_CLAUSE_HEAD = re.compile(r"[^.;:\n()<>]{0,400}$")
_CLAUSE_TAIL = re.compile(r"[^.;\n()<>]{0,400}(?:\([^)\n<>]{0,200}\))?")
RECIPE_SHOWN = " only the user can approve it"


def for_model(text: str) -> str:
    """``text`` (a result the client's model reads) without any self-approval recipe."""
    out: list[str] = []
    done = 0
    for m in _SWITCH.finditer(text or ""):
        if m.start() < done:
            continue  # within the clause just removed
        head = _CLAUSE_HEAD.search(text, max(done, m.start() - 400), m.start())
        tail = _CLAUSE_TAIL.match(text, m.end())
        start = head.start() if head is not None else m.start()
        out += [text[done:start], RECIPE_SHOWN]
        done = tail.end() if tail is not None else m.end()
    return "".join(out) + text[done:] if out else text
