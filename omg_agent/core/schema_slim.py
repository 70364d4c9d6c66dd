"""The schema a model is sent: the contracts' compact schema, slimmed (issue 27, token diet).

The ``response_format`` schema goes out with every request and is billed as prompt by
providers that put it there (the relay round measured 2,236 o200k tokens of 5,160 per
operator request). What the model needs from it is the shape of a reply: field names,
types, enums, the ``type`` / ``kind`` tags of the unions and which fields are required.
The rest is validation, which our side does anyway — every reply is checked by the pydantic
models of :mod:`omg_agent.core.contracts`, which stay exactly as strict, and a refused reply
goes back to the model with the error, which names the field and what is accepted.

On top of :func:`omg_agent.core.contracts.compact_schema` this drops:

- length, range, pattern and item-count limits (``minLength`` … ``maxItems``): the operator
  prompt states the ones that matter (0–1000 coordinates, 1 to 5 actions);
- ``additionalProperties: false`` but on the actions (a decoder then cannot write
  ``mem_save.name``): guided decoding (xgrammar's default) and OpenAI's non-strict mode do
  not need it elsewhere; the strict flavour writes it back on every object;
- the ``type`` beside a ``const`` or an ``enum`` (the values say it); the strict flavour
  writes it back;
- for :class:`~omg_agent.core.contracts.DecisionBundle`, every description the operator
  prompt gives (all but :data:`KEPT`, which say what only the schema says);
- the ``Key`` enum of 29 names (the prompt names the common ones; pydantic's error lists
  them all);

writes each ``$defs`` entry used only once in place of its ``$ref``, and sends ``oneOf`` as
``anyOf`` (the members' tags make them exclusive anyway; OpenAI's strict mode and some
guided-decoding engines know only ``anyOf``). The action union stays a union, one object per
``type`` with only its own fields (issue 40: a schema that merged every action's fields into
one object let models write ``mem_save.name`` or ``scan.target`` and pay a retry; the union
costs ~300 tokens more and the prompt names the same fields per action). OpenAI's
``strict: true`` flavour is :func:`~omg_agent.core.contracts.strict_schema` of the slim
schema, with a ``type`` beside every ``enum`` (strict mode wants a type on every leaf). Pure
data, no I/O.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel

from omg_agent.core.contracts import DecisionBundle
from omg_agent.core.wire_schema import json_schema, strict_schema

# Keywords the model does not need to write a valid reply: pydantic enforces them.
VALIDATION_ONLY = ("minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
                   "exclusiveMaximum", "pattern", "minItems", "maxItems",
                   "additionalProperties")
# Contracts whose every field the operator prompt explains (operator.md and its mode
# parts): their schema carries only the descriptions in KEPT.
PROMPT_DESCRIBED: tuple[type[BaseModel], ...] = (DecisionBundle,)
# "Def.field": the one description each of these keeps — what the prompt does not say.
KEPT = {
    "ElementCheck.shows": "Text the element must contain.",
    "ElementCheck.in_field": "In an edit field (else typed, unsent text is no evidence).",
    "FromScreen.region": "A 0–1000 box whose text is read (OCR).",
}
# "Def.field": a looser shape sent in place of the field's own (pydantic still checks it).
LOOSE: dict[str, dict[str, Any]] = {
    "Key.key": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
}


def slim_schema(model_cls: type[BaseModel]) -> dict[str, Any]:
    """The slim schema of ``model_cls`` (a new dict)."""
    schema = copy.deepcopy(json_schema(model_cls))
    described = model_cls not in PROMPT_DESCRIBED
    defs = schema.pop("$defs", {})
    for name, node in [*defs.items(), (model_cls.__name__, schema)]:
        for field, sub in node.get("properties", {}).items():
            key = f"{name}.{field}"
            if key in LOOSE:
                node["properties"][field] = copy.deepcopy(LOOSE[key])
            elif not described and isinstance(sub, dict):
                sub.pop("description", None)
                if key in KEPT:
                    sub["description"] = KEPT[key]
        if not described:
            node.pop("description", None)
    uses: dict[str, int] = {}
    _count_refs([schema, defs], uses)
    kept = {n: d for n, d in defs.items() if uses.get(n, 0) > 1}
    out = _slim_node(_inline(schema, defs, kept))
    if kept:
        out["$defs"] = {n: _slim_node(_inline(d, defs, kept)) for n, d in kept.items()}
    return out


def slim_json_schema(model_cls: type[BaseModel], *, strict: bool = False) -> dict[str, Any]:
    """The schema sent for ``model_cls``: slim, and rewritten for ``strict: true`` if asked."""
    if strict:
        return _typed_enums(strict_schema(slim_schema(model_cls)))
    return slim_schema(model_cls)


def response_format(model_cls: type[BaseModel], *, strict: bool = False) -> dict[str, Any]:
    """The OpenAI ``response_format`` value that asks for ``model_cls`` (slim schema)."""
    return {"type": "json_schema",
            "json_schema": {"name": model_cls.__name__,
                            "schema": slim_json_schema(model_cls, strict=strict),
                            "strict": strict}}


def _count_refs(node: Any, uses: dict[str, int]) -> None:
    if isinstance(node, list):
        for n in node:
            _count_refs(n, uses)
    elif isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            name = ref.rsplit("/", 1)[-1]
            uses[name] = uses.get(name, 0) + 1
        for v in node.values():
            _count_refs(v, uses)


def _inline(node: Any, defs: dict[str, Any], kept: dict[str, Any]) -> Any:
    """``node`` with each ``$ref`` to a def not in ``kept`` replaced by the def itself
    (a sibling of the ``$ref``, e.g. a description, stays beside it)."""
    if isinstance(node, list):
        return [_inline(n, defs, kept) for n in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.rsplit("/", 1)[-1] not in kept:
        target = defs[ref.rsplit("/", 1)[-1]]
        rest = {k: v for k, v in node.items() if k != "$ref"}
        return _inline({**target, **rest}, defs, kept)
    return {k: (v if k in ("enum", "const", "required") else _inline(v, defs, kept))
            for k, v in node.items()}


def _slim_node(node: Any) -> Any:
    if isinstance(node, list):
        return [_slim_node(n) for n in node]
    if not isinstance(node, dict):
        return node
    tagged = "const" in node.get("properties", {}).get("type", {})  # an action
    out = {k: v for k, v in node.items() if k not in VALIDATION_ONLY or tagged
           and k == "additionalProperties"}  # an action's fields are closed, as its prompt
    if "const" in out or "enum" in out:
        out.pop("type", None)
    if "oneOf" in out:
        out["anyOf"] = out.pop("oneOf")
    return {k: (v if k in ("enum", "const", "required", "description")
                else {n: _slim_node(s) for n, s in v.items()}
                if k in ("properties", "$defs") else _slim_node(v))
            for k, v in out.items()}


_JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"))


def _typed_enums(node: Any) -> Any:
    """``node`` with a ``type`` beside every ``enum`` that has none (strict mode)."""
    if isinstance(node, list):
        return [_typed_enums(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: (v if k in ("enum", "required") else
               {n: _typed_enums(s) for n, s in v.items()} if k in ("properties", "$defs")
               else _typed_enums(v)) for k, v in node.items()}
    values = out.get("enum")
    if isinstance(values, list) and values and "type" not in out:
        kinds = {next(t for c, t in _JSON_TYPES if isinstance(v, c)) for v in values}
        if len(kinds) == 1:
            out["type"] = kinds.pop()
    return out
