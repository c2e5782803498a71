"""Every topic's payload, as pydantic models: the contract for publishers and stages.

`factstream schemas export` writes their JSON Schema into `schemas/`; a test fails when
those files drift from these models, and another feeds good and bad events to both the
schema and the consumer and fails on any disagreement. The field types
(streams/event_fields.py) check what a schema can say; what it cannot say (rules across
fields) is accepted with a defined meaning on the input topic, and checked only on the
internal stage topics:

- messages may come in any order (they are read sorted by seq), and only those inside
  the window are read, so a reversed window holds none and the episode is skipped;
- ``event_id`` may be left out: it is then derived from the event's content, the same on
  every decode and in every consumer group;
- a stage event's fact never ends before it starts, and an invalidation names an insert.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from streams.event_fields import (
    INT4_MAX,
    INT8_MAX,
    MAX_EVENT_BYTES,
    MAX_MESSAGE_CHARS,
    MAX_MESSAGES_PER_EPISODE,
    MAX_OBJECT_CHARS,
    MAX_QUOTE_CHARS,
    SCHEMA_VERSION,
    TENANT_ID_PATTERN,
    EventId,
    EventTime,
    RowId,
    Seq,
    ShortId,
    TenantId,
    Text,
    check_version,
    no_nul,
    text_field,
)

__all__ = [
    "INT4_MAX", "INT8_MAX", "MAX_EVENT_BYTES", "MAX_MESSAGES_PER_EPISODE", "MAX_MESSAGE_CHARS",
    "MAX_OBJECT_CHARS", "MAX_QUOTE_CHARS", "SCHEMA_VERSION", "TENANT_ID_PATTERN",
]  # fmt: skip
_EVENT_ID_NAMESPACE = uuid.UUID("6b1f0c9e-3a57-4f0e-9d42-7c2e8a4b5d13")


class EventModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TenantEvent(EventModel):
    """What every payload carries: version, its own id, the tenant and the episode."""

    schema_version: Annotated[Literal[1], BeforeValidator(check_version)] = SCHEMA_VERSION
    event_id: EventId = Field(
        default_factory=lambda: str(uuid.uuid4()),
        description="unique per event; left out, it is derived from the event's content"
        " (a UUID5 of its canonical JSON), so every decode of the record gives the same id",
    )
    dataset: TenantId
    project_id: TenantId
    episode_id: ShortId

    @model_validator(mode="before")
    @classmethod
    def _derived_event_id(cls, data: Any, info: ValidationInfo) -> Any:
        """A record without event_id: the same id on every decode, in every group."""
        if info.mode != "json" or not isinstance(data, dict) or "event_id" in data:
            return data
        canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return {**data, "event_id": str(uuid.uuid5(_EVENT_ID_NAMESPACE, canonical))}

    @property
    def tenant(self) -> str:
        return f"{self.dataset}:{self.project_id}"

    def copy_size(self) -> int | None:
        """Bytes of the copies the pipeline makes of this event later (None: it makes none)."""
        return None


# --- memory.episodes.completed ---------------------------------------------------------


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


class Message(EventModel):
    seq: Seq
    role: Role
    content: Annotated[str, text_field(MAX_MESSAGE_CHARS), AfterValidator(no_nul)]
    created_at: EventTime


class Window(EventModel):
    """The seqs of the episode, both ends included; a reversed window holds none."""

    from_seq: Seq
    to_seq: Seq

    def holds(self, seq: int) -> bool:
        return self.from_seq <= seq <= self.to_seq


# How far a publisher's clock may run ahead of a worker's (unsynchronised clocks drift).
MAX_CLOCK_SKEW = timedelta(minutes=15)


class EpisodeCompleted(TenantEvent):
    """An application finished a window of chat: extract facts from these messages.

    Limits a JSON Schema cannot state: the event is at most 1,000,000 bytes, both as sent
    and as re-encoded with every default filled in (the copies the pipeline republishes);
    completed_at is at most 15 minutes ahead of the reader's clock (a statement
    dated in the future would outrank every true later one: event time beats arrival
    order); messages are read in seq order, and only those inside the window."""

    session_id: ShortId
    window: Window
    messages: list[Message] = Field(max_length=MAX_MESSAGES_PER_EPISODE)
    completed_at: EventTime
    # Set by replays and the sweep: run extraction again even if the episode is done.
    reprocess: StrictBool = False

    @field_validator("messages")
    @classmethod
    def _in_seq_order(cls, messages: list[Message]) -> list[Message]:
        return sorted(messages, key=lambda m: m.seq)

    @field_validator("completed_at")
    @classmethod
    def _not_in_the_future(cls, completed_at: datetime) -> datetime:
        ahead = completed_at - datetime.now(UTC)
        if ahead > MAX_CLOCK_SKEW:
            raise PydanticCustomError(
                "completed_in_future",
                "completed_at {at} is {ahead} ahead of this clock; more than {skew} ahead is"
                " refused, as a statement from the future would outrank every later one",
                {
                    "at": completed_at.isoformat(),
                    "ahead": str(ahead).split(".")[0],
                    "skew": str(MAX_CLOCK_SKEW),
                },
            )
        return completed_at

    @model_validator(mode="after")
    def _copies_fit(self) -> EpisodeCompleted:
        size = self.copy_size()
        if size > MAX_EVENT_BYTES:
            raise PydanticCustomError(
                "event_too_large",
                "event is {size} bytes once encoded with every default filled in, as the"
                " pipeline's copies of it are; the limit is {limit}",
                {"size": size, "limit": MAX_EVENT_BYTES},
            )
        return self

    def copy_size(self) -> int:
        """Bytes of the copy rebuilt from the ledger (wake-ups, the sweep, releases): this
        event with every default filled in and reprocess false; its completed_at comes
        back in UTC, which is never longer."""
        return len(self.model_copy(update={"reprocess": False}).model_dump_json().encode())

    def window_messages(self) -> list[Message]:
        """The messages the episode is about: those inside its window, in seq order."""
        return [m for m in self.messages if self.window.holds(m.seq)]

    def why_empty(self) -> str:
        """Why the window holds no message (for the ledger's skip reason)."""
        low, high = self.window.from_seq, self.window.to_seq
        if high < low:
            return f"no messages in the window: it is reversed (to_seq {high} < from_seq {low})"
        if self.messages:
            count = len(self.messages)
            return f"no messages in the window [{low}, {high}]: all {count} lie outside it"
        return "no messages in the window"


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


class StageOutput(TenantEvent):
    """What every stage after extraction passes on about the episode it came from."""

    # Encoded without the fields that are None (streams/runtime/codec.py): every such
    # field defaults to None, and these events are read only by our own stages.
    omit_none_fields: ClassVar[bool] = True

    source_event_id: EventId
    claim_token: EventId | None = Field(
        default=None,
        description="the extraction claim this output belongs to; a dead letter on the way"
        " ends exactly that claim, and the writer marks the episode done only for it",
    )
    stated_at: EventTime | None = Field(
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
        le=INT4_MAX,
        description="the index of this fact's embedding among those dedup staged for the"
        " episode (under FactsJudged.vectors_from); None: none staged, the writer embeds it",
    )
    ended_by: RowId | None = Field(
        default=None,
        description="a live fact stated later whose start ends this one's valid time: an"
        " older statement the judge paired with a newer fact is stored as history",
    )


class DedupedCandidate(Candidate):
    """A candidate as dedup hands it to the judge: with the live facts it read near it.

    The writer's inserts are plain Candidates (serialised by their declared type), so
    what dedup adds for the judge never reaches the writer."""

    band_neighbours: list[RowId] | None = Field(
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

    fact_id: RowId
    subject: Text
    predicate: Text
    object: Text
    valid_until: EventTime


# Payload revision of the deduped and judged events: embeddings no longer travel in them
# (revision 1 carried 768 floats per candidate); a reader of one revision refuses the other.
STAGED_VECTORS_REVISION: Literal[2] = 2
Revision2 = Annotated[Literal[2], BeforeValidator(check_version)]


class FactsDeduped(StageOutput):
    """memory.facts.deduped: survivors, their embeddings staged under this event's id,
    plus closures."""

    schema_version: Revision2 = STAGED_VECTORS_REVISION  # type: ignore[assignment]
    candidates: list[DedupedCandidate]
    closures: list[Closure] = Field(default_factory=list)
    dropped: list[Dropped] = Field(default_factory=list)
    live_facts_as_of: EventTime | None = Field(
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

    fact_id: RowId
    subject: Text
    predicate: Text
    object: Text
    by_candidate: Seq = Field(description="index into FactsJudged.inserts")
    reason: Literal["superseded"] = "superseded"
    valid_until: EventTime | None = Field(
        default=None,
        description="where the fact's valid time ends: the winner's valid_from, else its"
        " stated_at; for a candidate ending the same object, its validUntil. None on"
        " records from before this field (the writer then uses the winner's start)",
    )


class FactsJudged(StageOutput):
    """memory.facts.judged: what the writer commits in one transaction."""

    schema_version: Revision2 = STAGED_VECTORS_REVISION  # type: ignore[assignment]
    vectors_from: EventId | None = Field(
        default=None,
        description="the FactsDeduped event id the inserts' embeddings are staged under",
    )
    inserts: list[Candidate]
    invalidations: list[Invalidation] = Field(default_factory=list)
    closures: list[Closure] = Field(default_factory=list)
    dropped: list[Dropped] = Field(default_factory=list)

    @model_validator(mode="after")
    def _winners_exist(self) -> FactsJudged:
        bad = [i.by_candidate for i in self.invalidations if i.by_candidate >= len(self.inserts)]
        if bad:
            raise ValueError(
                f"invalidations name by_candidate {bad[:5]}, past the {len(self.inserts)} inserts"
            )
        return self


TOPIC_PAYLOADS: dict[str, type[TenantEvent]] = {
    "episodes.completed": EpisodeCompleted,
    "facts.extracted": FactsExtracted,
    "facts.resolved": FactsResolved,
    "facts.deduped": FactsDeduped,
    "facts.judged": FactsJudged,
}
