"""Model replies that stop a run must be reported, never crash it (issue 38 items 3, 7): a 200
whose body is empty, cut or not JSON is retried like a 5xx, then fails in one line;
``Retry-After`` is read in both of its forms and bounded by the run's time left, not a fixed
30 s. The real openai client on ``httpx.MockTransport``; waits go to a recording sleep."""

from __future__ import annotations

import time
from email.utils import formatdate
from typing import Any

import pytest
from pydantic import BaseModel

try:  # the openai SDK's HTTP library: httpx2 in openai 3, httpx before
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef]

from omg_agent.brain.budget import RunDeadline
from omg_agent.brain.llm import LLMClient
from omg_agent.config import Settings
from omg_agent.errors import DeadlinePassed, LLMRequestError, LLMUnavailable

GOOD = (b'{"id": "c1", "object": "chat.completion", "created": 0, "model": "m", "choices": '
        b'[{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": '
        b'"{\\"ok\\": true}"}}], "usage": {"prompt_tokens": 1, "completion_tokens": 1, '
        b'"total_tokens": 2}}')
JSON = {"content-type": "application/json"}


class Ping(BaseModel):
    ok: bool


class Bodies:
    """Answers each request with the next (status, headers, body) of a script; then GOOD."""

    def __init__(self, *script: tuple[int, dict[str, str], bytes]) -> None:
        self.script = list(script)
        self.requests = 0

    def __call__(self, request: Any) -> Any:
        self.requests += 1
        status, headers, body = self.script.pop(0) if self.script else (200, JSON, GOOD)
        return httpx.Response(status, headers=headers, content=body)


def _client(endpoint: Bodies, sleeps: list[float], **settings: Any) -> LLMClient:
    config = Settings(base_url="http://models.test/v1", model="m",
                      **{"max_retries": 2, "retry_backoff_s": 0.5, "retry_backoff_max_s": 1.0,
                         **settings})
    http = httpx.Client(transport=httpx.MockTransport(endpoint))
    return LLMClient(config, "operator", http_client=http, sleep=sleeps.append)


@pytest.mark.parametrize("body", [b"", b"   ", GOOD[:57], b"{not json at all"],
                         ids=["empty", "blank", "cut", "garbage"])
def test_a_200_with_an_empty_or_cut_body_is_retried_and_the_next_reply_used(
        body: bytes) -> None:
    endpoint, sleeps = Bodies((200, JSON, body)), []
    with _client(endpoint, sleeps) as llm:
        reply, record = llm.structured([{"role": "user", "content": "ping"}], Ping)
    assert reply.ok and record.ok
    assert endpoint.requests == 2 and len(sleeps) == 1


def test_an_empty_body_with_no_content_type_is_retried_too() -> None:
    endpoint, sleeps = Bodies((200, {}, b"")), []
    with _client(endpoint, sleeps) as llm:
        reply, _ = llm.structured([{"role": "user", "content": "ping"}], Ping)
    assert reply.ok and endpoint.requests == 2


def test_cut_bodies_past_the_retries_fail_in_one_line_saying_so() -> None:
    endpoint, sleeps = Bodies(*[(200, JSON, GOOD[:40])] * 3), []
    with _client(endpoint, sleeps) as llm, pytest.raises(LLMUnavailable) as caught:
        llm.structured([{"role": "user", "content": "ping"}], Ping)
    message = str(caught.value)
    assert "\n" not in message and "cut or not JSON" in message and "after 3 tries" in message
    assert endpoint.requests == 3


def test_a_web_page_still_fails_at_once_naming_the_endpoint() -> None:
    page = (200, {"content-type": "text/html"}, b"<html><body>Open WebUI</body></html>")
    endpoint, sleeps = Bodies(page), []
    with _client(endpoint, sleeps) as llm, pytest.raises(LLMRequestError, match="text/html"):
        llm.chat([{"role": "user", "content": "ping"}])
    assert endpoint.requests == 1 and sleeps == []


def test_retry_after_as_an_http_date_is_honoured_beyond_the_old_30_s_cap() -> None:
    when = formatdate(time.time() + 90, usegmt=True)
    endpoint, sleeps = Bodies((429, {"retry-after": when}, b'{"error": {"message": "slow"}}')), []
    with _client(endpoint, sleeps, retry_backoff_max_s=30) as llm:
        llm.chat([{"role": "user", "content": "ping"}])
    assert endpoint.requests == 2 and len(sleeps) == 1
    assert 80 <= sleeps[0] <= 91  # the date, not the 30 s cap nor the 0.5 s backoff


def test_retry_after_in_seconds_above_30_is_waited_when_the_run_has_the_time() -> None:
    endpoint, sleeps = Bodies((503, {"retry-after": "45"}, b'{"error": {"message": "busy"}}')), []
    with _client(endpoint, sleeps, retry_backoff_max_s=30) as llm:
        llm.deadline = RunDeadline(600)
        llm.chat([{"role": "user", "content": "ping"}])
    assert sleeps == [45.0]


def test_a_retry_after_longer_than_the_time_left_fails_at_once() -> None:
    endpoint, sleeps = Bodies((429, {"retry-after": "120"}, b'{"error": {"message": "x"}}')), []
    with _client(endpoint, sleeps) as llm:
        llm.deadline = RunDeadline(60)
        with pytest.raises(DeadlinePassed):
            llm.chat([{"role": "user", "content": "ping"}])
    assert endpoint.requests == 1 and sleeps == []


def test_retry_after_forms() -> None:
    from omg_agent.brain.endpoint_faults import retry_after_s

    now = 1_700_000_000.0
    assert retry_after_s("7", now) == 7.0
    assert retry_after_s(formatdate(now + 12, usegmt=True), now) == pytest.approx(12, abs=1)
    assert retry_after_s(formatdate(now - 50, usegmt=True), now) == 0.0  # already past
    assert retry_after_s("soon", now) is None and retry_after_s(None, now) is None
