"""Strict JSON schemas for OpenAI-compatible servers, derived from our response models."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, Field

from streams.domain.graph import RawEntity, RawGraph
from streams.model.openai.schema import StrictSchemaError, response_format, strict_schema
from streams.model.ports import JudgeOutput, SummaryOutput


def objects(schema: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            found.append(schema)
        for value in schema.values():
            found += objects(value)
    elif isinstance(schema, list):
        for value in schema:
            found += objects(value)
    return found


def keys(schema: Any) -> set[str]:
    if isinstance(schema, dict):
        return set(schema) | {k for v in schema.values() for k in keys(v)}
    if isinstance(schema, list):
        return {k for v in schema for k in keys(v)}
    return set()


@pytest.mark.parametrize("model", [RawGraph, JudgeOutput, SummaryOutput])
def test_every_object_requires_all_its_properties_and_no_others(model: type[BaseModel]) -> None:
    schema = strict_schema(model)
    found = objects(schema)
    assert found, "no object schema at all"
    for obj in found:
        assert obj["required"] == list(obj["properties"])
        assert obj["additionalProperties"] is False
    assert "default" not in keys(schema)


def test_the_graph_keeps_its_fields_types_and_nullable_dates() -> None:
    schema = strict_schema(RawGraph)
    claim = schema["$defs"]["RawClaim"]
    assert list(claim["properties"]) == [
        "subject", "predicate", "object", "confidence", "sourceQuote", "validFrom", "validUntil",
    ]  # fmt: skip
    assert claim["properties"]["confidence"]["type"] == "number"
    assert claim["properties"]["validFrom"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert schema["properties"]["relationships"]["items"] == {"$ref": "#/$defs/RawClaim"}


def test_it_is_derived_so_a_required_field_or_a_new_one_follows_the_model() -> None:
    """Whether RawClaim's confidence and sourceQuote have defaults or are required, the
    strict schema is the same; a new field reaches it without touching this module."""

    class RequiredClaim(BaseModel):
        subject: str
        predicate: str
        object: str
        confidence: float
        sourceQuote: str
        validFrom: str | None = None
        validUntil: str | None = None
        extra: int = 0

    class Graph(BaseModel):
        entities: list[RawEntity] = Field(default_factory=list)
        relationships: list[RequiredClaim] = Field(default_factory=list)

    claim = strict_schema(Graph)["$defs"]["RequiredClaim"]
    assert claim["required"] == list(claim["properties"])
    assert claim["properties"]["extra"] == {"title": "Extra", "type": "integer"}
    base = strict_schema(RawGraph)["$defs"]["RawClaim"]["properties"]

    def types(props: dict[str, Any]) -> dict[str, Any]:
        return {k: v.get("type", v.get("anyOf")) for k, v in props.items() if k != "extra"}

    assert types(claim["properties"]) == types(base)


def test_verdicts_are_an_enum_of_the_three_answers() -> None:
    schema = strict_schema(JudgeOutput)
    assert schema["$defs"]["Verdict"]["enum"] == ["old", "new", "neither"]


def test_property_names_that_look_like_keywords_are_properties_not_keywords() -> None:
    class Odd(BaseModel):
        default: str = "x"
        properties: int = 0
        type: str | None = None

    schema = strict_schema(Odd)
    assert list(schema["properties"]) == ["default", "properties", "type"]
    assert schema["required"] == ["default", "properties", "type"]
    assert "default" not in schema["properties"]["default"]


def test_a_ref_with_siblings_is_inlined() -> None:
    class Inner(BaseModel):
        x: int

    class Outer(BaseModel):
        inner: Inner = Field(description="the inner part")

    assert set(Outer.model_json_schema()["properties"]["inner"]) == {"$ref", "description"}
    inner = strict_schema(Outer)["properties"]["inner"]
    assert "$ref" not in inner and inner["description"] == "the inner part"
    assert inner["required"] == ["x"] and inner["additionalProperties"] is False


def test_a_free_form_dict_cannot_be_strict() -> None:
    class Loose(BaseModel):
        tags: dict[str, str]

    with pytest.raises(StrictSchemaError, match="free-form"):
        strict_schema(Loose)


def test_the_response_format_names_the_model_and_is_strict() -> None:
    fmt = response_format(SummaryOutput)
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "SummaryOutput" and fmt["json_schema"]["strict"] is True
    assert fmt["json_schema"]["schema"] == strict_schema(SummaryOutput)
