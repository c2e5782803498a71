"""Dedup stage: facts.resolved -> facts.deduped (seed, step 3: deduplication).

Reads the tenant's live facts (exact triples, then, per survivor, the nearest of its
subject by embedding; for a triple a closure or a replacement ended, when that end was
said) and embeds the exact-pass survivors in one batch. Those nearest
facts inside the contradiction band travel with each candidate, so the judge reads them
by id instead of searching the same index again. The tenant's gate keeps its live facts
unchanged in between; when something else wrote meanwhile (a redriven or replayed
record), the watermark read before the search (``live_facts_as_of``) tells the judge.
The survivors' embeddings are staged in Postgres under the output event's id
(streams/store/staged_vectors.py), not sent: the writer's insert takes them from there.
Every drop travels in the output event for the writer to store, and an episode with no
candidates still emits its (empty) event so the writer can mark the episode done.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from streams.domain import dedup as rules
from streams.domain.facts import LiveFact
from streams.domain.stated_ends import ends_said_unknown
from streams.events import FactsDeduped, FactsResolved
from streams.model.ports import CallRecord
from streams.runtime.stage import RecordContext, Stage, StageDeps
from streams.stages.embed_batch import EmbeddingStage, derived_event_id, scope_of
from streams.store import staged_vectors
from streams.store.live_facts import (
    TriplesLookup,
    believed_finder,
    ends_said,
    nearest_live_facts_batched,
    subject_searcher,
)
from streams.store.llm_calls import with_calls

STAGE = "dedup"


class DedupStage(EmbeddingStage[FactsResolved]):
    name = STAGE
    input_model: type[BaseModel] = FactsResolved

    def __init__(self, deps: StageDeps) -> None:
        super().__init__(deps)
        # Concurrent records' exact-triple reads share a statement (micro-batching).
        self._find_believed = believed_finder(self.pool)
        self._search = subject_searcher(self.pool)

    async def handle(self, event: FactsResolved, ctx: RecordContext) -> Sequence[BaseModel]:
        ds, proj = event.dataset, event.project_id
        # The watermark is read before the search: a write in between makes the judge
        # search again.
        believed, as_of = await self._find_believed(
            TriplesLookup(ds, proj, tuple(rules.batch_triples(event.facts)))
        )
        now = datetime.now(UTC)
        said: dict[int, datetime] = {}
        if unknown := ends_said_unknown(event.facts, believed):
            # Rare (a fact of a triple a closure or a replacement ended): one statement more.
            async with self.pool.acquire() as conn:
                said = await ends_said(conn, ds, proj, unknown)
        exact = rules.exact_pass(
            event.facts, believed, stated_at=event.stated_at or now, now=now,
            min_confidence=self.settings.retrieval_min_confidence, ends_said=said,
        )  # fmt: skip
        calls: list[CallRecord] = []  # the embedding call's records, stored with the vectors
        vectors = await self.embed(event, "facts", [f.sentence() for f in exact.survivors], calls)
        neighbours: list[list[LiveFact]] = []
        if vectors:
            # Several per survivor: the nearest may be barred (validity, same predicate
            # with another object) while the next is a true duplicate; and the judge
            # takes the ones in its band from here.
            neighbours = await nearest_live_facts_batched(
                self._search, self.pool, ds, proj,
                [(v, f.subject) for v, f in zip(vectors, exact.survivors, strict=True)],
                tuning=self.tuning,
            )  # fmt: skip
        near = rules.near_pass(
            exact.survivors, vectors, neighbours,
            self.settings.fact_dedup_threshold, self.settings.contradiction_band_min,
        )  # fmt: skip
        event_id = derived_event_id(STAGE, event)
        if near.vectors or calls:
            async with self.pool.acquire() as conn:
                await staged_vectors.stage(
                    conn, ds, proj, event_id, near.vectors,
                    record=lambda q, a: with_calls(q, a, scope_of(event), STAGE, calls),
                )  # fmt: skip
        return [
            FactsDeduped(
                event_id=event_id,
                **event.carried(),
                candidates=near.candidates,
                closures=exact.closures,
                dropped=[*event.dropped, *exact.dropped, *near.dropped],
                live_facts_as_of=as_of,
            )
        ]


def create_stage(deps: StageDeps) -> Stage[Any]:
    return DedupStage(deps)
