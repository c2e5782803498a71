"""Two concurrent jobs of one tenant race, and the writer's re-check drops the collision.

The per-tenant gate normally keeps a tenant's episodes from overlapping: the next one is
claimed for extraction only when the previous one is written. The gate gives way when a
claim goes stale (seed: "processing claim older than 10 min is reclaimed"), which is how
two jobs of one tenant really do overlap: a writer that is down or stuck past the claim
timeout. This test makes exactly that happen through the real pipeline: the claim timeout
is 1 s and the write stage is not running while two episodes of DIFFERENT sessions, both
saying the user adopted Rex, pass extraction, resolution, dedup and judging. Neither saw
the other's fact (nothing was written yet), so both reach the writer as inserts; when the
writer starts, the first lands and the second is dropped by the race re-check.
"""

from __future__ import annotations

import uuid

from tests.support.fact_table import Row, drops, fact_table
from tests.support.pipeline import Pipeline, delete_pipeline_topics, pipeline_settings
from tests.support.pipeline_scripts import ScriptBook, TenantScript, claim, episode, graph

ADOPTED = graph({"rex": "ANIMAL"}, claim("user", "has dog", "rex"))


async def test_two_concurrent_jobs_race_and_the_recheck_drops_the_collision(
    kafka_bootstrap: str, database_url: str
) -> None:
    settings = await pipeline_settings(kafka_bootstrap, database_url, claim_timeout_s=1.0)
    book = ScriptBook(settings.embedding_dim)
    tenant = (f"race-{uuid.uuid4().hex[:8]}", "p1")
    book.add(*tenant, TenantScript(graphs={"ep-1": ADOPTED, "ep-2": ADOPTED}))
    first = episode(*tenant, "ep-1", "We adopted a dog, Rex!", session_id="morning-chat")
    second = episode(*tenant, "ep-2", "Rex is our new dog.", session_id="evening-chat")
    pipeline = Pipeline(settings, book.models())
    try:
        await pipeline.start(["summarize", "extract", "resolve", "dedup", "judge"])
        await pipeline.publish(first, second)
        await pipeline.wait_handled("judge", [first, second], timeout=60)
        await pipeline.start_stage("write")
        await pipeline.wait_done([first, second], timeout=60)

        pool = pipeline.pool
        assert await fact_table(pool, *tenant) == [Row("user", "has dog", "rex", "ep-1")]
        # The collision was caught by the writer, not earlier: ep-2's dedup saw no live fact.
        assert await drops(pool, *tenant) == [
            ("ep-2", "write", "race_recheck", "user has dog rex"),
        ]
        statuses = await pool.fetch(
            "SELECT episode_id, session_id, semantic_status FROM episodes"
            " WHERE dataset = $1 ORDER BY episode_id",
            tenant[0],
        )
        assert [tuple(r) for r in statuses] == [
            ("ep-1", "morning-chat", "done"),
            ("ep-2", "evening-chat", "done"),
        ]
    finally:
        await pipeline.stop()
        delete_pipeline_topics(settings)
