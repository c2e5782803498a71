"""Resolve stage: facts.extracted -> facts.resolved (seed, step 2: entity resolution).

One embedding batch per episode, for the entity names that have no exact match and the
names facts use without listing them (probes, streams/domain/resolution.py). Then the
user's world is decided on the resolved names (streams/domain/users_world.py: the
allow-list, the fact cap, orphans), so an alias of a linked entity counts as that
entity, and only the entities that survive are inserted. The database connection is
released while the model is called, so a slow embedder does not hold pool connections.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from streams.domain import resolution
from streams.domain.drops import bound_dropped
from streams.domain.entity_rows import EntityNeighbour
from streams.domain.resolution import Incoming
from streams.domain.users_world import keep_users_world
from streams.events import FactsExtracted, FactsResolved
from streams.model.ports import CallRecord
from streams.runtime.stage import RecordContext, Stage, StageDeps
from streams.stages.embed_batch import EmbeddingStage, derived_event_id, scope_of
from streams.store.context import load_user_linked
from streams.store.entities import (
    NameLookup,
    names_finder,
    nearest_other_than_user_batched,
    type_searcher,
    upsert_entities,
)
from streams.store.llm_calls import with_calls

STAGE = "resolve"


class ResolveStage(EmbeddingStage[FactsExtracted]):
    name = STAGE
    input_model: type[BaseModel] = FactsExtracted

    def __init__(self, deps: StageDeps) -> None:
        super().__init__(deps)
        # Concurrent records' exact-name lookups share a statement (micro-batching).
        self._find_names = names_finder(self.pool)
        self._search = type_searcher(self.pool)

    async def handle(self, event: FactsExtracted, ctx: RecordContext) -> Sequence[BaseModel]:
        ds, proj = event.dataset, event.project_id
        listed = resolution.incoming(event.entities)
        items = listed + resolution.probes(event.facts, listed)
        rows = await self._find_names(NameLookup(ds, proj, tuple(sorted({i.name for i in items}))))
        to_search = resolution.needs_search(items, rows)
        calls: list[CallRecord] = []  # the embedding call's records, stored with a read below
        vecs = await self.embed(event, "entities", [i.name for i in to_search], calls)
        plan = await self._plan(event, items, rows, to_search, vecs)
        async with self.pool.acquire() as conn:
            entities, facts = resolution.rename(items, plan, event.facts)
            stored_linked = await load_user_linked(
                conn, ds, proj, {f.subject for f in facts},
                record=lambda q, a: with_calls(q, a, scope_of(event), STAGE, calls),
            )  # fmt: skip
            entities, facts, dropped = keep_users_world(
                entities, facts, stored_linked, self.settings.max_facts_per_episode
            )
            kept = {(e.name, e.type.value) for e in entities}
            inserts = [n for n in plan.inserts if (n.name, n.type) in kept]
            ids = await upsert_entities(conn, ds, proj, inserts)
        entities, facts = resolution.fill_ids(entities, facts, ids)
        return [
            FactsResolved(
                event_id=derived_event_id(STAGE, event),
                **event.carried(),
                entities=entities,
                facts=facts,
                dropped=bound_dropped([*event.dropped, *dropped]),
            )
        ]

    async def _plan(
        self,
        event: FactsExtracted,
        items: Sequence[Incoming],
        rows: Sequence[resolution.EntityRow],
        to_search: Sequence[Incoming],
        vecs: Sequence[list[float]],
    ) -> resolution.Plan:
        found = await nearest_other_than_user_batched(
            self._search, self.pool, event.dataset, event.project_id,
            [(v, i.search_type) for i, v in zip(to_search, vecs, strict=True)],
            tuning=self.tuning,
        )  # fmt: skip
        keys = [(i.name, i.type.value) for i in to_search]
        neighbours: dict[tuple[str, str], EntityNeighbour | None] = {
            key: (per[0] if per else None) for key, per in zip(keys, found, strict=True)
        }
        vectors = dict(zip(keys, vecs, strict=True))
        return resolution.plan(
            items, rows, vectors, neighbours, self.settings.entity_resolution_threshold
        )


def create_stage(deps: StageDeps) -> Stage[Any]:
    return ResolveStage(deps)
