"""A writer stuck past the claim timeout: the stale episode runs again, in its place.

The per-tenant gate keeps a tenant's episodes from overlapping: the next one is parked
(``queued``) and started only when the previous one is written. When a claim goes stale
(seed: "processing claim older than 10 min is reclaimed") the stale episode is reclaimed
FIRST, at its arrival place: its worker may have died or been fenced as a zombie, its
output never committed, and letting a later episode overtake it would apply the tenant's
episodes out of order (the chaos drill found exactly that; see chaos/README.md). Here
the claim timeout is 1 s and the write stage is not running while two episodes of
DIFFERENT sessions, both saying the user adopted Rex, arrive: ep-1 passes judging, goes
stale, and ep-2's second delivery re-runs ep-1 while ep-2 stays parked. When the writer
starts, ep-1 lands once, its re-run's insert is dropped by the writer's race re-check
(already live), and ep-2 then runs and is an exact duplicate: the table equals
one-at-a-time processing. (The race re-check between two different jobs is covered by
tests/integration/stages/test_write_stage.py.)
"""

from __future__ import annotations

import asyncio
import time
import uuid

from streams.model.fakes.book import ScriptBook, TenantScript, claim, graph
from tests.support.events import episode
from tests.support.fact_table import Row, drops, fact_table
from tests.support.pipeline import Pipeline, delete_pipeline_topics, pipeline_settings

ADOPTED = graph({"rex": "ANIMAL"}, claim("user", "has dog", "rex"))


async def test_a_writer_stuck_past_the_claim_timeout_reruns_the_stale_episode_first(
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
        await pipeline.wait_handled("judge", [first], timeout=60)
        await asyncio.sleep(1.5)  # ep-1's claim goes stale; ep-2 is still parked
        status = "SELECT semantic_status FROM episodes WHERE dataset = $1 AND episode_id = $2"
        assert await pipeline.pool.fetchval(status, tenant[0], "ep-2") == "queued"
        republished = time.monotonic()
        await pipeline.publish(second)  # its second delivery reclaims ep-1, not ep-2
        while pipeline.progress.seen("judge")[first.event_id] < republished:
            assert time.monotonic() < republished + 60, "ep-1 was not run again"
            await asyncio.sleep(0.05)
        assert await pipeline.pool.fetchval(status, tenant[0], "ep-2") == "queued"
        await pipeline.start_stage("write")
        await pipeline.wait_done([first, second], timeout=60)

        pool = pipeline.pool
        assert await fact_table(pool, *tenant) == [Row("user", "has dog", "rex", "ep-1")]
        assert await drops(pool, *tenant) == [
            ("ep-1", "write", "race_recheck", "user has dog rex"),
            ("ep-2", "dedup", "exact_duplicate", "user has dog rex"),
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
