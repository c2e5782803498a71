"""The graph, as it flows from extraction to the writer: entities, facts, dropped claims.

What the model found in an episode and what a stage dropped, with why: the parts every
stage event after extraction carries (streams/events/stage_events.py).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, Field, model_validator

from streams.event_fields import (
    MAX_OBJECT_CHARS,
    MAX_QUOTE_CHARS,
    EventTime,
    RowId,
    ShortId,
    Text,
    no_nul,
    text_field,
)
from streams.events.base import EventModel


class EntityType(StrEnum):
    PERSON = "PERSON"
    ORG = "ORG"
    PLACE = "PLACE"
    PRODUCT = "PRODUCT"
    VEHICLE = "VEHICLE"
    ANIMAL = "ANIMAL"
    FOOD = "FOOD"
    EVENT = "EVENT"
    ACTIVITY = "ACTIVITY"
    CONCEPT = "CONCEPT"
    THING = "THING"


USER_ENTITY = "user"


class FactKind(StrEnum):
    RELATIONSHIP = "relationship"  # object names an entity: a graph edge
    LITERAL = "literal"  # object is a value


class Entity(EventModel):
    name: ShortId
    type: EntityType
    # Filled by resolution: the stored entity's id, and the name the model used.
    entity_id: RowId | None = None
    raw_name: Text | None = None


class Fact(EventModel):
    subject: ShortId
    predicate: ShortId
    object: Annotated[str, text_field(MAX_OBJECT_CHARS, 1), AfterValidator(no_nul)]
    kind: FactKind
    confidence: float = Field(ge=0, le=1)
    source_quote: Annotated[str, text_field(MAX_QUOTE_CHARS), AfterValidator(no_nul)] = ""
    valid_from: EventTime | None = None
    valid_until: EventTime | None = Field(
        default=None, description="never before valid_from (an inverted interval is refused)"
    )
    subject_entity_id: RowId | None = None
    object_entity_id: RowId | None = None
    untrusted: Annotated[str, text_field(300), AfterValidator(no_nul)] | None = Field(
        default=None,
        description="why this fact is stored but never ends another one: no confidence"
        " given, or its quote is not in the user's messages (null: trusted)",
    )

    @model_validator(mode="after")
    def _validity_in_order(self) -> Fact:
        if self.valid_from and self.valid_until and self.valid_until < self.valid_from:
            raise ValueError(
                f"valid_until {self.valid_until.isoformat()} is before valid_from"
                f" {self.valid_from.isoformat()}"
            )
        return self

    @property
    def triple(self) -> tuple[str, str, str]:
        return (self.subject, self.predicate, self.object)

    def sentence(self) -> str:
        """The text that is embedded for dedup and the contradiction band."""
        return f"{self.subject} {self.predicate} {self.object}"


class DropStage(StrEnum):
    GUARD = "guard"
    DEDUP = "dedup"
    JUDGE = "judge"
    WRITE = "write"


class Dropped(EventModel):
    """A claim that did not make it, and why: what `factstream trace` shows."""

    stage: DropStage
    reason: Annotated[str, text_field(100), AfterValidator(no_nul)]
    detail: Annotated[str, text_field(1000), AfterValidator(no_nul)] = ""
    subject: Text = ""
    predicate: Text = ""
    object: Text = ""
