"""The response schemas of OpenAI's strict structured outputs, derived from our models.

``response_format={"type": "json_schema", "json_schema": {"strict": true, ...}}`` makes
the server constrain decoding to the schema, and strict mode takes a subset of JSON
Schema: every object lists all its properties in ``required`` and has
``additionalProperties: false``; an optional field is expressed as nullable
(``anyOf [..., {"type": "null"}]``, which pydantic already emits for ``X | None``), not
by leaving it out; ``default`` is not accepted; a ``$ref`` stands alone. So the schema is
the pydantic model's own JSON schema (the one the Gemini provider sends) transformed to
that form, never a second hand-written copy: a field added to RawGraph, JudgeOutput or
SummaryOutput reaches both providers. Fields with defaults become required, which only
means the model must always write them; the reply is validated with the same pydantic
model either way.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from streams.errors import ConfigError

# Keys whose value is a map of names to schemas, a schema, or a list of schemas.
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SCHEMA_VALUES = ("items", "additionalProperties", "not", "contains", "propertyNames")
_SCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")
# Not accepted in strict mode, and meaningless once every property is required.
_DROPPED = frozenset({"default"})


class StrictSchemaError(ConfigError, ValueError):
    """A response model uses JSON Schema that strict structured outputs cannot express."""


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """``model``'s JSON schema in the form strict structured outputs require."""
    root = model.model_json_schema()
    return _strict(root, root)


def response_format(model: type[BaseModel]) -> dict[str, Any]:
    """The chat completions ``response_format`` that constrains a reply to ``model``."""
    return {
        "type": "json_schema",
        "json_schema": {"name": model.__name__, "strict": True, "schema": strict_schema(model)},
    }


def _resolve(root: dict[str, Any], ref: str) -> dict[str, Any]:
    if not ref.startswith("#/"):
        raise StrictSchemaError(f"cannot resolve $ref {ref!r}: only local references are")
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    if not isinstance(node, dict):
        raise StrictSchemaError(f"$ref {ref!r} does not point at a schema")
    return node


def _strict(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in node and len(node) > 1:
        # A $ref with siblings (a description on a nested model): inline what it names.
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        node = {**_resolve(root, node["$ref"]), **siblings}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROPPED:
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _strict(schema, root) for name, schema in value.items()}
        elif key in _SCHEMA_VALUES and isinstance(value, dict):
            out[key] = _strict(value, root)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_strict(schema, root) for schema in value]
        else:
            out[key] = value  # data (enum, const, title, ...) is copied as it is
    if out.get("type") == "object" or "properties" in out:
        if "properties" not in out and isinstance(out.get("additionalProperties"), dict):
            raise StrictSchemaError(
                "a free-form object (dict field) cannot be a strict response schema"
            )
        out["required"] = list(out.get("properties", {}))
        out["additionalProperties"] = False
    return out
