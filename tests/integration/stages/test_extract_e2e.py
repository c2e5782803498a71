"""The extract stage through the real runtime, on the real broker and Postgres.

EpisodeCompleted events of two tenants are published back to back; an in-process
Worker runs the extract stage; a stand-in for the writer reads facts.extracted
(read_committed), stores the facts, marks each episode done and then, as the write stage
does, publishes the wake-up of the tenant's next queued episode: that is what lets the
per-tenant gate start it.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

from confluent_kafka import Consumer

from streams.domain.graph import RawClaim, RawEntity, RawGraph
from streams.events import FactsExtracted
from streams.kafka.publisher import Publisher
from streams.model.ports import ExtractInput
from streams.runtime.config import WorkerConfig
from streams.runtime.worker import Worker
from streams.settings import Settings
from streams.stages.extract import create_stage
from streams.store.gate import mark_semantic_done, next_to_release
from tests.support.db import TEST_EMBEDDING_DIM
from tests.support.episodes import episode, make_deps, new_tenant
from tests.support.kafka import committed_reader

CITIES = ["oslo", "berlin", "lisbon"]


def moved_to(req: ExtractInput) -> RawGraph:
    """ "I moved to <city>": the city is the last word of the user's message."""
    city = req.messages[0].content.rstrip(".").split()[-1].lower()
    return RawGraph(
        entities=[RawEntity(name=city, type="PLACE")],
        relationships=[RawClaim(subject="user", predicate="lives in", object=city,
                                confidence=0.9, sourceQuote=req.messages[0].content)],
    )  # fmt: skip


async def stand_in_writer(
    pool: Any, consumer: Consumer, publisher: Publisher, want: int,
    seen: list[tuple[str, FactsExtracted]],
) -> None:  # fmt: skip
    """Store each committed FactsExtracted and mark its episode done, one at a time; then
    wake the tenant's next queued episode."""
    while len(seen) < want:
        for msg in await asyncio.to_thread(consumer.consume, 100, 0.2):
            if msg.error() is not None:
                continue
            out = FactsExtracted.model_validate_json(msg.value())
            seen.append((msg.key().decode(), out))
            async with pool.acquire() as conn, conn.transaction():
                for f in out.facts:
                    await conn.execute(
                        "UPDATE facts SET invalid_at = now(), invalid_reason = 'superseded'"
                        " WHERE dataset = $1 AND project_id = $2 AND subject = $3"
                        " AND predicate = $4 AND invalid_at IS NULL",
                        out.dataset, out.project_id, f.subject, f.predicate,
                    )  # fmt: skip
                    await conn.execute(
                        "INSERT INTO facts (dataset, project_id, subject, predicate, object,"
                        " kind, confidence, episode_id) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)",
                        out.dataset, out.project_id, f.subject, f.predicate, f.object,
                        f.kind.value, f.confidence, out.episode_id,
                    )  # fmt: skip
                await mark_semantic_done(conn, out.dataset, out.project_id, out.episode_id)
            async with pool.acquire() as conn:
                wake_up = await next_to_release(conn, out.dataset, out.project_id, 600.0)
            if wake_up is not None:
                publisher.publish(wake_up)
                await asyncio.to_thread(publisher.flush)


async def test_extract_runs_through_the_runtime_in_tenant_order(
    pool: Any,
    kafka_bootstrap: str,
    tenant: Any,
    create_topics: Callable[..., Any],
) -> None:
    settings = Settings(
        kafka_bootstrap_servers=kafka_bootstrap, topic_prefix=tenant.topic_prefix,
        embedding_dim=TEST_EMBEDDING_DIM,
    )  # fmt: skip
    create_topics(settings, partitions=2)
    busy, quiet = new_tenant(), new_tenant()
    busy_eps = [episode(busy, [f"I moved to {c}."], episode_id=f"ep-{i}") for i, c in
                enumerate(CITIES)]  # fmt: skip
    quiet_ep = episode(quiet, ["I moved to Paris."], episode_id="ep-q")
    with Publisher(settings) as publisher:
        for ev in [*busy_eps, quiet_ep]:
            publisher.publish(ev)

    deps = make_deps(pool, extract=moved_to, topic_prefix=tenant.topic_prefix)
    cfg = WorkerConfig.from_settings(
        settings, "extract", group=f"g-{uuid.uuid4().hex[:8]}", concurrency=4
    )
    worker = Worker(create_stage(deps), cfg)
    running = asyncio.create_task(worker.run())
    consumer = committed_reader(
        kafka_bootstrap, f"r-{uuid.uuid4().hex[:8]}", settings.topic("facts.extracted")
    )
    seen: list[tuple[str, FactsExtracted]] = []
    waker = Publisher(settings)
    try:
        await asyncio.wait_for(stand_in_writer(pool, consumer, waker, 4, seen), 90)
    finally:
        worker.stop()
        assert await asyncio.wait_for(running, 60) == 0
        consumer.close()
        waker.close()

    by_episode = {out.episode_id: (key, out) for key, out in seen}
    assert len(seen) == 4 and set(by_episode) == {"ep-0", "ep-1", "ep-2", "ep-q"}
    busy_key = f"{busy[0]}:{busy[1]}"
    assert [out.episode_id for key, out in seen if key == busy_key] == ["ep-0", "ep-1", "ep-2"]
    for i, city in enumerate(CITIES):
        key, out = by_episode[f"ep-{i}"]
        assert (out.dataset, out.project_id) == busy and key == busy_key
        assert [f.triple for f in out.facts] == [("user", "lives in", city)]
        assert out.source_event_id == busy_eps[i].event_id

    # The gate: each of the busy tenant's extractions saw the previous one's result, as
    # one-at-a-time processing would; the quiet tenant saw none of it.
    assert len(deps.models.extractor.requests) == 4  # each episode extracted once
    requests = {r.scope.episode_id + r.scope.dataset: r for r in deps.models.extractor.requests}
    assert requests["ep-1" + busy[0]].recent_facts == ["user lives in oslo"]
    assert requests["ep-2" + busy[0]].recent_facts == ["user lives in berlin"]
    assert requests["ep-q" + quiet[0]].recent_facts == []
    async with pool.acquire() as conn:
        statuses = await conn.fetch(
            "SELECT semantic_status FROM episodes WHERE dataset = ANY($1::text[])",
            [busy[0], quiet[0]],
        )
    assert [r["semantic_status"] for r in statuses] == ["done"] * 4
