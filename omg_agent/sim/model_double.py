"""A stand-in model: an OpenAI-compatible HTTP server on a real socket.

The real ``openai`` client talks to :class:`ModelDouble` exactly as it would to vLLM or
OpenAI (``POST /v1/chat/completions``, ``GET /v1/models``), so tests and benchmarks exercise
the whole client path — HTTP, retries, error bodies, usage — with nothing monkeypatched
(DESIGN.md §9, STYLE.md #9). What it answers comes from a :class:`Policy`:

- :class:`ScriptedPolicy` — a list of replies, one per request, in order. A reply is a
  ``str`` (the message content), a dict ``{"status": 429|500|400…, "body": …, "headers":
  …}`` (an HTTP error), a dict ``{"content": …, "finish_reason": …}``, or a callable
  ``(request_json) -> reply`` (a policy for one turn).
- any object with ``reply(request_json) -> reply`` — e.g. the expert policy that reads a
  vphone's state; :func:`contract_name` tells it which contract the request wants.

Every request is recorded (:attr:`ModelDouble.requests`) for tests to inspect. Usage is
estimated like OpenAI bills it, roughly: prompt tokens = characters of the JSON request
(images taken out) / 4, plus :data:`IMAGE_TOKENS` per image — 765, OpenAI's figure for a
high-detail 1024x1024 image (4 tiles of 512 x 170 + 85); completion tokens = characters / 4.
Tokens are counted by ``count_tokens`` (default: characters / 4; the bench passes a real
tokenizer when one is installed, :mod:`omg_agent.bench.tokens`). Prompt caching is
simulated as OpenAI does it: the longest prefix a request shares with an earlier one —
``response_format`` first, then the messages in order, an image by its content — counts as
cached when it is at least :data:`CACHE_MIN_TOKENS`, in steps of :data:`CACHE_STEP_TOKENS`
(``usage.prompt_tokens_details.cached_tokens``).
With ``supports_json_schema=False`` it rejects ``response_format`` ``json_schema`` with a 400,
like vLLM builds without guided decoding; with ``supports_images=False`` it rejects any
message holding an ``image_url`` part with a 400, like a text-only model.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

log = logging.getLogger(__name__)

IMAGE_TOKENS = 765
CACHE_MIN_TOKENS = 1024
CACHE_STEP_TOKENS = 128
TokenCounter = Callable[[str], int]


def chars_over_4(text: str) -> int:
    """The default token estimate: characters / 4."""
    return len(text) // 4
Reply = str | dict[str, Any] | Callable[[dict[str, Any]], Any]


class Policy(Protocol):
    """Decides the double's answer to one chat-completions request."""

    def reply(self, request: dict[str, Any]) -> Reply: ...


class ScriptedPolicy:
    """Answers from a list, one reply per request; an exhausted script answers HTTP 500."""

    def __init__(self, replies: Iterable[Reply]) -> None:
        self._replies = list(replies)
        self._lock = threading.Lock()
        self.used = 0

    def reply(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            if self.used >= len(self._replies):
                return {"status": 500, "body": {"error": {
                    "message": f"model double: script exhausted after {self.used} replies",
                    "type": "script_exhausted"}}}
            item = self._replies[self.used]
            self.used += 1
        return item(request) if callable(item) else item

    @property
    def remaining(self) -> int:
        return len(self._replies) - self.used


@dataclass(frozen=True)
class RecordedRequest:
    """One request the double received (``body`` is the parsed JSON, or ``{}``)."""

    method: str
    path: str
    body: dict[str, Any]
    status: int = 200
    authorization: str = ""  # the Authorization header as sent (tests check the key arrived)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def model(self) -> str | None:
        return self.body.get("model")

    @property
    def response_format(self) -> dict[str, Any] | None:
        return self.body.get("response_format")

    @property
    def images(self) -> list[str]:
        """The ``image_url`` URLs of every message, in order."""
        return [part["image_url"]["url"] for m in self.messages
                for part in _parts(m) if part.get("type") == "image_url"]

    def text(self) -> str:
        """All text of all messages, joined by newlines."""
        return "\n".join(p.get("text", "") for m in self.messages for p in _parts(m)
                         if p.get("type") == "text")


@dataclass
class _State:
    policy: Policy
    supports_json_schema: bool
    supports_json_object: bool
    models: tuple[str, ...]
    supports_images: bool = True
    count_tokens: TokenCounter = chars_over_4
    prefixes: list[str] = field(default_factory=list)  # what earlier replies could cache
    requests: list[RecordedRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class ModelDouble:
    """The server. Use as a context manager; ``base_url`` is what the client is given."""

    def __init__(self, policy: Policy | Sequence[Reply], *, supports_json_schema: bool = True,
                 supports_json_object: bool = True, models: Sequence[str] = ("double",),
                 supports_images: bool = True, host: str = "127.0.0.1",
                 count_tokens: TokenCounter = chars_over_4, port: int = 0) -> None:
        if not hasattr(policy, "reply"):
            policy = ScriptedPolicy(policy)
        self.state = _State(policy, supports_json_schema, supports_json_object, tuple(models),
                            supports_images, count_tokens)
        self.host = host
        self._server = _Server((host, port), _Handler)  # port 0: any free one
        self._server.state = self.state
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05},
                                        name="model-double", daemon=True)
        self._thread.start()
        log.debug("model double listening on %s", self.base_url)

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        host = "127.0.0.1" if self.host in ("", "0.0.0.0") else self.host
        return f"http://{host}:{self.port}/v1"

    @property
    def policy(self) -> Policy:
        return self.state.policy

    @property
    def requests(self) -> list[RecordedRequest]:
        """Chat-completions requests received so far (a copy), rejected ones included."""
        with self.state.lock:
            return [r for r in self.state.requests if r.path.endswith("/chat/completions")]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()  # joins the handler threads
        self._thread.join(timeout=5)

    def __enter__(self) -> ModelDouble:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # server_close() waits for in-flight requests
    state: _State


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # one request per connection: nothing lingers at close
    timeout = 30
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("model double: " + format, *args)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "omg-agent"}
                    for m in self.server.state.models]
            self._record({}, 200)
            self._send(200, {"object": "list", "data": data})
        else:
            self._record({}, 404)
            self._send(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._record({}, 400)
            self._send(400, {"error": {"message": "body is not JSON"}})
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._record(body, 404)
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        rejection = self._rejection(body)
        if rejection is not None:
            self._record(body, 400)
            self._send(400, rejection)
            return
        status, payload, headers = self._answer(body)
        self._record(body, status)
        self._send(status, payload, headers)

    def _rejection(self, body: dict[str, Any]) -> dict[str, Any] | None:
        kind = (body.get("response_format") or {}).get("type")
        state = self.server.state
        if (kind == "json_schema" and not state.supports_json_schema) or (
                kind == "json_object" and not state.supports_json_object):
            return {"object": "error", "type": "BadRequestError", "code": 400,
                    "param": "response_format",
                    "message": f"response_format type {kind!r} is not supported"}
        if not state.supports_images and RecordedRequest("POST", "", body).images:
            return {"object": "error", "type": "BadRequestError", "code": 400,
                    "param": "messages",
                    "message": "this model does not support image input (image_url)"}
        return None

    def _answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        try:
            reply = self.server.state.policy.reply(body)
            while callable(reply):
                reply = reply(body)
        except Exception as exc:  # a broken policy answers 500, like a crashed server
            log.exception("model double: the policy raised")
            return 500, {"error": {"message": f"policy error: {exc!r}",
                                   "type": "policy_error"}}, {}
        if isinstance(reply, dict) and "status" in reply:
            status = int(reply["status"])
            payload = reply.get("body") or {"error": {"message": f"simulated HTTP {status}"}}
            return status, payload, dict(reply.get("headers") or {})
        if isinstance(reply, dict):
            content, finish = str(reply.get("content", "")), reply.get("finish_reason", "stop")
        else:
            content, finish = str(reply), "stop"
        state = self.server.state
        prefix = cache_key(body)
        with state.lock:
            shared = max((_common(prefix, p) for p in state.prefixes), default=0)
            state.prefixes.append(prefix)
        return 200, _completion(body, content, finish, state.count_tokens,
                                state.count_tokens(prefix[:shared])), {}

    def _record(self, body: dict[str, Any], status: int) -> None:
        state = self.server.state
        with state.lock:
            state.requests.append(RecordedRequest(self.command, self.path, body, status,
                                                  self.headers.get("Authorization", "")))

    def _send(self, status: int, payload: dict[str, Any],
              headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def _parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [p for p in content or [] if isinstance(p, dict)]


_INSTRUCTED = re.compile(r"a valid (\w+) according to this JSON schema")


def contract_name(request: dict[str, Any]) -> str | None:
    """Which contract a request asks for (``DecisionBundle``, ``TaskPlan``, ``Replan``…):
    the ``json_schema`` name, or, in the fallback modes, the name in the schema
    instructions of the system prompt. For policies that answer several contracts."""
    fmt = request.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return fmt.get("json_schema", {}).get("name")
    for message in request.get("messages", []):
        for part in _parts(message):
            m = _INSTRUCTED.search(part.get("text", ""))
            if m:
                return m.group(1)
    return None


def cache_key(body: dict[str, Any]) -> str:
    """The request as a prompt cache sees it, in order: the schema, then each message
    (an image by a digest of its bytes)."""
    out = [json.dumps(body.get("response_format"), sort_keys=True, ensure_ascii=False)]
    for message in body.get("messages", []):
        out.append(f"<{message.get('role')}>")
        for part in _parts(message):
            if part.get("type") == "image_url":
                url = str(part.get("image_url", {}).get("url", ""))
                out.append(f"<image {hashlib.sha256(url.encode()).hexdigest()[:16]}>")
            else:
                out.append(str(part.get("text", "")))
    return "\n".join(out)


def _common(a: str, b: str) -> int:
    """Length of the common prefix of ``a`` and ``b``."""
    return len(os.path.commonprefix([a, b]))


def cached_tokens(shared_tokens: int) -> int:
    """What a provider bills as cached of a prefix of ``shared_tokens``."""
    if shared_tokens < CACHE_MIN_TOKENS:
        return 0
    return shared_tokens - shared_tokens % CACHE_STEP_TOKENS


def estimate_prompt_tokens(body: dict[str, Any],
                           count_tokens: TokenCounter = chars_over_4) -> int:
    """The tokens of the JSON request with images cut out, plus IMAGE_TOKENS per image."""
    images = 0
    stripped = []
    for message in body.get("messages", []):
        parts = []
        for part in _parts(message):
            if part.get("type") == "image_url":
                images += 1
            else:
                parts.append(part)
        stripped.append({**message, "content": parts})
    text = json.dumps({**body, "messages": stripped}, ensure_ascii=False)
    return max(1, count_tokens(text)) + images * IMAGE_TOKENS


def _completion(body: dict[str, Any], content: str, finish: str,
                count_tokens: TokenCounter = chars_over_4,
                shared_tokens: int = 0) -> dict[str, Any]:
    prompt = estimate_prompt_tokens(body, count_tokens)
    completion = max(1, count_tokens(content))
    cached = min(cached_tokens(shared_tokens), prompt)
    return {
        "id": f"chatcmpl-double-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model") or "double",
        "choices": [{"index": 0, "finish_reason": finish,
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "total_tokens": prompt + completion,
                  "prompt_tokens_details": {"cached_tokens": cached}},
    }
