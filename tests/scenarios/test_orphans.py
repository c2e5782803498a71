"""Orphan pruning after resolution (seed "Post-processing": entities no surviving fact
references are not stored), end to end on a real broker and Postgres.

Resolution stores an episode's new entities before dedup and the judge decide on its
claims. When they drop every claim that named one, the writer deletes it, says so in the
episode's drops, and keeps every entity a fact still names (live or history).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from streams.events import EpisodeCompleted
from streams.model.fakes.book import ScriptBook, TenantScript, always, claim, graph
from tests.support.clock import ago
from tests.support.events import episode
from tests.support.fact_table import drops, entities
from tests.support.pipeline import Pipeline, delete_pipeline_topics, pipeline_settings


@dataclass
class Run:
    pipeline: Pipeline
    tenant: tuple[str, str]
    events: list[EpisodeCompleted]


@pytest.fixture(scope="module")
async def run(kafka_bootstrap: str, database_url: str) -> AsyncIterator[Run]:
    settings = await pipeline_settings(kafka_bootstrap, database_url)
    book = ScriptBook(settings.embedding_dim)
    tenant = (f"orphans-{uuid.uuid4().hex[:6]}", "p1")
    book.add(*tenant, TenantScript(
        graphs={
            "ep-1": graph({"london": "PLACE"}, claim("user", "lives in", "london")),
            # The judge says the stored fact stands ("new"): paris and its claim go.
            "ep-2": graph({"paris": "PLACE"}, claim("user", "lives in", "paris")),
            # A claim exactly as stored: dropped by dedup; london keeps its fact.
            "ep-3": graph({"london": "PLACE"}, claim("user", "lives in", "london")),
        },
        verdict=always("new"),
    ))  # fmt: skip
    events = [
        episode(*tenant, "ep-1", "I live in London.", completed_at=ago(3)),
        episode(*tenant, "ep-2", "I live in Paris.", completed_at=ago(2)),
        episode(*tenant, "ep-3", "I live in London.", completed_at=ago(1)),
    ]
    pipeline = Pipeline(settings, book.models())
    try:
        async with pipeline:
            await pipeline.publish(*events)
            await pipeline.wait_done(events, timeout=90)
            yield Run(pipeline, tenant, events)
    finally:
        delete_pipeline_topics(settings)


async def test_an_entity_whose_only_claim_the_judge_dropped_is_not_stored(run: Run) -> None:
    pool = run.pipeline.pool
    assert {name for name, _ in await entities(pool, *run.tenant)} == {"user", "london"}
    said = [(e, stage, reason, what.strip()) for e, stage, reason, what
            in await drops(pool, *run.tenant)]  # fmt: skip
    assert ("ep-2", "judge", "superseded_by_existing", "user lives in paris") in said
    assert ("ep-2", "write", "orphan_entity", "paris") in said
    # london is still named by its fact: the duplicate's drop leaves it alone
    assert ("ep-3", "dedup", "exact_duplicate", "user lives in london") in said
    assert [d for d in said if d[2] == "orphan_entity"] == [
        ("ep-2", "write", "orphan_entity", "paris")
    ]


async def test_every_stored_fact_still_names_a_stored_entity(run: Run) -> None:
    dangling = await run.pipeline.pool.fetchval(
        "SELECT count(*) FROM facts f WHERE f.dataset = $1 AND f.project_id = $2 AND ("
        " (f.subject_entity_id IS NOT NULL AND NOT EXISTS"
        "   (SELECT 1 FROM entities e WHERE e.id = f.subject_entity_id))"
        " OR (f.kind = 'relationship' AND f.object_entity_id IS NULL))",
        *run.tenant,
    )
    assert dangling == 0
