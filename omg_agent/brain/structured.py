"""Turning a model's reply text into a validated contract, or into feedback for a retry.

Models wrap JSON in ```json fences, prefix it with a sentence, think aloud in ``<think>``
tags, or get cut off at the token limit. :func:`parse_reply` tolerates the harmless cases and
raises :class:`InvalidReply` with a short, model-readable explanation for the rest;
:func:`feedback_message` is the user message that sends that explanation back. Replies use
``null`` for "not given" (:func:`omg_agent.core.wire_schema.drop_nulls`). Pure functions; the
retry loop lives in :mod:`omg_agent.brain.llm`.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from omg_agent.core.schema_slim import slim_json_schema
from omg_agent.core.wire_schema import drop_nulls

M = TypeVar("M", bound=BaseModel)

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.S)
MAX_ERRORS = 12


class InvalidReply(ValueError):
    """A reply that is not the JSON object asked for; ``str()`` is the feedback text."""


def extract_json(text: str) -> Any:
    """The JSON value in ``text``: bare, fenced, or the first ``{…}`` after some prose."""
    body = _THINK.sub("", text).strip()
    if not body:
        raise InvalidReply("the reply is empty; send the JSON object")
    fenced = _FENCE.search(body)
    candidate = fenced.group(1).strip() if fenced else body
    try:
        return json.loads(candidate)
    except json.JSONDecodeError as exc:
        first_error = exc
    start = candidate.find("{")
    if start >= 0:
        try:
            value, _ = json.JSONDecoder().raw_decode(candidate, start)
            return value
        except json.JSONDecodeError as exc:
            first_error = exc
    raise InvalidReply(f"the reply is not valid JSON ({first_error.msg} at line "
                       f"{first_error.lineno} column {first_error.colno})")


def describe_validation(exc: ValidationError) -> str:
    """The validation errors as ``- path: message`` lines a model can act on."""
    lines = []
    for error in exc.errors(include_url=False)[:MAX_ERRORS]:
        path = ".".join(str(p) for p in error["loc"]) or "(top level)"
        lines.append(f"- {path}: {error['msg']}")
    if exc.error_count() > MAX_ERRORS:
        lines.append(f"- … and {exc.error_count() - MAX_ERRORS} more")
    return "\n".join(lines)


def parse_reply(text: str, model_cls: type[M], *, finish_reason: str | None = None) -> M:
    """``text`` validated as ``model_cls``; raises :class:`InvalidReply` saying what is wrong."""
    try:
        data = extract_json(text)
    except InvalidReply as exc:
        if finish_reason == "length":
            raise InvalidReply(f"{exc}: the reply was cut off at the token limit; answer "
                               "more briefly") from None
        raise
    if not isinstance(data, dict):
        raise InvalidReply(f"expected one JSON object, got {type(data).__name__}")
    try:
        return model_cls.model_validate(drop_nulls(data))
    except ValidationError as exc:
        raise InvalidReply(f"the JSON does not match {model_cls.__name__}:\n"
                           + describe_validation(exc)) from None


def feedback_message(error: InvalidReply | str, model_cls: type[BaseModel]) -> dict[str, Any]:
    """The user message that follows an invalid reply and asks for a corrected one."""
    return {"role": "user",
            "content": f"Your previous reply could not be used: {error}\n"
                       f"Reply again with only the corrected JSON object for "
                       f"{model_cls.__name__}, nothing else."}


def schema_instructions(model_cls: type[BaseModel]) -> str:
    """Plain-text instructions carrying the schema, for endpoints without ``json_schema``."""
    schema = _without_titles(slim_json_schema(model_cls))
    return (f"Reply with exactly one JSON object (no prose, no code fences) that is a valid "
            f"{model_cls.__name__} according to this JSON schema:\n"
            + json.dumps(schema, separators=(",", ":"), ensure_ascii=False))


def _without_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _without_titles(v) for k, v in node.items()
                if not (k == "title" and isinstance(v, str))}
    if isinstance(node, list):
        return [_without_titles(v) for v in node]
    return node
