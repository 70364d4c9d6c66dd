"""What one HTTP attempt to the model cost and how it ended (:class:`CallRecord`), the
running sums over a client's replies (:class:`UsageTotals`), and the reply read off an SDK
completion (:func:`read_reply`).

Records are what the budget counts (a valid *reply* is a decision:
:attr:`CallRecord.counts_as_step`), what the trace and the benches sum, and what
:class:`~omg_agent.brain.llm.LLMClient` hands its ``on_attempt`` callbacks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

FormatMode = Literal["json_schema", "json_object", "none"]


@dataclass(frozen=True)
class CallRecord:
    """One HTTP attempt: what it cost and how it ended.

    ``kind`` is ``"reply"`` when the model answered (``ok`` says whether the answer was
    valid) and ``"transport"`` when the request itself failed (``http_status`` or a
    connection error); only valid replies count as steps (issue 40: a reply refused by
    validation is retried at no step's cost, its feedback naming the field to write).
    """

    role: str
    model: str
    kind: Literal["reply", "transport"]
    attempt: int
    ok: bool
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    error: str | None = None
    reply: str = ""
    response_format: FormatMode = "none"
    http_status: int | None = None
    cached_tokens: int = 0  # of prompt_tokens, served from the provider's prompt cache

    @property
    def counts_as_step(self) -> bool:
        return self.kind == "reply" and self.ok

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass
class UsageTotals:
    """Running sums over a client's replies."""

    replies: int = 0
    failed_requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    latency_s: float = 0.0

    def add(self, record: CallRecord) -> None:
        if record.kind == "transport":
            self.failed_requests += 1
            return
        self.replies += 1
        self.prompt_tokens += record.prompt_tokens
        self.completion_tokens += record.completion_tokens
        self.cached_tokens += record.cached_tokens
        self.latency_s += record.latency_s


AttemptCallback = Callable[[CallRecord], None]
NoticeCallback = Callable[[str], None]


@dataclass
class Reply:
    """One model reply as the client keeps it."""

    text: str
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    mode: FormatMode
    cached_tokens: int = 0


def read_reply(completion: Any, mode: FormatMode, latency_s: float) -> Reply:
    """The reply text, its finish reason and usage, read off an SDK completion (a refusal
    becomes its text; cached prompt tokens where the endpoint reports them)."""
    choice = completion.choices[0] if completion.choices else None
    message = choice.message if choice else None
    text = (message.content or "") if message else ""
    refusal = getattr(message, "refusal", None)
    if not text and refusal:
        text = f"(refused: {refusal})"
    usage = completion.usage
    details = getattr(usage, "prompt_tokens_details", None) if usage else None
    return Reply(text, choice.finish_reason if choice else None,
                 usage.prompt_tokens if usage else 0,
                 usage.completion_tokens if usage else 0, latency_s, mode,
                 int(getattr(details, "cached_tokens", 0) or 0))
