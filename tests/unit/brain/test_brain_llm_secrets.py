"""The model client's two doors: nothing secret goes out in a request, and a reply that is a
web page (HTTP 200, text/html) is one clear error naming the endpoint. The real openai client
on ``httpx.MockTransport``: no socket, no monkeypatch."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

try:  # the openai SDK's HTTP library: httpx2 in openai 3, httpx before
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef]

from omg_agent.brain.llm import LLMClient
from omg_agent.config import Settings
from omg_agent.core.secrets import SecretVault
from omg_agent.errors import LLMRequestError

URL = "http://models.test/v1"


class Ping(BaseModel):
    ok: bool


def _completion(content: str) -> dict[str, Any]:
    return {"id": "c1", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def _client(handler: Any, vault: SecretVault | None = None) -> LLMClient:
    settings = Settings(base_url=URL, model="m", max_retries=0)
    http = httpx.Client(transport=httpx.MockTransport(handler))
    return LLMClient(settings, "operator", http_client=http, secrets=vault)


def test_requests_carry_placeholders_never_the_values() -> None:
    bodies: list[str] = []

    def handler(request: Any) -> Any:
        bodies.append(request.content.decode())
        return httpx.Response(200, json=_completion('{"ok": true}'))

    vault = SecretVault({"pw": "omg5865"})
    with _client(handler, vault) as llm:
        vault.add("pin", "2468-1357")  # learned after the client was made
        llm.structured([{"role": "system", "content": "type omg5865"},
                        {"role": "user", "content": [
                            {"type": "text", "text": "PIN 2468-1357, {{secret:x=K7-tulip}}"}]}],
                       Ping)
    sent = json.loads(bodies[0])
    text = json.dumps(sent, ensure_ascii=False)
    assert "omg5865" not in text and "2468-1357" not in text and "K7-tulip" not in text
    assert sent["messages"][0]["content"] == "type {{secret:pw}}"
    assert sent["messages"][1]["content"][0]["text"] == "PIN {{secret:pin}}, {{secret:x}}"


def test_a_web_page_for_a_reply_is_one_error_naming_the_endpoint() -> None:
    calls: list[int] = []

    def handler(request: Any) -> Any:
        calls.append(1)
        return httpx.Response(200, headers={"content-type": "text/html; charset=utf-8"},
                              text="<!doctype html><title>Open WebUI</title>")

    with _client(handler) as llm, pytest.raises(LLMRequestError) as err:
        llm.structured([{"role": "user", "content": "hi"}], Ping)
    message = str(err.value)
    assert f"model endpoint {URL} answered with text/html, not JSON" in message
    assert "OMG_BASE_URL" in message and "\n" not in message
    assert len(calls) == 1  # not retried, not stepped down through the format modes
