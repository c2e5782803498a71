"""The graph as the extraction model answers it: what the guards take in.

Field names are the response schema's (``sourceQuote``, ``validFrom``, ``literalFacts``);
nothing here is trusted yet: the guards (streams/domain/guards.py) decide what survives.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class RawEntity(BaseModel):
    name: str
    type: str


class RawClaim(BaseModel):
    subject: str
    predicate: str
    object: str
    confidence: float = 1.0
    sourceQuote: str = ""
    validFrom: str | None = None
    validUntil: str | None = None


class RawGraph(BaseModel):
    """The extraction response schema: entities[], relationships[], literalFacts[]."""

    entities: list[RawEntity] = Field(default_factory=list)
    relationships: list[RawClaim] = Field(default_factory=list)
    literalFacts: list[RawClaim] = Field(default_factory=list)
