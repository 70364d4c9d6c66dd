"""A size limit on what a model endpoint may send back: at most :data:`MAX_REPLY_BYTES`.

A chat completion is a few kilobytes; an endpoint that answers with 50 MB (a web server's
file, a proxy's error dump, a hostile endpoint) must not make the agent read, decode and
parse it all. :func:`capped_client` gives the ``openai`` SDK an HTTP client whose response
hook (:func:`cap_response`) refuses a declared ``Content-Length`` over the limit before the
body is read, and otherwise wraps the body so that reading stops with :class:`ReplyTooLarge`
as soon as the limit is passed. The limit holds for the *decoded* body: gzip / deflate are
decoded here, bounded (a small compressed reply cannot expand to gigabytes); any other
encoding — never asked for — is refused.

:meth:`~omg_agent.brain.llm.LLMClient._complete` turns :class:`ReplyTooLarge` into one
:class:`~omg_agent.errors.LLMRequestError` (not retried: the same request gets the same
answer).
"""

from __future__ import annotations

import os
import ssl
import zlib
from collections.abc import Iterator
from typing import Any

import openai

try:  # the openai SDK's HTTP library: httpx2 in openai 3, httpx before
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef,import-not-found]

MAX_REPLY_BYTES = 4 * 1024 * 1024
ACCEPTED_ENCODINGS = "gzip, deflate"  # what we ask for, and decode (bounded) ourselves


class ReplyTooLarge(openai.APIConnectionError):
    """The endpoint's answer passed the size limit (or came in an encoding not asked for).
    An ``APIConnectionError`` to whoever only knows the SDK's errors (``doctor``)."""

    def __init__(self, message: str, request: Any) -> None:
        super().__init__(message=message, request=request)


def _mib(n: int) -> str:
    return f"{n / 2**20:g} MiB"


class _CappedBody(httpx.SyncByteStream):
    """``inner`` decoded (gzip / deflate, when ``encoding`` says so) and cut at ``limit``
    bytes with :class:`ReplyTooLarge`."""

    def __init__(self, inner: Any, limit: int, encoding: str | None, request: Any) -> None:
        self._inner = inner
        self._limit = limit
        self._request = request
        # wbits | 32: a zlib or a gzip header, detected
        self._zlib = zlib.decompressobj(zlib.MAX_WBITS | 32) if encoding else None

    def __iter__(self) -> Iterator[bytes]:
        seen = 0
        for raw in self._inner:
            chunk = raw
            if self._zlib is not None:
                try:  # at most one byte past the limit is ever decoded
                    chunk = self._zlib.decompress(raw, self._limit - seen + 1)
                except zlib.error as exc:
                    raise ReplyTooLarge(f"model endpoint sent a reply that does not "
                                        f"decompress ({exc})", self._request) from None
                if self._zlib.unconsumed_tail:
                    seen = self._limit + 1
            seen += len(chunk)
            if seen > self._limit:
                raise ReplyTooLarge(f"model endpoint sent a reply over "
                                    f"{_mib(self._limit)}, more than any model API sends",
                                    self._request)
            if chunk:
                yield chunk
        rest = self._zlib.flush() if self._zlib is not None else b""
        if seen + len(rest) > self._limit:
            raise ReplyTooLarge(f"model endpoint sent a reply over {_mib(self._limit)}, "
                                "more than any model API sends", self._request)
        if rest:
            yield rest

    def close(self) -> None:
        self._inner.close()


def cap_response(response: Any, limit: int = MAX_REPLY_BYTES) -> None:
    """The response hook: refuse what is declared too large, bound the rest (see module)."""
    length = response.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit and "content-encoding" not in response.headers:
        raise ReplyTooLarge(f"model endpoint announced a reply of {_mib(int(length))}, "
                            f"over the {_mib(limit)} limit of a reply",
                            response.request)
    encodings = [e.strip().lower() for e in
                 response.headers.get("content-encoding", "").split(",") if e.strip()]
    encodings = [e for e in encodings if e != "identity"]
    if encodings and (len(encodings) > 1 or encodings[0] not in ("gzip", "deflate")):
        raise ReplyTooLarge(f"model endpoint sent its reply encoded as "
                            f"{', '.join(encodings)}; only {ACCEPTED_ENCODINGS} are read",
                            response.request)
    if encodings:
        del response.headers["content-encoding"]  # decoded here, bounded, instead
    response.stream = _CappedBody(response.stream, limit, encodings[0] if encodings else None,
                                  response.request)


_TLS: dict[tuple[str, str], ssl.SSLContext] = {}


def tls_context() -> ssl.SSLContext:
    """The TLS context the SDK's client would make (certificates checked, the CA bundle,
    ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` honoured), made once per process and per value of
    those two: each client made its own, ~30 ms of CPU reading the CA bundle, and a run
    opens a client per role."""
    key = (os.environ.get("SSL_CERT_FILE", ""), os.environ.get("SSL_CERT_DIR", ""))
    if key not in _TLS:
        _TLS[key] = httpx.create_ssl_context()
    return _TLS[key]


def capped_client(http_client: Any = None) -> Any:
    """``http_client`` (default: the SDK's own default client) with :func:`cap_response`
    as its last response hook."""
    if http_client is None:
        http_client = openai.DefaultHttpxClient(headers={"Accept-Encoding": ACCEPTED_ENCODINGS},
                                                verify=tls_context())
    hooks = http_client.event_hooks
    http_client.event_hooks = {**hooks, "response": [*hooks.get("response", []),
                                                     cap_response]}
    return http_client


__all__ = ["MAX_REPLY_BYTES", "ReplyTooLarge", "cap_response", "capped_client", "tls_context"]
