"""A model reply over 4 MiB is one error naming the endpoint, read no further than the limit
and not retried — whether the endpoint announces the size, streams it without a length, or
sends a small gzip body that would inflate past it; a normal gzip reply still reads. The
real openai client on ``httpx.MockTransport``: no socket, no monkeypatch."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

try:  # the openai SDK's HTTP library: httpx2 in openai 3, httpx before
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef]

from omg_agent.brain.llm import LLMClient
from omg_agent.brain.reply_cap import MAX_REPLY_BYTES
from omg_agent.config import Settings
from omg_agent.errors import LLMRequestError

URL = "http://models.test/v1"
MB = 1024 * 1024
pytestmark = pytest.mark.timeout(20)  # a cap that did not hold would read all 50 MB


class Ping(BaseModel):
    ok: bool


def _completion(content: str) -> bytes:
    return json.dumps({
        "id": "c1", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()


class Endpoint:
    """Answers every request with ``make()``; counts requests and the bytes it handed out."""

    def __init__(self, make: Any) -> None:
        self.make = make
        self.requests = 0
        self.sent = 0

    def chunks(self, total: int, chunk: bytes = b"<" * MB) -> Iterator[bytes]:
        while self.sent < total:
            self.sent += len(chunk)
            yield chunk

    def __call__(self, request: Any) -> Any:
        self.requests += 1
        return self.make(self)


def _ask(endpoint: Endpoint, retries: int = 3) -> Any:
    settings = Settings(base_url=URL, model="m", max_retries=retries, retry_backoff_s=0.001)
    http = httpx.Client(transport=httpx.MockTransport(endpoint))
    with LLMClient(settings, "operator", http_client=http) as llm:
        return llm.structured([{"role": "user", "content": "hi"}], Ping)


def _refused(endpoint: Endpoint) -> str:
    with pytest.raises(LLMRequestError) as err:
        _ask(endpoint)
    message = str(err.value)
    assert f"model endpoint {URL}" in message and "\n" not in message
    assert endpoint.requests == 1  # the same request would get the same answer
    return message


def test_an_announced_50_mb_reply_is_refused_before_it_is_read() -> None:
    endpoint = Endpoint(lambda e: httpx.Response(
        200, headers={"content-type": "application/json", "content-length": str(50 * MB)},
        content=e.chunks(50 * MB)))
    assert "announced a reply of 50 MiB, over the 4 MiB" in _refused(endpoint)
    assert endpoint.sent == 0


def test_a_50_mb_reply_without_a_length_is_cut_at_the_limit() -> None:
    endpoint = Endpoint(lambda e: httpx.Response(
        200, headers={"content-type": "text/plain"}, content=e.chunks(50 * MB)))
    assert "sent a reply over 4 MiB" in _refused(endpoint)
    assert endpoint.sent <= MAX_REPLY_BYTES + MB


def test_a_small_gzip_body_that_inflates_past_the_limit_is_cut() -> None:
    bomb = gzip.compress(b" " * (64 * MB))
    assert len(bomb) < MB
    endpoint = Endpoint(lambda e: httpx.Response(
        200, headers={"content-type": "application/json", "content-encoding": "gzip"},
        content=iter([bomb])))
    assert "sent a reply over 4 MiB" in _refused(endpoint)


def test_an_encoding_never_asked_for_is_refused() -> None:
    endpoint = Endpoint(lambda e: httpx.Response(
        200, headers={"content-type": "application/json", "content-encoding": "br"},
        content=iter([b"\x00" * 10])))
    assert "encoded as br" in _refused(endpoint)


@pytest.mark.parametrize("streamed", [False, True])
def test_a_gzip_reply_under_the_limit_reads_as_usual(streamed: bool) -> None:
    body = gzip.compress(_completion('{"ok": true}'))
    endpoint = Endpoint(lambda e: httpx.Response(
        200, headers={"content-type": "application/json", "content-encoding": "gzip"},
        content=iter([body[:10], body[10:]]) if streamed else body))
    reply, _ = _ask(endpoint)
    assert reply == Ping(ok=True)


def test_clients_share_one_tls_context_that_checks_certificates(monkeypatch, tmp_path) -> None:
    import ssl

    from omg_agent.brain.reply_cap import tls_context

    first = tls_context()
    assert tls_context() is first  # made once (the CA bundle is read once per process)
    assert first.verify_mode == ssl.CERT_REQUIRED and first.check_hostname
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))  # another trust store: a new context
    assert tls_context() is not first
