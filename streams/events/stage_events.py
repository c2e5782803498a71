"""The internal stage topics' payloads: memory.facts.{extracted,resolved,deduped,judged}.

Only our own stages publish and read them, so rules across fields are checked here (an
invalidation names an insert), and the deduped and judged events carry a payload revision
of their own. What they are made of is in streams/events/graph.py.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BeforeValidator, Field, model_validator

from streams.event_fields import (
    INT4_MAX,
    MAX_QUOTE_CHARS,
    EventId,
    EventTime,
    RowId,
    Seq,
    Text,
    check_version,
    no_nul,
    text_field,
)
from streams.events.base import EventModel, TenantEvent
from streams.events.graph import Dropped, Entity, Fact


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
    """The user said a live fact ended: set its valid_until (and cascade). ``quote``: the
    user's words that said so, kept with the end so a newer version of the episode can
    take it back (streams/domain/versions.py)."""

    fact_id: RowId
    subject: Text
    predicate: Text
    object: Text
    valid_until: EventTime
    quote: Annotated[str, text_field(MAX_QUOTE_CHARS), AfterValidator(no_nul)] = ""


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
