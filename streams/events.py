"""Every topic's payload, as pydantic models: the contract for publishers and stages.

`factstream schemas export` writes their JSON Schema into `schemas/`; a test fails when
those files drift from these models. Limits are part of the contract, so they are
constants here and visible in the schema (maxItems, maxLength, pattern).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SCHEMA_VERSION: Literal[1] = 1

# Explicit size limits of EpisodeCompleted. An event over them is dead-lettered.
MAX_MESSAGES_PER_EPISODE = 500
MAX_MESSAGE_CHARS = 20_000
MAX_EVENT_BYTES = 1_000_000
# dataset / project_id: no ':' (the tenant key joins them with one), no whitespace.
TENANT_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$"

TenantId = Annotated[str, Field(pattern=TENANT_ID_PATTERN)]
ShortId = Annotated[str, Field(min_length=1, max_length=200)]


class EventModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TenantEvent(EventModel):
    """What every payload carries: version, its own id, the tenant and the episode."""

    schema_version: Literal[1] = SCHEMA_VERSION
    event_id: str = Field(default_factory=lambda: str(uuid.uuid4()), min_length=1, max_length=100)
    dataset: TenantId
    project_id: TenantId
    episode_id: ShortId

    @property
    def tenant(self) -> str:
        return f"{self.dataset}:{self.project_id}"


# --- memory.episodes.completed ---------------------------------------------------------


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


class Message(EventModel):
    seq: int = Field(ge=0)
    role: Role
    content: str = Field(max_length=MAX_MESSAGE_CHARS)
    created_at: datetime


class Window(EventModel):
    from_seq: int = Field(ge=0)
    to_seq: int = Field(ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> Window:
        if self.to_seq < self.from_seq:
            raise ValueError(f"window to_seq {self.to_seq} is before from_seq {self.from_seq}")
        return self


class EpisodeCompleted(TenantEvent):
    """An application finished a window of chat: extract facts from these messages."""

    session_id: ShortId
    window: Window
    messages: list[Message] = Field(max_length=MAX_MESSAGES_PER_EPISODE)
    completed_at: datetime
    # Set by replays and the sweep: run extraction again even if the episode is done.
    reprocess: bool = False

    @field_validator("messages")
    @classmethod
    def _seq_unique_and_ordered(cls, messages: list[Message]) -> list[Message]:
        seqs = [m.seq for m in messages]
        if seqs != sorted(set(seqs)):
            raise ValueError("message seq values must be unique and ascending")
        return messages

    @model_validator(mode="after")
    def _messages_inside_window(self) -> EpisodeCompleted:
        low, high = self.window.from_seq, self.window.to_seq
        outside = [m.seq for m in self.messages if not low <= m.seq <= high]
        if outside:
            raise ValueError(
                f"messages {outside[:5]} lie outside window "
                f"[{self.window.from_seq}, {self.window.to_seq}]"
            )
        return self

    def window_messages(self) -> list[Message]:
        return list(self.messages)


def decode_episode(raw: bytes) -> EpisodeCompleted:
    """Bytes → EpisodeCompleted, with the byte limit checked before parsing."""
    if len(raw) > MAX_EVENT_BYTES:
        raise ValueError(f"event is {len(raw)} bytes, over the limit of {MAX_EVENT_BYTES}")
    return EpisodeCompleted.model_validate_json(raw)


# --- the graph, as it flows from extraction to the writer ------------------------------


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
    name: str = Field(min_length=1, max_length=200)
    type: EntityType
    # Filled by resolution: the stored entity's id, and the name the model used.
    entity_id: int | None = None
    raw_name: str | None = None


class Fact(EventModel):
    subject: str = Field(min_length=1, max_length=200)
    predicate: str = Field(min_length=1, max_length=200)
    object: str = Field(min_length=1, max_length=500)
    kind: FactKind
    confidence: float = Field(ge=0, le=1)
    source_quote: str = Field(default="", max_length=200)
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    subject_entity_id: int | None = None
    object_entity_id: int | None = None
    untrusted: str | None = Field(
        default=None,
        max_length=300,
        description="why this fact is stored but never ends another one: no confidence"
        " given, or its quote is not in the user's messages (null: trusted)",
    )

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
    reason: str = Field(max_length=100)
    detail: str = Field(default="", max_length=1000)
    subject: str = ""
    predicate: str = ""
    object: str = ""


class StageOutput(TenantEvent):
    """What every stage after extraction passes on about the episode it came from."""

    # Encoded without the fields that are None (streams/runtime/codec.py): every such
    # field defaults to None, and these events are read only by our own stages.
    omit_none_fields: ClassVar[bool] = True

    source_event_id: str
    claim_token: str | None = Field(
        default=None,
        max_length=100,
        description="the extraction claim this output belongs to; a dead letter on the way"
        " ends exactly that claim, and the writer marks the episode done only for it",
    )
    stated_at: datetime | None = Field(
        default=None,
        description="when the user said it: the episode's completed_at (event time), the"
        " stated_at of every fact of the episode; None on records from before this field"
        " (the writer then reads it from the episode's ledger row)",
    )

    def carried(self) -> dict[str, Any]:
        """What the next stage's output takes over: tenant, episode, source, claim, time."""
        return {
            "dataset": self.dataset,
            "project_id": self.project_id,
            "episode_id": self.episode_id,
            "source_event_id": self.source_event_id,
            "claim_token": self.claim_token,
            "stated_at": self.stated_at,
        }


class FactsExtracted(StageOutput):
    """memory.facts.extracted: the guarded graph of one episode."""

    entities: list[Entity]
    facts: list[Fact]
    dropped: list[Dropped] = Field(default_factory=list)


class FactsResolved(StageOutput):
    """memory.facts.resolved: canonical names and entity ids applied to every fact."""

    entities: list[Entity]
    facts: list[Fact]
    dropped: list[Dropped] = Field(default_factory=list)


class Candidate(EventModel):
    """A fact that survived dedup. Its embedding does not travel: dedup stages it in
    Postgres (streams/store/staged_vectors.py) and the writer stores it from there."""

    fact: Fact
    vector: int | None = Field(
        default=None,
        ge=0,
        description="the index of this fact's embedding among those dedup staged for the"
        " episode (under FactsJudged.vectors_from); None: none staged, the writer embeds it",
    )
    ended_by: int | None = Field(
        default=None,
        description="a live fact stated later whose start ends this one's valid time: an"
        " older statement the judge paired with a newer fact is stored as history",
    )


class DedupedCandidate(Candidate):
    """A candidate as dedup hands it to the judge: with the live facts it read near it.

    The writer's inserts are plain Candidates (serialised by their declared type), so
    what dedup adds for the judge never reaches the writer."""

    band_neighbours: list[int] | None = Field(
        default=None,
        description=(
            "ids of the live facts of the same subject nearest to this fact with cosine"
            " >= the contradiction band minimum (at most 20), as dedup read them; the"
            " judge reads these rows instead of searching again. None: not read."
        ),
    )
    band_similarity: list[float] | None = Field(
        default=None,
        description="the cosine similarity of this fact to each of band_neighbours, in order",
    )

    def similarity_to(self, fact_id: int) -> float | None:
        """The cosine to a live fact of the band, as dedup measured it (None: not in it)."""
        for neighbour, similarity in zip(
            self.band_neighbours or (), self.band_similarity or (), strict=False
        ):
            if neighbour == fact_id:
                return similarity
        return None


class Closure(EventModel):
    """The user said a live fact ended: set its valid_until (and cascade)."""

    fact_id: int
    subject: str
    predicate: str
    object: str
    valid_until: datetime


# Payload revision of the deduped and judged events: embeddings no longer travel in them
# (revision 1 carried 768 floats per candidate); a reader of one revision refuses the other.
STAGED_VECTORS_REVISION: Literal[2] = 2


class FactsDeduped(StageOutput):
    """memory.facts.deduped: survivors, their embeddings staged under this event's id,
    plus closures."""

    schema_version: Literal[2] = STAGED_VECTORS_REVISION  # type: ignore[assignment]
    candidates: list[DedupedCandidate]
    closures: list[Closure] = Field(default_factory=list)
    dropped: list[Dropped] = Field(default_factory=list)
    live_facts_as_of: datetime | None = Field(
        default=None,
        description=(
            "created_at of the tenant's newest live fact when dedup read the candidates'"
            " neighbours. If the judge finds another, facts were written in between (a"
            " redriven or replayed record) and it searches the band itself."
        ),
    )


class Verdict(StrEnum):
    OLD = "old"  # the new fact replaces the old
    NEW = "new"  # the new fact is wrong or adds nothing
    NEITHER = "neither"  # both true, unrelated, or uncertain


class Invalidation(EventModel):
    """A live fact the judge says is replaced, by which candidate, and why."""

    fact_id: int
    subject: str
    predicate: str
    object: str
    by_candidate: int = Field(ge=0, description="index into FactsJudged.inserts")
    reason: Literal["superseded"] = "superseded"
    valid_until: datetime | None = Field(
        default=None,
        description="where the fact's valid time ends: the winner's valid_from, else its"
        " stated_at; for a candidate ending the same object, its validUntil. None on"
        " records from before this field (the writer then uses the winner's start)",
    )


class FactsJudged(StageOutput):
    """memory.facts.judged: what the writer commits in one transaction."""

    schema_version: Literal[2] = STAGED_VECTORS_REVISION  # type: ignore[assignment]
    vectors_from: str | None = Field(
        default=None,
        max_length=100,
        description="the FactsDeduped event id the inserts' embeddings are staged under",
    )
    inserts: list[Candidate]
    invalidations: list[Invalidation] = Field(default_factory=list)
    closures: list[Closure] = Field(default_factory=list)
    dropped: list[Dropped] = Field(default_factory=list)


TOPIC_PAYLOADS: dict[str, type[TenantEvent]] = {
    "episodes.completed": EpisodeCompleted,
    "facts.extracted": FactsExtracted,
    "facts.resolved": FactsResolved,
    "facts.deduped": FactsDeduped,
    "facts.judged": FactsJudged,
}
