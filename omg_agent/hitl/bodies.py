"""The request bodies the mirror accepts: small, flat JSON objects.

Every POST of the page is a JSON object one level deep (a tap's point, a text to type, an
answer), so a body is refused before it is parsed when it is larger than :data:`MAX_BODY`
(413) or nested deeper than :data:`MAX_DEPTH` (400: the parser would recurse that deep), and
after parsing when it is not a JSON object (400).
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request

from omg_agent.errors import BodyRefused

MAX_BODY = 64 * 1024  # a typed text of ~20,000 CJK characters still fits
MAX_DEPTH = 8
_OPEN, _CLOSE, _QUOTE, _BACKSLASH = frozenset(b"[{"), frozenset(b"]}"), ord('"'), ord("\\")


def nesting(data: bytes, limit: int = MAX_DEPTH) -> int:
    """How deep ``data``'s arrays and objects nest (counting stops past ``limit``); brackets
    inside strings do not count."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == _BACKSLASH:
                escaped = True
            elif byte == _QUOTE:
                in_string = False
        elif byte == _QUOTE:
            in_string = True
        elif byte in _OPEN:
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                break
        elif byte in _CLOSE:
            depth -= 1
    return deepest


async def read_body(request: Request, limit: int = MAX_BODY) -> bytes:
    """The body, read only up to ``limit`` bytes (a larger one is :class:`BodyRefused`
    413, announced or not)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise BodyRefused(400, "bad Content-Length: expected a number of bytes")
        if int(declared) > limit:
            raise BodyRefused(413, f"the body is {declared} bytes; at most {limit} accepted")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyRefused(413, f"the body is over {limit} bytes; at most {limit} accepted")
        chunks.append(chunk)
    return b"".join(chunks)


async def read_json(request: Request) -> dict[str, Any]:
    """The body as a JSON object (an empty body is ``{}``)."""
    data = await read_body(request)
    if nesting(data) > MAX_DEPTH:
        raise BodyRefused(400, f"the JSON nests deeper than {MAX_DEPTH} levels; the mirror's "
                               "requests are flat objects")
    try:
        body = json.loads(data or b"{}")
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise BodyRefused(400, f"the body is not JSON: {str(exc).splitlines()[0]}") from None
    if not isinstance(body, dict):
        raise BodyRefused(400, f"the body must be a JSON object, not {type(body).__name__}")
    return body
