"""Resolve stage: facts.extracted -> facts.resolved (seed, step 2: entity resolution).

One embedding batch per episode, for the entity names that have no exact match. The
database connection is released while the model is called, so a slow embedder does not
hold pool connections.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from streams.domain import resolution
from streams.domain.resolution import EntityNeighbour
from streams.events import USER_ENTITY, FactsExtracted, FactsResolved
from streams.runtime.stage import RecordContext, Stage, StageDeps
from streams.stages.embed_batch import EmbeddingStage, derived_event_id
from streams.store.entities import find_by_names, nearest_same_type, upsert_entities

STAGE = "resolve"


class ResolveStage(EmbeddingStage[FactsExtracted]):
    name = STAGE
    input_model: type[BaseModel] = FactsExtracted

    async def handle(self, event: FactsExtracted, ctx: RecordContext) -> Sequence[BaseModel]:
        ds, proj = event.dataset, event.project_id
        items = resolution.incoming(event.entities)
        async with self.pool.acquire() as conn:
            rows = await find_by_names(conn, ds, proj, sorted({i.name for i in items}))
        to_search = resolution.needs_search(items, rows)
        vecs = await self.embed(event, "entities", [i.name for i in to_search])
        vectors = {(i.name, i.type.value): v for i, v in zip(to_search, vecs, strict=True)}
        async with self.pool.acquire() as conn:
            found = await nearest_same_type(
                conn,
                ds,
                proj,
                [(v, i.type.value) for i, v in zip(to_search, vecs, strict=True)],
                k=1,
                exclude_names=[USER_ENTITY],
                tuning=self.tuning,
            )
            neighbours: dict[tuple[str, str], EntityNeighbour | None] = {
                (i.name, i.type.value): (per[0] if per else None)
                for i, per in zip(to_search, found, strict=True)
            }
            plan = resolution.plan(
                items, rows, vectors, neighbours, self.settings.entity_resolution_threshold
            )
            ids = await upsert_entities(conn, ds, proj, plan.inserts)
        entities, facts = resolution.apply(items, plan, ids, event.facts)
        return [
            FactsResolved(
                event_id=derived_event_id(STAGE, event),
                **event.carried(),
                entities=entities,
                facts=facts,
                dropped=event.dropped,
            )
        ]


def create_stage(deps: StageDeps) -> Stage[Any]:
    return ResolveStage(deps)
