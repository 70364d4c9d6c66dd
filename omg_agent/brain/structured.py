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
from typing import Any, TypeVar, get_args

from pydantic import BaseModel, ValidationError

from omg_agent.core.actions import Action
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
    """The validation errors as ``- path: message`` lines a model can act on. A missing
    field beside one the model wrote instead is one line naming both (``mem_save needs
    `key` (not `name`)``); a field an action does not have names the fields it has."""
    errors = exc.errors(include_url=False)
    lines, used = _renamed(errors), set[int]()
    for parent, _ in lines:
        used.update(i for i, e in enumerate(errors) if tuple(e["loc"][:-1]) == parent
                    and e["type"] in ("missing", "extra_forbidden"))
    out = [line for _, line in lines]
    for i, error in enumerate(errors):
        if i in used:
            continue
        path = ".".join(str(p) for p in error["loc"]) or "(top level)"
        out.append(f"- {path}: {_message(error)}")
    if len(out) > MAX_ERRORS:
        out = [*out[:MAX_ERRORS], f"- … and {len(out) - MAX_ERRORS} more"]
    return "\n".join(out)


def _renamed(errors: list[Any]) -> list[tuple[tuple[Any, ...], str]]:
    """``(parent loc, line)`` for each object missing a field it got under another name."""
    missing: dict[tuple[Any, ...], list[str]] = {}
    extra: dict[tuple[Any, ...], list[str]] = {}
    for error in errors:
        loc = tuple(error["loc"])
        if loc and error["type"] in ("missing", "extra_forbidden"):
            bucket = missing if error["type"] == "missing" else extra
            bucket.setdefault(loc[:-1], []).append(str(loc[-1]))
    out = []
    for parent, wanted in missing.items():
        if parent not in extra:
            continue
        tagged = bool(parent) and str(parent[-1]) in _ACTION_FIELDS  # an action's tag
        who = str(parent[-1]) if tagged else "it"
        path = ".".join(str(p) for p in (parent[:-1] if tagged else parent))
        out.append((parent, f"- {path or '(top level)'}: {who} needs "
                            f"{_ticked(wanted)} (not {_ticked(extra[parent])})"))
    return out


def _message(error: Any) -> str:
    """Pydantic's message, with the fields an action has when it got one it has not."""
    loc = error["loc"]
    if error["type"] == "extra_forbidden" and len(loc) >= 2 and str(loc[-2]) in _ACTION_FIELDS:
        fields = _ACTION_FIELDS[str(loc[-2])]
        has = f"its fields: {_ticked(fields)}" if fields else "it has no other field"
        return f"{loc[-2]} has no `{loc[-1]}` ({has})"
    return str(error["msg"])


def _ticked(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _action_fields() -> dict[str, list[str]]:
    """Each action type's fields as the model writes them (aliases), ``type`` aside."""
    union = get_args(get_args(Action)[0])
    return {get_args(m.model_fields["type"].annotation)[0]:
            [f.alias or n for n, f in m.model_fields.items() if n != "type"] for m in union}


_ACTION_FIELDS = _action_fields()


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
