"""What a failed request to the model endpoint means: whether to retry it, how long the
endpoint asks us to wait, the words the user sees in the retry notice, and what to say
when a 200 reply is not JSON at all (a web page: the URL is not the API's).

Pure functions over the ``openai`` SDK's exceptions; the retry loop that uses them is
:meth:`omg_agent.brain.llm.LLMClient._complete`. Retried: 408, 409, 429 (unless the quota is
spent, which waiting does not fix), 5xx, timeouts and connection errors, and a 200 whose body
is empty, cut or not valid JSON (:func:`body_failure`: a proxy or server that dropped the
reply half-way); any other status fails at once. ``Retry-After`` is read in both of its forms,
seconds and an HTTP date (:func:`retry_after_s`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

import openai

from omg_agent.errors import LLMRequestError

RETRYABLE = frozenset({408, 409, 429})


@dataclass(frozen=True)
class RequestFailure:
    """One failed request. ``error`` is the full text (records, the final error), ``what``
    the short phrase a notice puts after "<role> model" ("timed out after 60 s")."""

    error: str
    what: str
    retryable: bool
    status: int | None = None
    retry_after: float | None = None


def status_failure(exc: openai.APIStatusError) -> RequestFailure:
    """An HTTP error answer."""
    status, text = exc.status_code, error_text(exc)
    retryable = (status in RETRYABLE or status >= 500) and not _no_quota(exc)
    what = (f"is rate-limited (HTTP {status})" if status == 429 else
            f"answered HTTP {status} ({short(text)})")
    return RequestFailure(text, what, retryable, status, _retry_after(exc))


def connection_failure(exc: openai.APIConnectionError, timeout_s: float) -> RequestFailure:
    """No answer: a timeout after ``timeout_s``, or no connection at all."""
    what = (f"timed out after {timeout_s:.3g} s" if isinstance(exc, openai.APITimeoutError)
            else f"is unreachable ({short(str(exc))})")
    return RequestFailure(f"{type(exc).__name__}: {exc}", what, True)


def error_text(exc: openai.APIStatusError) -> str:
    """The endpoint's own message in an error body, else the SDK's."""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return exc.message


def short(text: str, limit: int = 80) -> str:
    """``text`` on one line, cut to ``limit`` characters (for a notice)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 1] + "…"


def _no_quota(exc: openai.APIStatusError) -> bool:
    """A 429 for an exhausted quota, which waiting does not fix."""
    body = exc.body if isinstance(exc.body, dict) else {}
    inner = body.get("error", body)
    return isinstance(inner, dict) and inner.get("code") == "insufficient_quota"


def body_failure(detail: str) -> RequestFailure:
    """A 200 whose body is empty, cut or not JSON: a fault on the way, retried like a cut
    with a short Content-Length."""
    return RequestFailure(f"the reply's body is {detail}", f"answered 200 with a body that "
                          f"is {short(detail, 60)}", True, 200)


def json_error_detail(exc: ValueError) -> str:
    """What a JSON decoding error says about a body, in a few words."""
    pos = getattr(exc, "pos", None)
    msg = getattr(exc, "msg", str(exc))
    return ("empty" if pos == 0 and msg.startswith("Expecting value")
            else f"cut or not JSON ({msg} at character {pos})")


def _retry_after(exc: openai.APIStatusError) -> float | None:
    return retry_after_s(exc.response.headers.get("retry-after"))


def retry_after_s(value: str | None, now: float | None = None) -> float | None:
    """``Retry-After`` in seconds from now: its delay-seconds form or its HTTP-date form
    (RFC 9110 §10.2.3); None when absent or unreadable."""
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is always GMT
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def not_json_message(url: str, content_type: str | None) -> str:
    """What to say about an endpoint whose 200 reply is not JSON (a web page, most often)."""
    kind = (content_type or "").split(";")[0].strip() or "no content type"
    what = "JSON that is not a chat completion" if "json" in kind else f"{kind}, not JSON"
    return f"model endpoint {url} answered with {what}: is OMG_BASE_URL the API's /v1 URL?"


def not_json_error(url: str, content_type: str | None, *, role: str = "",
                   model: str = "") -> LLMRequestError:
    """The error for an endpoint whose 200 reply is not JSON: fails at once, no retry."""
    return LLMRequestError(not_json_message(url, content_type), status=200, role=role,
                           model=model)
