"""The JSON schema a model is sent, made from the contracts of
:mod:`omg_agent.core.contracts` (pydantic models), and the way back from a strict reply.

What is sent is compact (:func:`compact_schema`, issue 27: the schema goes out with every
request and is billed as prompt by many providers): no titles, no discriminator maps, no
defaults, each description once, optional fields without their ``null`` branch — the reply
is still validated by the full pydantic models. Two flavours: the plain schema
(``strict=False``, the default; endpoints that enforce it — vLLM guided decoding, OpenAI
non-strict — accept ``oneOf``), and :func:`strict_schema`, the subset OpenAI's
``strict: true`` mode demands (every field required and nullable when it was optional,
``anyOf`` instead of ``oneOf``, no defaults, ``additionalProperties: false`` everywhere).
A reply to the strict schema uses ``null`` for "not given"; :func:`drop_nulls` turns that
back into absent fields before validation. Pure data, no I/O.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Collection
from typing import Any

from pydantic import BaseModel

from omg_agent.core.actions import IN_PROMPT


def json_schema(model_cls: type[BaseModel], *, strict: bool = False,
                compact: bool = True) -> dict[str, Any]:
    """The JSON schema of ``model_cls`` (by alias, ``$defs`` inline), strict or not,
    compact (what is sent) unless ``compact=False`` (pydantic's full schema)."""
    schema = model_cls.model_json_schema(by_alias=True)
    schema = compact_schema(schema) if compact else _unmarked(schema)
    return strict_schema(schema) if strict else schema


def response_format(model_cls: type[BaseModel], *, strict: bool = False,
                    compact: bool = True) -> dict[str, Any]:
    """The OpenAI ``response_format`` value that asks for ``model_cls`` as JSON."""
    return {"type": "json_schema",
            "json_schema": {"name": model_cls.__name__,
                            "schema": json_schema(model_cls, strict=strict, compact=compact),
                            "strict": strict}}


# What the model does not need to write a valid reply: pydantic's titles, discriminator
# maps (the ``const`` tag of each member already tells them apart) and defaults (a field
# left out gets its default when the reply is validated).
_COMPACT_DROP = ("title", "discriminator", "default")


def compact_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without what the model does not need (a new dict).

    Drops titles, discriminator maps and defaults; keeps each description text once (the
    first, in document order: a union's description repeated on every field that uses it
    says nothing new) and none on ``const`` tags (the tag is its own description); an
    optional field's ``anyOf [X, null]`` becomes ``X`` (leaving it out means null, and a
    ``null`` sent anyway is dropped before validation: :func:`drop_nulls`); ``const`` tags
    are required, so the model always writes the member's ``type`` / ``kind``.
    """
    out = _compact_node(copy.deepcopy(schema), set())
    return _hoist_unions(out)


def _compact_node(node: Any, seen: set[str]) -> Any:
    if isinstance(node, list):
        return [_compact_node(n, seen) for n in node]
    if not isinstance(node, dict):
        return node
    for key in _COMPACT_DROP:
        node.pop(key, None)
    variants = node.get("anyOf")
    if isinstance(variants, list) and len(variants) == 2 and {"type": "null"} in variants:
        inner = next(v for v in variants if v != {"type": "null"})
        rest = {k: v for k, v in node.items() if k != "anyOf"}
        node = {**inner, **{k: v for k, v in rest.items() if k not in inner}}
        for key in _COMPACT_DROP:
            node.pop(key, None)
    text = node.get("description")
    if node.pop(IN_PROMPT, False) or isinstance(text, str) and ("const" in node
                                                              or text in seen):
        del node["description"]
    elif isinstance(text, str):
        seen.add(text)
    out = {k: (v if k in ("description", "const", "enum", "required")
               else {n: _compact_node(sub, seen) for n, sub in v.items()}
               if k in ("properties", "$defs") else _compact_node(v, seen))
           for k, v in node.items()}
    props = out.get("properties")
    if isinstance(props, dict):
        tags = [n for n, sub in props.items() if isinstance(sub, dict) and "const" in sub]
        required = list(out.get("required", []))
        if tags:
            out["required"] = required + [t for t in tags if t not in required]
    return out


def _unmarked(node: Any) -> Any:
    """``node`` without the :data:`IN_PROMPT` markers (pydantic's full schema)."""
    if isinstance(node, list):
        return [_unmarked(n) for n in node]
    if isinstance(node, dict):
        return {k: _unmarked(v) for k, v in node.items() if k != IN_PROMPT}
    return node


def _hoist_unions(schema: dict[str, Any]) -> dict[str, Any]:
    """A ``oneOf`` written out more than once (the target of tap, swipe's from / to /
    start, …) becomes one ``$defs`` entry that each place references."""
    counts: dict[str, int] = {}

    def count(node: Any) -> None:
        if isinstance(node, list):
            for n in node:
                count(n)
        elif isinstance(node, dict):
            if isinstance(node.get("oneOf"), list):
                key = json.dumps(node["oneOf"], sort_keys=True)
                counts[key] = counts.get(key, 0) + 1
            for v in node.values():
                count(v)

    count(schema)
    defs = schema.setdefault("$defs", {})
    names: dict[str, str] = {}
    for key, n in counts.items():
        if n > 1:
            names[key] = _union_name([r.get("$ref", "") for r in json.loads(key)], defs)
            defs[names[key]] = {"oneOf": json.loads(key)}

    def replace(node: Any, top: bool = False) -> Any:
        if isinstance(node, list):
            return [replace(n) for n in node]
        if not isinstance(node, dict):
            return node
        key = json.dumps(node["oneOf"], sort_keys=True) \
            if isinstance(node.get("oneOf"), list) else None
        if key in names and not top:
            rest = {k: v for k, v in node.items() if k != "oneOf"}
            return {"$ref": f"#/$defs/{names[key]}", **rest}
        return {k: replace(v) for k, v in node.items()}

    schema["$defs"] = {name: replace(sub, top=name in names.values())
                       for name, sub in defs.items()}
    return {k: (v if k == "$defs" else replace(v)) for k, v in schema.items()}


def _union_name(refs: list[str], defs: Collection[str]) -> str:
    """A ``$defs`` name for a union of ``refs``: the ending its members share
    (``PointTarget``, ``ElementTarget`` → ``Target``), else ``Union``; never taken."""
    words = [re.findall(r"[A-Z][a-z0-9]*", r.rsplit("/", 1)[-1]) for r in refs]
    shared = words[0][-1] if words and words[0] and all(
        w and w[-1] == words[0][-1] for w in words) else "Union"
    name, n = shared, 1
    while name in defs:
        n += 1
        name = f"{shared}{n}"
    return name


# Keywords OpenAI's strict mode rejects (or silently does not support everywhere); the
# pydantic models still enforce them when the reply is validated.
_STRICT_DROP = ("default", "discriminator", "minLength", "maxLength", "pattern", "format",
                "title")


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` rewritten for ``strict: true``: a new dict, the input is not modified."""
    out = copy.deepcopy(schema)
    defs = out.get("$defs", {})
    for name, sub in list(defs.items()):
        defs[name] = _strict_node(sub, defs)
    return _strict_node(out, defs)


def _strict_node(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_strict_node(n, defs) for n in node]
    if not isinstance(node, dict):
        return node
    node = dict(node)
    if "$ref" in node and len(node) > 1:  # strict mode wants a bare $ref: merge siblings in
        ref = node.pop("$ref")
        target = defs.get(ref.rsplit("/", 1)[-1], {})
        node = {**target, **{k: v for k, v in node.items() if k not in target}}
    for key in _STRICT_DROP:
        node.pop(key, None)
    if "oneOf" in node:
        node["anyOf"] = node.pop("oneOf")
    if "const" in node:
        node["enum"] = [node.pop("const")]
    for key in ("anyOf", "allOf", "items", "prefixItems"):
        if key in node:
            node[key] = _strict_node(node[key], defs)
    if node.get("type") == "object" or "properties" in node:
        props = node.get("properties", {})
        required = set(node.get("required", []))
        node["properties"] = {name: _strict_node(sub if name in required else _nullable(sub),
                                                 defs)
                              for name, sub in props.items()}
        node["required"] = list(props)
        node["additionalProperties"] = False
    return node


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` that also accepts ``null`` (already-nullable unions are left alone).

    A constant (the ``type`` / ``kind`` tag of a union member) stays non-null: the model
    must always write it, or the union could not tell its members apart.
    """
    if "const" in node:
        return node
    variants = node.get("anyOf") or node.get("oneOf")
    if variants and any(v.get("type") == "null" for v in variants):
        return node
    if node.get("type") == "null":
        return node
    described = {k: node[k] for k in ("description",) if k in node}
    inner = {k: v for k, v in node.items() if k != "description"}
    return {"anyOf": [inner, {"type": "null"}], **described}


def drop_nulls(data: Any) -> Any:
    """``data`` with every ``null`` object member removed: "null" means "not given".

    Applied to replies before validation, so a model answering the strict schema (where
    every field is required, optional ones as nullable) gets each field's default.
    """
    if isinstance(data, dict):
        return {k: drop_nulls(v) for k, v in data.items() if v is not None}
    if isinstance(data, list):
        return [drop_nulls(v) for v in data]
    return data
