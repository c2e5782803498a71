"""What the extraction model answers, before anything is trusted.

Field names are the response schema's (``sourceQuote``, ``validFrom``, ``literalFacts``);
nothing here is trusted yet: the guards (streams/domain/guards.py) decide what survives.

Two faces. The JSON schema sent to the model requires every field of a claim, confidence
and sourceQuote included (the dates as nullable). Reading an answer is lenient item by
item (streams/domain/lenient.py): a claim or entity that breaks the schema is set aside
with its reason in ``rejected`` and the rest is kept, and a claim that still comes without
a confidence reads as ``None``, never as certain.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, field_validator

from streams.domain.lenient import ItemByItem


def _all_required(schema: dict[str, Any]) -> None:
    schema["required"] = list(schema.get("properties", {}))


def _claim_schema(schema: dict[str, Any]) -> None:
    """Every field required; confidence and the quote typed as the model must write them."""
    props = schema.setdefault("properties", {})
    props["confidence"] = {
        "type": "number",
        "minimum": 0,
        "maximum": 1,
        "description": "0.0-1.0: how directly the user stated it",
    }
    props["sourceQuote"] = {"type": "string", "description": "the user's own words, copied"}
    schema["required"] = list(props)


_DATE_SCHEMA: dict[str, Any] = {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}


class RawEntity(BaseModel):
    model_config = ConfigDict(json_schema_extra=_all_required)

    name: str
    type: str


class RawClaim(BaseModel):
    model_config = ConfigDict(json_schema_extra=_claim_schema)

    subject: str
    predicate: str
    object: str
    # Any JSON value: a confidence that is not a number (true, "90%") makes the claim
    # untrusted in the guards, not lost; missing is no confidence, never certain.
    confidence: Any = None
    sourceQuote: str = ""
    # Any JSON value: a date that is not a string loses only itself (the guards reject it
    # as invalid_date), not the claim. The schema sent to the model still says string.
    validFrom: Annotated[Any, WithJsonSchema(_DATE_SCHEMA)] = None
    validUntil: Annotated[Any, WithJsonSchema(_DATE_SCHEMA)] = None

    @field_validator("sourceQuote", mode="before")
    @classmethod
    def _null_is_no_quote(cls, value: Any) -> Any:
        # As a missing key: the claim is kept, untrusted for want of a quote, not lost.
        return "" if value is None else value


class RawGraph(ItemByItem):
    """The extraction response schema: entities[], relationships[], literalFacts[]."""

    model_config = ConfigDict(json_schema_extra=_all_required)
    item_models: ClassVar[dict[str, type[BaseModel]]] = {
        "entities": RawEntity,
        "relationships": RawClaim,
        "literalFacts": RawClaim,
    }

    entities: list[RawEntity] = Field(default_factory=list)
    relationships: list[RawClaim] = Field(default_factory=list)
    literalFacts: list[RawClaim] = Field(default_factory=list)
